import * as path from 'node:path';
import type { Diagnostic } from '../diagnostics';
import { atomicWrite } from '../fsx';
import { realInside } from '../ownLog';
import type { Packet } from '../packet/schema';
import { PACKET_JSON, PACKET_MD, renderPacketFiles } from '../packet/write';
import { readPackets, type PacketSummary, type StoredPacket } from '../workflow/readPackets';
import { withLock, type LockOptions } from './lock';
import { isOwnPacket, isVouched, packetHash, recordOwnPacket, vouch } from './ownership';

const STATUS_RANK: Record<Packet['status'], number> = { active: 0, superseded: 1, archived: 2 };

/** One active packet per branch + topic: this is the key. */
export function packetKey(p: Pick<Packet, 'branch' | 'topic'>): string {
  return `${p.branch ?? '(no branch)'} · ${p.topic}`;
}

/**
 * Every packet in the output dir, grouped by branch + topic (the group with the newest packet
 * first); inside a group the active packet first, then superseded, then archived, newest first.
 * Unreadable packets come back as diagnostics.
 */
export async function listPackets(outputDir: string): Promise<{ packets: StoredPacket[]; diagnostics: Diagnostic[] }> {
  const { packets, diagnostics } = await readPackets(outputDir);
  return { packets: sortPackets(packets), diagnostics };
}

/** Packets in list order (see `listPackets`). */
export function sortPackets(packets: readonly StoredPacket[]): StoredPacket[] {
  const newer = (a: StoredPacket, b: StoredPacket): number =>
    b.packet.generated_at.localeCompare(a.packet.generated_at) || b.mtimeMs - a.mtimeMs || a.packet.packet_id.localeCompare(b.packet.packet_id);
  const groupOrder = new Map<string, number>();
  [...packets].sort((a, b) => STATUS_RANK[a.packet.status] - STATUS_RANK[b.packet.status] || newer(a, b)).forEach((p) => {
    const key = packetKey(p.packet);
    if (!groupOrder.has(key)) groupOrder.set(key, groupOrder.size);
  });
  return [...packets].sort(
    (a, b) =>
      (groupOrder.get(packetKey(a.packet)) ?? 0) - (groupOrder.get(packetKey(b.packet)) ?? 0) ||
      STATUS_RANK[a.packet.status] - STATUS_RANK[b.packet.status] ||
      newer(a, b),
  );
}

/**
 * Only the packets a one-line view needs, each read in full: the active one for `branch` + `topic`, the
 * newest of an earlier session there (not `sessionId`'s) and the newest overall. The others are read
 * for their key and age only (no schema check, no hash), so thousands of packet folders cost little.
 * A chosen packet that fails the full read is reported and the next in line is chosen instead.
 */
export async function listChosenPackets(
  outputDir: string,
  summaries: readonly PacketSummary[],
  branch: string | null,
  topic: string,
  sessionId: string,
): Promise<{ packets: StoredPacket[]; diagnostics: Diagnostic[] }> {
  const key = packetKey({ branch, topic });
  const newer = (a: PacketSummary, b: PacketSummary): number => b.generated_at.localeCompare(a.generated_at) || b.mtimeMs - a.mtimeMs || a.packet_id.localeCompare(b.packet_id);
  let left = [...summaries];
  const packets: StoredPacket[] = [];
  const diagnostics: Diagnostic[] = [];
  for (let round = 0; round < 8 && left.length; round++) {
    const mine = left.filter((s) => packetKey(s) === key).sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || newer(a, b));
    const earlier = mine.filter((s) => s.session_id !== sessionId && s.status !== 'archived');
    const overall = [...left].sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || Date.parse(b.generated_at) - Date.parse(a.generated_at) || b.mtimeMs - a.mtimeMs);
    const names = [...new Set([mine.find((s) => s.status === 'active'), earlier[0], overall[0]].filter((s): s is PacketSummary => !!s).map((s) => s.name))];
    const read = await readPackets(outputDir, names);
    packets.push(...read.packets);
    diagnostics.push(...read.diagnostics);
    if (read.packets.length === names.length) break;
    // One failed its full read: choose again among the rest.
    const done = new Set(names);
    left = left.filter((s) => !done.has(s.name));
  }
  return { packets: sortPackets(packets), diagnostics };
}

/** The active packet for a branch + topic, if there is one (the newest, should there be several). */
export function activePacketFor(packets: readonly StoredPacket[], branch: string | null, topic: string): StoredPacket | null {
  const key = packetKey({ branch, topic });
  return packets.find((p) => p.packet.status === 'active' && packetKey(p.packet) === key) ?? null;
}

/** The newest packet (any status) for a branch + topic: the previous session of this line of work. */
export function latestPacketFor(packets: readonly StoredPacket[], branch: string | null, topic: string): StoredPacket | null {
  const key = packetKey({ branch, topic });
  const same = packets.filter((p) => packetKey(p.packet) === key && p.packet.status !== 'archived');
  return same.find((p) => p.packet.status === 'active') ?? same[0] ?? null;
}

/**
 * Rewrites a stored packet's two files atomically (markdown first, the JSON — the truth — last). The
 * packet keeps its origin: the new bytes are recorded as written here only when the bytes they replace
 * were (`was`, the sha256 of the `handoff.json` read). Superseding or archiving a packet from elsewhere
 * never makes it ours; only an explicit trust does (`trustPacket`).
 */
export async function rewritePacket(dir: string, packet: Packet, was: { sha256?: string | null }): Promise<void> {
  if (!(await realInside(dir, path.dirname(dir)))) throw new Error(`${dir} is a symbolic link that leads outside ${path.dirname(dir)}; not rewritten`);
  const owned = !!was.sha256 && (await isOwnPacket(dir, was.sha256));
  const trusted = owned && (await isVouched(dir, 'trust', was.sha256 as string));
  const { json, md } = renderPacketFiles(packet);
  await atomicWrite(path.join(dir, PACKET_MD), md, { root: path.dirname(dir) });
  await atomicWrite(path.join(dir, PACKET_JSON), json, { root: path.dirname(dir) });
  if (owned) await recordOwnPacket(dir, json);
  if (trusted) await vouch(dir, 'trust', packetHash(json));
}

/**
 * Marks every other active packet of the new packet's branch + topic `superseded`, pointing at it.
 * Call under the output dir's lock. Returns the ids superseded.
 */
export async function supersedeOthers(outputDir: string, current: Packet): Promise<string[]> {
  const { packets } = await readPackets(outputDir);
  const key = packetKey(current);
  const done: string[] = [];
  for (const p of packets) {
    if (p.packet.status !== 'active' || p.packet.packet_id === current.packet_id || packetKey(p.packet) !== key) continue;
    await rewritePacket(p.dir, { ...p.packet, status: 'superseded', superseded_by: current.packet_id }, p);
    done.push(p.packet.packet_id);
  }
  return done;
}

export type ArchiveResult = { ok: true; packet: Packet; already: boolean } | { ok: false; reason: string };

/** Archives a packet by id (status `archived`; nothing is deleted), under the output dir's lock. */
export async function archivePacket(outputDir: string, id: string, lock?: LockOptions): Promise<ArchiveResult> {
  return withLock(
    outputDir,
    async () => {
      const { packets } = await readPackets(outputDir);
      const found = packets.find((p) => p.packet.packet_id === id || path.basename(p.dir) === id);
      if (!found) {
        const known = packets.map((p) => p.packet.packet_id).slice(0, 5).join(', ');
        return { ok: false, reason: `No packet ${id} in ${outputDir}${known ? ` (known: ${known})` : ''}.` };
      }
      if (found.packet.status === 'archived') return { ok: true, packet: found.packet, already: true };
      const packet: Packet = { ...found.packet, status: 'archived' };
      await rewritePacket(found.dir, packet, found);
      return { ok: true, packet, already: false };
    },
    lock,
  );
}
