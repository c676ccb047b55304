import { isOwnPacket, packetHash, recordOwnPacket } from './ownership';

/**
 * Records a packet that arrived from elsewhere (imported, committed by a teammate) as trusted here, on
 * the user's explicit word after review: from then on it is treated as this machine's own packet, so
 * SessionStart and the MCP server hand it over while it is fresh. The one place that says what "trusted
 * here" is recorded as. Returns whether the record took (false: no repository, or the ledger could not
 * be written).
 */
export async function trustPacket(packetDir: string, json: string | Uint8Array): Promise<boolean> {
  await recordOwnPacket(packetDir, json);
  return isOwnPacket(packetDir, packetHash(json));
}
