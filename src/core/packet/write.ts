import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../fsx';
import { realInside } from '../ownLog';
import { renderMarkdown } from '../render/markdown';
import { serializePacket } from './build';
import type { Packet } from './schema';
import { redact, type Redacted } from '../redact';
import { recordOwnPacket } from '../registry/ownership';

export const PACKET_JSON = 'handoff.json';
export const PACKET_MD = 'handoff.md';

export interface WriteResult {
  /** `taken`: the folder holds a different packet and `keepOther` left it alone. */
  kind: 'written' | 'unchanged' | 'taken';
  packetDir: string;
}

/** The exact bytes of both files, so "unchanged" is a byte comparison. Redacted as a whole, last. */
export function renderPacketFiles(packet: Packet): { json: Redacted; md: Redacted } {
  return { json: serializePacket(packet), md: redact(renderMarkdown(packet)) };
}

/**
 * Writes `<outputDir>/<packet_id>/handoff.json` and `handoff.md` atomically (JSON last, so a reader that
 * sees the JSON sees a complete packet). Writes nothing and says `unchanged` when both files already
 * hold these exact bytes. With `keepOther`, a folder already holding another packet is not touched
 * (`taken`). The packet is rendered once and each file read once.
 */
export async function writePacket(outputDir: string, packet: Packet, opts: { keepOther?: boolean; record?: boolean } = {}): Promise<WriteResult> {
  // `record: false`: a packet that arrived from elsewhere (an import) is written but not taken as ours.
  const record = opts.record === false ? async (): Promise<void> => undefined : recordOwnPacket;
  const packetDir = path.join(outputDir, packet.packet_id);
  // A packet folder committed as a symlink out of the output dir is never written through.
  if (!(await realInside(packetDir, outputDir))) throw new Error(`${packetDir} is a symbolic link that leads outside ${outputDir}; no packet written`);
  const { json, md } = renderPacketFiles(packet);
  const [oldJson, oldMd] = await Promise.all([readIfExists(path.join(packetDir, PACKET_JSON)), readIfExists(path.join(packetDir, PACKET_MD))]);
  if (oldJson === json && oldMd === md) {
    // The bytes this run would write: ours, whoever put them there.
    await record(packetDir, json);
    return { kind: 'unchanged', packetDir };
  }
  if (opts.keepOther && oldJson !== null) return { kind: 'taken', packetDir };
  if (oldMd !== md) await atomicWrite(path.join(packetDir, PACKET_MD), md, { root: outputDir });
  if (oldJson !== json) await atomicWrite(path.join(packetDir, PACKET_JSON), json, { root: outputDir });
  await record(packetDir, json);
  return { kind: 'written', packetDir };
}

/** A short content hash of a packet independent of its own id: names a session's later packets. */
export function packetContentHash(packet: Packet): string {
  return createHash('sha256').update(serializePacket({ ...packet, packet_id: '' })).digest('hex').slice(0, 8);
}
