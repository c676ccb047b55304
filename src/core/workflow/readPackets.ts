import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { stripControlDeep } from '../controlChars';
import type { Diagnostic } from '../diagnostics';
import { MAX_OWN_FILE_BYTES, readRegular } from '../fsx';
import { parseJsonLocated, zodMessage } from '../artifacts/readJson';
import { PACKET_JSON } from '../packet/write';
import type { Packet } from '../packet/schema';
import { PacketSchema } from '../packet/schema';
import { packetHash } from '../registry/ownership';

export interface StoredPacket {
  dir: string;
  packet: Packet;
  mtimeMs: number;
  /** The sha256 of the `handoff.json` bytes read: what `isOwnPacket` looks up. */
  sha256?: string;
}

/** Every readable packet under the output dir, plus a diagnostic for each unreadable one. */
export async function readPackets(outputDir: string): Promise<{ packets: StoredPacket[]; diagnostics: Diagnostic[] }> {
  const packets: StoredPacket[] = [];
  const diagnostics: Diagnostic[] = [];
  let entries: string[];
  try {
    entries = (await fs.readdir(outputDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch {
    return { packets, diagnostics };
  }
  for (const name of entries) {
    const file = path.join(outputDir, name, PACKET_JSON);
    // Packets are the tool's own files: one that is a FIFO or a symlink out of the output dir is
    // reported, never read (a missing one is just a folder without a packet).
    const read = await readRegular(file, { root: outputDir, maxBytes: MAX_OWN_FILE_BYTES });
    if (!read.ok) {
      if (read.refusal.kind !== 'missing') diagnostics.push({ file, message: read.refusal.message });
      continue;
    }
    const text = read.bytes.toString('utf8');
    const mtimeMs = read.mtimeMs;
    const parsed = parseJsonLocated(text);
    if (!parsed.ok) {
      diagnostics.push({ file, line: parsed.line, message: parsed.message });
      continue;
    }
    const checked = PacketSchema.safeParse(stripControlDeep(parsed.value));
    if (!checked.success) {
      const z = zodMessage(checked.error, text);
      diagnostics.push({ file, line: z.line, message: z.message });
      continue;
    }
    packets.push({ dir: path.join(outputDir, name), packet: checked.data, mtimeMs, sha256: packetHash(read.bytes) });
  }
  return { packets, diagnostics };
}

/** The newest packet: active ones first, then by `generated_at`, then by write time. */
export function newestPacket(packets: StoredPacket[]): StoredPacket | null {
  const rank = (p: StoredPacket): number => (p.packet.status === 'active' ? 0 : p.packet.status === 'superseded' ? 1 : 2);
  const sorted = [...packets].sort(
    (a, b) => rank(a) - rank(b) || Date.parse(b.packet.generated_at) - Date.parse(a.packet.generated_at) || b.mtimeMs - a.mtimeMs,
  );
  return sorted[0] ?? null;
}
