import type { HandoffOptions } from '../core/options';
import { currentPacket } from '../core/workflow/freshness';
import { outputDirOf } from '../core/workflow/paths';
import { createGitClient } from '../git/gitClient';
import { printDiagnostics } from './common';
import type { CliIO } from './types';

/**
 * The packet a restart should use (this branch + topic's active packet, else the newest) with its
 * freshness, or null after telling the user how to make one.
 */
export async function currentOrExplain(workspaceDir: string, options: HandoffOptions, io: CliIO) {
  const { current, diagnostics } = await currentPacket(workspaceDir, options, createGitClient(workspaceDir));
  printDiagnostics(io, diagnostics);
  if (!current) io.stderr(`handoff: no packet in ${outputDirOf(workspaceDir, options)} yet; run \`handoff generate\` first\n`);
  return current;
}
