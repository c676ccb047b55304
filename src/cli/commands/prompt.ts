import { acksForRisks } from '../../core/acks';
import { outputDirOf } from '../../core/workflow/paths';
import { renderRestartPrompt } from '../../core/render/prompt';
import { DIR_FLAGS, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import { currentOrExplain } from '../current';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED } from '../types';

/** `handoff prompt`: print the restart prompt of the current branch + topic's packet (else the newest). */
export const promptCommand: CommandSpec = {
  name: 'prompt',
  summary: 'print the restart prompt of the active packet for this branch (else the newest packet)',
  usage: 'prompt [--dir DIR] [--output-dir DIR]',
  flags: [...DIR_FLAGS],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    const current = await currentOrExplain(workspaceDir, options, io);
    if (!current) return EXIT_REFUSED;
    // A stale packet's prompt opens with why it is stale, so the next session reviews before acting;
    // risks a person acknowledged (in the editor's Open Risks view) are marked as such.
    const { acks, diagnostics: ackDiagnostics } = await acksForRisks(outputDirOf(workspaceDir, options), current.stored.dir, current.stored.packet.open_risks);
    printDiagnostics(io, ackDiagnostics);
    io.stdout(
      renderRestartPrompt(current.stored.packet, {
        firstTurn: options.firstTurn,
        freshness: current.freshness,
        acknowledged: acks.map((a) => ({ id: a.risk_id, by: a.by, at: a.at })),
      }),
    );
    return EXIT_OK;
  },
};
