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

/**
 * The packet folders under the output dir, in name order ([] when it cannot be listed). Only real
 * folders: a link in the output dir is not listed, so a file in a listed folder lies in the output dir
 * unless it is a link itself (what `folderInRoot` lets the reads check with one open).
 */
async function packetFolders(outputDir: string): Promise<string[]> {
  try {
    return (await fs.readdir(outputDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

type ReadOne = { ok: true; packet: StoredPacket } | { ok: false; diagnostic: Diagnostic | null };

/** One folder's packet, checked against the schema; a diagnostic when it is unreadable (none when missing). */
async function readOne(outputDir: string, name: string, listed: boolean): Promise<ReadOne> {
  const file = path.join(outputDir, name, PACKET_JSON);
  // Packets are the tool's own files: one that is a FIFO or a symlink out of the output dir is
  // reported, never read (a missing one is just a folder without a packet).
  const read = await readRegular(file, { root: outputDir, folderInRoot: listed, maxBytes: MAX_OWN_FILE_BYTES });
  if (!read.ok) return { ok: false, diagnostic: read.refusal.kind !== 'missing' ? { file, message: read.refusal.message } : null };
  const text = read.bytes.toString('utf8');
  const parsed = parseJsonLocated(text);
  if (!parsed.ok) return { ok: false, diagnostic: { file, line: parsed.line, message: parsed.message } };
  const checked = PacketSchema.safeParse(stripControlDeep(parsed.value));
  if (!checked.success) {
    const z = zodMessage(checked.error, text);
    return { ok: false, diagnostic: { file, line: z.line, message: z.message } };
  }
  return { ok: true, packet: { dir: path.join(outputDir, name), packet: checked.data, mtimeMs: read.mtimeMs, sha256: packetHash(read.bytes) } };
}

/** Runs `work` over `items`, at most `limit` at a time, results in the items' order. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Every readable packet under the output dir (`names`: only those folders), plus a diagnostic for each unreadable one. */
export async function readPackets(outputDir: string, names?: readonly string[]): Promise<{ packets: StoredPacket[]; diagnostics: Diagnostic[] }> {
  const packets: StoredPacket[] = [];
  const diagnostics: Diagnostic[] = [];
  // Names the caller gives may be links; those listed here are folders.
  for (const r of await pooled(names ?? (await packetFolders(outputDir)), 8, (name) => readOne(outputDir, name, !names))) {
    if (r.ok) packets.push(r.packet);
    else if (r.diagnostic) diagnostics.push(r.diagnostic);
  }
  return { packets, diagnostics };
}

/** What choosing a packet needs of it (its key, status and age), read without the schema check. */
export interface PacketSummary {
  name: string;
  status: Packet['status'];
  branch: string | null;
  topic: string;
  session_id: string;
  packet_id: string;
  generated_at: string;
  mtimeMs: number;
}

/**
 * The summary of every packet folder, read in parallel without the schema check or the hash: enough to
 * choose the few packets a caller reads in full (`readPackets(outputDir, names)`, which checks them).
 * A folder whose packet cannot be read or lacks these fields is left out here; the full read reports it.
 */
export async function readPacketSummaries(outputDir: string): Promise<PacketSummary[]> {
  const one = async (name: string): Promise<PacketSummary | null> => {
    const read = await readRegular(path.join(outputDir, name, PACKET_JSON), { root: outputDir, folderInRoot: true, maxBytes: MAX_OWN_FILE_BYTES }).catch(() => null);
    if (!read?.ok) return null;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(read.bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
    const str = (x: unknown): x is string => typeof x === 'string';
    if (!v || typeof v !== 'object' || !str(v['topic']) || !str(v['session_id']) || !str(v['packet_id']) || !str(v['generated_at'])) return null;
    if (v['status'] !== 'active' && v['status'] !== 'superseded' && v['status'] !== 'archived') return null;
    if (v['branch'] !== null && !str(v['branch'])) return null;
    return { name, status: v['status'], branch: v['branch'] as string | null, topic: v['topic'], session_id: v['session_id'], packet_id: v['packet_id'], generated_at: v['generated_at'], mtimeMs: read.mtimeMs };
  };
  return (await pooled(await packetFolders(outputDir), 16, one)).filter((s): s is PacketSummary => s !== null);
}

/** The newest packet: active ones first, then by `generated_at`, then by write time. */
export function newestPacket(packets: StoredPacket[]): StoredPacket | null {
  const rank = (p: StoredPacket): number => (p.packet.status === 'active' ? 0 : p.packet.status === 'superseded' ? 1 : 2);
  const sorted = [...packets].sort(
    (a, b) => rank(a) - rank(b) || Date.parse(b.packet.generated_at) - Date.parse(a.packet.generated_at) || b.mtimeMs - a.mtimeMs,
  );
  return sorted[0] ?? null;
}
