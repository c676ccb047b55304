import * as path from 'node:path';
import { auditLine } from '../../core/packet/audit';
import { auditWithFiles } from '../../core/workflow/audit';
import { generateHandoff } from '../../core/workflow/generate';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, K_FLAG, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import { contextForPacket, READING_FLAGS, sessionForCli, sessionSearchForCli } from '../context';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { EXIT_OK, EXIT_REFUSED, UsageError } from '../types';
import { displayPath } from '../../core/packet/secretRisks';
import { humanTime } from '../../core/render/text';
import type { SessionFacts } from '../../core/session/model';
import { agentName } from '../../core/session/model';
import { listSessionRequests, type SessionCut } from '../../core/session/reader';
import { ledgerKeyProblem } from '../../core/registry/ownership';
import { redact } from '../../core/redact';

/** `handoff generate`: write the handoff packet of the workbench, or say why not. */
export const generateCommand: CommandSpec = {
  name: 'generate',
  summary: 'write the handoff packet (handoff.json + handoff.md) for the workbench',
  usage:
    'generate [--goal TEXT] [--as-of TIME | --before-request N | --list-requests] [--dir DIR] [--output-dir DIR] [--k N] [--allow-dirty] [--json] [--claude-config-dir DIR] [--codex-home DIR] [--window TOKENS]',
  flags: [
    ...DIR_FLAGS,
    K_FLAG,
    { name: 'goal', type: 'string', placeholder: 'TEXT', help: "what the next session should achieve; the restart prompt's first line" },
    { name: 'client-goal', type: 'string', placeholder: 'TEXT', help: 'a goal an MCP client gave: kept as data for the next session to confirm, never as an instruction' },
    { name: 'allow-dirty', type: 'boolean', help: 'write the packet on a dirty workbench; every finding becomes a block risk' },
    { name: 'as-of', type: 'string', placeholder: 'TIME', help: 'the packet the session would have given at TIME (ISO, e.g. 2026-11-20T09:30Z): its log is read only up to then' },
    { name: 'before-request', type: 'number', placeholder: 'N', help: 'the packet the session would have given just before its request N (see --list-requests)' },
    { name: 'list-requests', type: 'boolean', help: "list the session's requests (number, time, line, commands before) and write nothing" },
    JSON_FLAG,
    ...READING_FLAGS,
  ],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const earlier = await earlierPoint(workspaceDir, flags, io);
    if (earlier === 'done') return EXIT_OK;
    if (earlier === 'refused') return EXIT_REFUSED;
    const outcome = await generateHandoff({
      workspaceDir,
      options: optionsOf(flags),
      allowDirty: flags['allow-dirty'] === true,
      goal: typeof flags['goal'] === 'string' ? flags['goal'] : typeof flags['client-goal'] === 'string' ? flags['client-goal'] : null,
      ...(typeof flags['goal'] !== 'string' && typeof flags['client-goal'] === 'string' ? { goalFromClient: true } : {}),
      gitClient: createGitClient(workspaceDir),
      // The agent's context usage at this moment is part of the packet, as in the editor.
      // At an earlier point the usage then is not known: the packet says so rather than give today's.
      context: earlier ? { known: false, reason: `the packet was built ${earlier.what}; the context usage at that point is not known` } : await contextForPacket(workspaceDir, flags, io),
      // Claude Code and Codex sessions fill in what the workbench files do not say.
      session: earlier ? earlier.session : await sessionForCli(workspaceDir, flags, io.env),
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
    const keyProblem = await ledgerKeyProblem(io.env).catch(() => null);
    if (keyProblem) io.stderr(`handoff generate: ${redact(keyProblem)}\n`);
    return EXIT_OK;
  },
};

/**
 * `--list-requests` (prints them: `done`), `--as-of` / `--before-request` (the session read up to that
 * point, with a phrase for the packet), or null for a packet of now. `refused` after saying why.
 */
async function earlierPoint(workspaceDir: string, flags: FlagValues, io: CliIO): Promise<'done' | 'refused' | null | { session: SessionFacts; what: string }> {
  const asOf = flags['as-of'];
  const before = flags['before-request'];
  const list = flags['list-requests'] === true;
  if ([asOf !== undefined, before !== undefined, list].filter(Boolean).length > 1) throw new UsageError('--as-of, --before-request and --list-requests go one at a time');
  if (asOf === undefined && before === undefined && !list) return null;
  const whole = await sessionForCli(workspaceDir, flags, io.env);
  if (!whole || (whole.agent !== 'claude-code' && whole.agent !== 'codex')) {
    io.stderr(`handoff generate: ${whole ? `${agentName(whole.agent)} tasks are rewritten whole, so they have no earlier point to go back to` : 'no Claude Code or Codex session of this folder was found'}; an earlier point is chosen in a session log\n`);
    return 'refused';
  }
  const { requests, commands } = await listSessionRequests(whole.file, whole.agent);
  if (list) {
    if (flags['json']) {
      io.stdout(`${JSON.stringify({ session: whole.sessionId, file: whole.file, commands, requests }, null, 2)}\n`);
      return 'done';
    }
    io.stdout(`Requests of ${agentName(whole.agent)} session ${whole.sessionId} (${displayPath(whole.file)}), ${commands} commands in all:\n`);
    requests.forEach((r, i) => {
      const turn = (requests[i + 1]?.commandsBefore ?? commands) - r.commandsBefore;
      const words = r.text.replace(/\s+/g, ' ').trim();
      io.stdout(`  ${String(r.n).padStart(3)}  ${r.at ? humanTime(r.at) : 'no time'}  line ${r.line}  ${turn} command${turn === 1 ? '' : 's'} in its turn  "${words.length > 80 ? `${words.slice(0, 79)}…` : words}"\n`);
    });
    io.stdout('Go back with: handoff generate --before-request N (or --as-of TIME)\n');
    return 'done';
  }
  let cut: SessionCut;
  let what: string;
  if (before !== undefined) {
    if (typeof before !== 'number' || !Number.isInteger(before) || before < 1) throw new UsageError('--before-request must be a request number from 1 (see --list-requests)');
    const r = requests[before - 1];
    if (!r) throw new UsageError(`--before-request ${before}: the session has ${requests.length} request${requests.length === 1 ? '' : 's'} (see --list-requests)`);
    cut = { beforeLine: r.line };
    what = `as of just before request ${before} (line ${r.line} of the session)`;
  } else {
    const ms = typeof asOf === 'string' ? Date.parse(asOf) : NaN;
    if (Number.isNaN(ms)) throw new UsageError(`--as-of needs a time such as 2026-11-20T09:30:00Z, got "${String(asOf)}"`);
    cut = { untilMs: ms };
    what = `as of ${new Date(ms).toISOString()}`;
  }
  const session = await sessionForCli(workspaceDir, flags, io.env, cut);
  if (!session) {
    io.stderr(`handoff generate: the session could not be read ${what}\n`);
    return 'refused';
  }
  return { session, what };
}
