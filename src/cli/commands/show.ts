import { serializePacket } from '../../core/packet/build';
import { renderMarkdown } from '../../core/render/markdown';
import { DIR_FLAGS, JSON_FLAG, optionsOf, workspaceDirOf } from '../common';
import { newestOrExplain } from '../newest';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED } from '../types';

/** `handoff show`: print the newest packet as markdown, or as its JSON. */
export const showCommand: CommandSpec = {
  name: 'show',
  summary: 'print the newest packet (markdown, or the JSON with --json)',
  usage: 'show [--dir DIR] [--output-dir DIR] [--json]',
  flags: [...DIR_FLAGS, JSON_FLAG],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const newest = await newestOrExplain(workspaceDir, optionsOf(flags), io);
    if (!newest) return EXIT_REFUSED;
    io.stdout(flags['json'] ? serializePacket(newest.packet) : renderMarkdown(newest.packet));
    return EXIT_OK;
  },
};
