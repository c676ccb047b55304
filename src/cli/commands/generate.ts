import * as path from 'node:path';
import { auditLine } from '../../core/packet/audit';
import { auditWithFiles } from '../../core/workflow/audit';
import { generateHandoff } from '../../core/workflow/generate';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, K_FLAG, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import { contextForPacket, READING_FLAGS, sessionForCli, sessionSearchForCli } from '../context';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED } from '../types';

/** `handoff generate`: write the handoff packet of the workbench, or say why not. */
export const generateCommand: CommandSpec = {
  name: 'generate',
  summary: 'write the handoff packet (handoff.json + handoff.md) for the workbench',
  usage: 'generate [--goal TEXT] [--dir DIR] [--output-dir DIR] [--k N] [--allow-dirty] [--json] [--claude-config-dir DIR] [--codex-home DIR] [--window TOKENS]',
  flags: [
    ...DIR_FLAGS,
    K_FLAG,
    { name: 'goal', type: 'string', placeholder: 'TEXT', help: "what the next session should achieve; the restart prompt's first line" },
    { name: 'allow-dirty', type: 'boolean', help: 'write the packet on a dirty workbench; every finding becomes a block risk' },
    JSON_FLAG,
    ...READING_FLAGS,
  ],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const outcome = await generateHandoff({
      workspaceDir,
      options: optionsOf(flags),
      allowDirty: flags['allow-dirty'] === true,
      goal: typeof flags['goal'] === 'string' ? flags['goal'] : null,
      gitClient: createGitClient(workspaceDir),
      // The agent's context usage at this moment is part of the packet, as in the editor.
      context: await contextForPacket(workspaceDir, flags, io),
      // Claude Code and Codex sessions fill in what the workbench files do not say.
      session: await sessionForCli(workspaceDir, flags, io.env),
      sessionSearch: await sessionSearchForCli(workspaceDir, flags, io.env),
    });
    printDiagnostics(io, outcome.diagnostics);
    if (outcome.kind === 'refused') {
      const findings = outcome.findings ?? [];
      if (flags['json']) io.stdout(`${JSON.stringify({ kind: 'refused', reason: outcome.reason, findings }, null, 2)}\n`);
      io.stderr(`handoff: refused: ${outcome.reason}\n`);
      for (const f of findings) io.stderr(`  - ${f.check}: ${f.detail} (fix: ${f.fix})\n`);
      return EXIT_REFUSED;
    }
    const json = path.join(outcome.packetDir, 'handoff.json');
    const md = path.join(outcome.packetDir, 'handoff.md');
    // Just written from the current HEAD and inputs: fresh by construction.
    const facts = await createGitClient(workspaceDir).facts().catch(() => null);
    const audit = await auditWithFiles(outcome.packet, facts?.root ?? workspaceDir, { stale: false, reasons: [] });
    if (flags['json']) {
      const { kind, packetDir, packet } = outcome;
      const superseded = outcome.superseded ?? [];
      const completeness = { passed: audit.passed, applicable: audit.applicable, failing: audit.probes.filter((p) => p.status === 'fail').map((p) => p.id) };
      io.stdout(`${JSON.stringify({ kind, packetDir, json, md, packetId: packet.packet_id, sessionId: packet.session_id, nextAction: packet.next_action, superseded, completeness }, null, 2)}\n`);
    } else if (outcome.kind === 'unchanged') {
      io.stdout(`unchanged: ${json} already holds this packet (inputs did not change); nothing written\n`);
    } else {
      io.stdout(`wrote ${json}\nwrote ${md}\n`);
    }
    if (!flags['json']) for (const id of outcome.superseded ?? []) io.stdout(`superseded ${id}\n`);
    if (!flags['json']) io.stdout(`${auditLine(audit)} (handoff audit for the fixes)\n`);
    return EXIT_OK;
  },
};
