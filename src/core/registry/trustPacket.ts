import * as path from 'node:path';
import { gitDirOf, isOwnPacket, packetHash, recordOwnPacket, vouch } from './ownership';

/**
 * Records a packet that arrived from elsewhere (imported, committed by a teammate) as trusted here, on
 * the user's explicit word after review: from then on it is treated as this machine's own packet, so
 * SessionStart hands it over while it is fresh. The one place that says what "trusted
 * here" is recorded as. Returns whether the record took (false: no repository, or the ledger could not
 * be written).
 */
export async function trustPacket(packetDir: string, json: string | Uint8Array): Promise<boolean> {
  await recordOwnPacket(packetDir, json);
  // The user's word covers the packet whole: the agent_state.json its next action was taken from too.
  const state = agentStateInput(json);
  if (state) await vouch(packetDir, 'input', state);
  return isOwnPacket(packetDir, packetHash(json));
}

/** The sha256 of the agent_state.json among a packet's inputs, when it has one. */
function agentStateInput(json: string | Uint8Array): string | null {
  try {
    const p = JSON.parse(typeof json === 'string' ? json : Buffer.from(json).toString('utf8')) as { inputs?: { file?: unknown; sha256?: unknown }[] };
    const input = (p.inputs ?? []).find((i) => typeof i.file === 'string' && path.basename(i.file) === 'agent_state.json' && typeof i.sha256 === 'string');
    return (input?.sha256 as string | undefined) ?? null;
  } catch {
    return null;
  }
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
