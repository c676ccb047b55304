import { renderRestartPrompt } from '../../core/render/prompt';
import { freshnessNow } from '../../core/workflow/freshness';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, optionsOf, workspaceDirOf } from '../common';
import { newestOrExplain } from '../newest';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED } from '../types';

/** `handoff prompt`: print the restart prompt of the newest packet. */
export const promptCommand: CommandSpec = {
  name: 'prompt',
  summary: 'print the restart prompt of the newest packet',
  usage: 'prompt [--dir DIR] [--output-dir DIR]',
  flags: [...DIR_FLAGS],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    const newest = await newestOrExplain(workspaceDir, options, io);
    if (!newest) return EXIT_REFUSED;
    // A stale packet's prompt opens with why it is stale, so the next session reviews before acting.
    const freshness = await freshnessNow(workspaceDir, options, newest.packet, createGitClient(workspaceDir));
    io.stdout(renderRestartPrompt(newest.packet, { firstTurn: options.firstTurn, freshness }));
    return EXIT_OK;
  },
};
