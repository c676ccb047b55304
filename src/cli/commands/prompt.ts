import { PROMPT_AGENTS, type PromptAgent } from '../../core/render/forAgent';
import { restartPromptOf } from '../../core/workflow/restartPrompt';
import { DIR_FLAGS, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import { NOT_WRITTEN_HERE, possiblyYours } from '../../core/registry/trust';
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
  usage: 'prompt [--for claude|codex|gemini|qwen|copilot] [--dir DIR] [--output-dir DIR]',
  flags: [...DIR_FLAGS, { name: 'for', type: 'string', placeholder: 'AGENT', help: 'render it for another agent: claude, codex, gemini, qwen or copilot (its tool names; what it came from)' }],
  async run({ flags, io }) {
    const target = flags['for'];
    if (target !== undefined && !PROMPT_AGENTS.includes(target as PromptAgent)) throw new UsageError(`--for must be claude, codex, gemini, qwen or copilot (got "${String(target)}")`);
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    const current = await currentOrExplain(workspaceDir, options, io);
    if (!current) return EXIT_REFUSED;
    // Only a packet ours and fresh is a restart prompt to act on: any other is a record to review first
    // (a missing HEAD or branch never matches), and one not written here says so at its top.
    const { text, diagnostics } = await restartPromptOf(workspaceDir, options, current, target === undefined ? {} : { target: target as PromptAgent });
    printDiagnostics(io, diagnostics);
    if (current.trust.kind === 'foreign') io.stderr(`handoff: ${NOT_WRITTEN_HERE}\n`);
    const possibly = possiblyYours(current.trust);
    if (possibly) io.stderr(`handoff: possibly yours: ${possibly}\n`);
    io.stdout(text);
    return EXIT_OK;
  },
};
