import { serializePacket } from '../../core/packet/build';
import { renderForPr } from '../../core/render/forPr';
import { renderMarkdown } from '../../core/render/markdown';
import { DIR_FLAGS, JSON_FLAG, optionsOf, workspaceDirOf } from '../common';
import { currentOrExplain, NOT_WRITTEN_HERE } from '../current';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED, UsageError } from '../types';

/** `handoff show`: print the current branch + topic's packet (else the newest) as markdown, or its JSON. */
export const showCommand: CommandSpec = {
  name: 'show',
  summary: 'print the active packet for this branch (else the newest) as markdown, or the JSON with --json',
  usage: 'show [--dir DIR] [--output-dir DIR] [--json | --for-pr]',
  flags: [...DIR_FLAGS, JSON_FLAG, { name: 'for-pr', type: 'boolean', help: 'a short redacted markdown summary for a pull request description or a review comment' }],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const current = await currentOrExplain(workspaceDir, optionsOf(flags), io);
    if (!current) return EXIT_REFUSED;
    const packet = current.stored.packet;
    // For review it is shown whole; one not written here says so first (on stderr beside the JSON).
    const foreign = current.trust.kind === 'foreign';
    if (flags['for-pr']) {
      if (flags['json']) throw new UsageError('--for-pr and --json do not go together');
      if (foreign) io.stderr(`handoff: ${NOT_WRITTEN_HERE}\n`);
      io.stdout(renderForPr(packet));
    } else if (flags['json']) {
      if (foreign) io.stderr(`handoff: ${NOT_WRITTEN_HERE}\n`);
      io.stdout(serializePacket(packet));
    } else {
      io.stdout(`${foreign ? `> ${NOT_WRITTEN_HERE}\n\n` : ''}${renderMarkdown(packet)}`);
    }
    return EXIT_OK;
  },
};
