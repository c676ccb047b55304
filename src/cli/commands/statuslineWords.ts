import type { FlagValues } from '../types';

// Bundled on its own, this reader has its own copy of the file operations: the statusline that loads
// it switches them to blocking as it did its own (a run time spent mostly reading packet files).
export { useBlockingFileAccess } from '../../core/fsx';
import { cleanWord, packetWord, readState } from './statusParts';

/**
 * `clean · handoff fresh` from a full read of the workbench (git, clean checks, packets). Loaded by the
 * statusline only when its cache cannot answer: it brings the schema library and the git client.
 */
export async function workbenchWords(workspaceDir: string, flags: FlagValues): Promise<string[]> {
  // Only the packets the line can name are read in full: thousands of packet folders stay cheap.
  const state = await readState(workspaceDir, flags, undefined, 'chosen');
  return [cleanWord(state), packetWord(state)];
}
