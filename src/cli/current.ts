import type { HandoffOptions } from '../core/options';
import { currentWithTrust } from '../core/workflow/restartPrompt';
import { ownedOrUnknown } from '../core/registry/trustPacket';

export { ownedOrUnknown };
import { outputDirOf } from '../core/workflow/paths';
import { createGitClient } from '../git/gitClient';
import { printDiagnostics } from './common';
import type { CliIO } from './types';

export { NOT_WRITTEN_HERE } from '../core/registry/trust';

/**
 * The packet a restart should use (this branch + topic's active packet, else the newest) with its
 * freshness and what it may be treated as (`currentWithTrust`), or null after telling the user how to
 * make one.
 */
export async function currentOrExplain(workspaceDir: string, options: HandoffOptions, io: CliIO) {
  const { current, diagnostics } = await currentWithTrust(workspaceDir, options, createGitClient(workspaceDir));
  printDiagnostics(io, diagnostics);
  if (!current) {
    io.stderr(`handoff: no packet in ${outputDirOf(workspaceDir, options)} yet; run \`handoff generate\` first\n`);
    return null;
  }
  return current;
}
