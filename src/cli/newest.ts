import type { StoredPacket } from '../core/workflow/readPackets';
import { newestPacket, readPackets } from '../core/workflow/readPackets';
import { outputDirOf } from '../core/workflow/paths';
import type { HandoffOptions } from '../core/options';
import { printDiagnostics } from './common';
import type { CliIO } from './types';

/** The newest packet in the output dir, or null after telling the user how to make one. */
export async function newestOrExplain(workspaceDir: string, options: HandoffOptions, io: CliIO): Promise<StoredPacket | null> {
  const outputDir = outputDirOf(workspaceDir, options);
  const { packets, diagnostics } = await readPackets(outputDir);
  printDiagnostics(io, diagnostics);
  const newest = newestPacket(packets);
  if (!newest) io.stderr(`handoff: no packet in ${outputDir} yet; run \`handoff generate\` first\n`);
  return newest;
}
