import { gitDirOf, isOwnPacket, isVouched, packetHash, recordOwnPacket, vouch } from './ownership';

/**
 * Records a packet that arrived from elsewhere (imported, committed by a teammate) as trusted here, on
 * the user's explicit word after review: from then on it is treated as this machine's own packet, so
 * SessionStart hands it over while it is fresh. The one place that says what "trusted
 * here" is recorded as. Returns whether the record took (false: no repository, or the ledger could not
 * be written).
 */
export async function trustPacket(packetDir: string, json: string | Uint8Array): Promise<boolean> {
  await recordOwnPacket(packetDir, json);
  // The user's word covers this packet whole, its next action included, and nothing else: the
  // agent_state.json content its inputs name is NOT vouched for, so a later packet generated from a
  // committed agent_state.json with that content is still judged by where that file came from.
  await vouch(packetDir, 'trust', packetHash(json));
  return isOwnPacket(packetDir, packetHash(json));
}

/** Whether the user trusted exactly these `handoff.json` bytes here (`trustPacket`). */
export async function isTrustedPacket(packetDir: string, sha256: string): Promise<boolean> {
  return isVouched(packetDir, 'trust', sha256);
}

/**
 * Whether this tool wrote the packet here, or its user trusted it here (`isOwnPacket`). Outside a git
 * repository there is no ledger to ask: that is not "not written here" but unknown, and such a packet is
 * never fresh anyway (without git neither HEAD nor the branch can be matched), so it is judged stale,
 * never an instruction.
 */
export async function ownedOrUnknown(stored: { dir: string; sha256?: string | null }): Promise<boolean> {
  if (!(await gitDirOf(stored.dir).catch(() => null))) return true;
  return stored.sha256 ? isOwnPacket(stored.dir, stored.sha256) : false;
}
