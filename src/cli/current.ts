import type { HandoffOptions } from '../core/options';
import { handoffTrust, type PacketTrust } from '../core/registry/trust';
import { currentPacket } from '../core/workflow/freshness';
import { outputDirOf } from '../core/workflow/paths';
import { createGitClient } from '../git/gitClient';
import { printDiagnostics } from './common';
import type { CliIO } from './types';

export { NOT_WRITTEN_HERE } from '../core/registry/trust';

/**
 * The packet a restart should use (this branch + topic's active packet, else the newest) with its
 * freshness and what it may be treated as (`handoffTrust`: ours and fresh, stale, or not written here),
 * or null after telling the user how to make one.
 */
export async function currentOrExplain(workspaceDir: string, options: HandoffOptions, io: CliIO) {
  const { current, diagnostics, now } = await currentPacket(workspaceDir, options, createGitClient(workspaceDir));
  printDiagnostics(io, diagnostics);
  if (!current) {
    io.stderr(`handoff: no packet in ${outputDirOf(workspaceDir, options)} yet; run \`handoff generate\` first\n`);
    return null;
  }
  const trust: PacketTrust = await handoffTrust({ stored: current.stored, freshness: current.freshness, facts: now?.facts ?? null });
  return { ...current, trust };
}
