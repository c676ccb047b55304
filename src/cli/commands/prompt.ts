import * as path from 'node:path';
import { acksForRisks } from '../../core/acks';
import { outputDirOf } from '../../core/workflow/paths';
import { PROMPT_AGENTS, renderForAgent, type PromptAgent } from '../../core/render/forAgent';
import { renderRestartPrompt } from '../../core/render/prompt';
import { DIR_FLAGS, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import { framed, promptFraming } from '../../core/registry/trust';
import { currentOrExplain } from '../current';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED, UsageError } from '../types';

/**
 * `handoff prompt`: print the restart prompt of the current branch + topic's packet (else the newest).
 * `--for codex|claude` renders it for that agent: which agent and session it came from, that agent's
 * tool names and way of running tests in the background, and where handoff.md is for the rest.
 */
export const promptCommand: CommandSpec = {
  name: 'prompt',
  summary: 'print the restart prompt of the active packet for this branch (else the newest packet)',
  usage: 'prompt [--for codex|claude] [--dir DIR] [--output-dir DIR]',
  flags: [...DIR_FLAGS, { name: 'for', type: 'string', placeholder: 'AGENT', help: 'render it for another agent: codex or claude (its tool names; what it came from)' }],
  async run({ flags, io }) {
    const target = flags['for'];
    if (target !== undefined && !PROMPT_AGENTS.includes(target as PromptAgent)) throw new UsageError(`--for must be codex or claude (got "${String(target)}")`);
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    const current = await currentOrExplain(workspaceDir, options, io);
    if (!current) return EXIT_REFUSED;
    // A stale packet's prompt opens with why it is stale, so the next session reviews before acting;
    // risks a person acknowledged (in the editor's Open Risks view) are marked as such.
    const { acks, diagnostics: ackDiagnostics } = await acksForRisks(outputDirOf(workspaceDir, options), current.stored.dir, current.stored.packet.open_risks);
    printDiagnostics(io, ackDiagnostics);
    // Only a packet ours and fresh is a restart prompt to act on: any other is a record to review first
    // (a missing HEAD or branch never matches), and one not written here says so at its top.
    const { header, ...framing } = promptFraming(current.trust, current.freshness, options.firstTurn);
    const extra = { ...framing, acknowledged: acks.map((a) => ({ id: a.risk_id, by: a.by, at: a.at })) };
    const body = target === undefined
      ? renderRestartPrompt(current.stored.packet, extra)
      : renderForAgent(current.stored.packet, target as PromptAgent, extra, { packetDir: path.relative(workspaceDir, current.stored.dir) || '.' });
    if (header) io.stderr(`handoff: ${header}\n`);
    io.stdout(framed(header, body));
    return EXIT_OK;
  },
};
