import { archivePacket } from '../../core/registry/registry';
import { outputDirOf } from '../../core/workflow/paths';
import { DIR_FLAGS, optionsOf, workspaceDirOf } from '../common';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED } from '../types';

/** `handoff archive <id>`: mark a packet archived; nothing is deleted. */
export const archiveCommand: CommandSpec = {
  name: 'archive',
  summary: 'mark a packet archived (nothing is deleted)',
  usage: 'archive <packet_id> [--dir DIR] [--output-dir DIR]',
  flags: [...DIR_FLAGS],
  positionals: { min: 1, max: 1, names: 'one packet id (see handoff list --all)' },
  async run({ flags, positionals, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const id = positionals[0] as string;
    const result = await archivePacket(outputDirOf(workspaceDir, optionsOf(flags)), id);
    if (!result.ok) {
      io.stderr(`handoff archive: ${result.reason}\n`);
      return EXIT_REFUSED;
    }
    io.stdout(result.already ? `${id} was already archived\n` : `archived ${id}\n`);
    return EXIT_OK;
  },
};
