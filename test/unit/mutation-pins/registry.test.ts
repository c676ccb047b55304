import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Packet } from '../../../src/core/packet/schema';
import { activePacketFor, archivePacket, latestPacketFor, listPackets, packetKey, rewritePacket, supersedeOthers } from '../../../src/core/registry/registry';
import type { StoredPacket } from '../../../src/core/workflow/readPackets';
import { makeTempDir } from '../helpers/fixtures';
import { buildTestPacket } from '../helpers/packetBuilder';

async function store(out: string, over: Partial<Packet>, dirName?: string): Promise<void> {
  const p = buildTestPacket(over);
  await rewritePacket(path.join(out, dirName ?? p.packet_id), p, {});
}
const stored = (over: Partial<Packet>, mtimeMs = 0): StoredPacket => ({ packet: buildTestPacket(over), dir: `/o/${over.packet_id}`, mtimeMs } as StoredPacket);
const ids = (ps: readonly StoredPacket[]) => ps.map((p) => p.packet.packet_id);

describe('packet registry: keys, order, supersede, archive', () => {
  it('keys packets by branch and topic, naming a missing branch', () => {
    assert.equal(packetKey({ branch: 'main', topic: 'T-1' }), 'main · T-1');
    assert.equal(packetKey({ branch: null, topic: 'T-1' }), '(no branch) · T-1');
  });

  it('groups by key (the group with the newest active packet first), then status, then newest', async () => {
    const out = await makeTempDir('reg-pins-');
    await store(out, { packet_id: 'a-old', topic: 'A', status: 'superseded', generated_at: '2026-01-01T00:00:00.000Z' });
    await store(out, { packet_id: 'a-arch', topic: 'A', status: 'archived', generated_at: '2026-01-09T00:00:00.000Z' });
    await store(out, { packet_id: 'a-new', topic: 'A', generated_at: '2026-01-02T00:00:00.000Z' });
    await store(out, { packet_id: 'b-new', topic: 'B', generated_at: '2026-01-03T00:00:00.000Z' });
    await store(out, { packet_id: 'b-old', topic: 'B', status: 'superseded', generated_at: '2026-01-01T00:00:00.000Z' });
    await store(out, { packet_id: 'b-older', topic: 'B', status: 'superseded', generated_at: '2025-12-01T00:00:00.000Z' });
    const { packets, diagnostics } = await listPackets(out);
    assert.deepEqual(ids(packets), ['b-new', 'b-old', 'b-older', 'a-new', 'a-old', 'a-arch']);
    assert.deepEqual(diagnostics, []);
  });

  it('orders packets generated at the same time by the last written, then by id', async () => {
    const out = await makeTempDir('reg-pins-');
    for (const id of ['c', 'a', 'b', 'd']) await store(out, { packet_id: id, topic: id, generated_at: '2026-01-01T00:00:00.000Z' });
    const at = (id: string, seconds: number) => fs.utimes(path.join(out, id, 'handoff.json'), seconds, seconds);
    await Promise.all([at('a', 1000), at('b', 1000), at('c', 1000), at('d', 2000)]);
    const { packets } = await listPackets(out);
    assert.deepEqual(ids(packets), ['d', 'a', 'b', 'c']);
  });

  it('the active packet for a key is the first active one listed; none when none is active', () => {
    const list = [stored({ packet_id: 's', status: 'superseded' }), stored({ packet_id: 'x', topic: 'T-2' }), stored({ packet_id: 'a1' }), stored({ packet_id: 'a2' })];
    assert.equal(activePacketFor(list, 'main', 'T-1')?.packet.packet_id, 'a1');
    assert.equal(activePacketFor(list, 'dev', 'T-1'), null);
    assert.equal(activePacketFor([list[0]!], 'main', 'T-1'), null);
  });

  it('the latest packet for a key prefers the active one, else the first listed, never an archived one', () => {
    const sup = stored({ packet_id: 's1', status: 'superseded' });
    const arch = stored({ packet_id: 'ar', status: 'archived' });
    const act = stored({ packet_id: 'ac' });
    assert.equal(latestPacketFor([arch, sup, act], 'main', 'T-1')?.packet.packet_id, 'ac');
    assert.equal(latestPacketFor([arch, sup, stored({ packet_id: 's2', status: 'superseded' })], 'main', 'T-1')?.packet.packet_id, 's1');
    assert.equal(latestPacketFor([arch], 'main', 'T-1'), null);
    assert.equal(latestPacketFor([act], 'main', 'T-2'), null);
  });

  it('supersedes only active packets of the same key, never the new one itself', async () => {
    const out = await makeTempDir('reg-pins-');
    await store(out, { packet_id: 'cur' });
    await store(out, { packet_id: 'old1' });
    await store(out, { packet_id: 'sup', status: 'superseded', superseded_by: 'x' });
    await store(out, { packet_id: 'other', branch: 'dev' });
    const done = await supersedeOthers(out, buildTestPacket({ packet_id: 'cur' }));
    assert.deepEqual(done, ['old1']);
    const { packets } = await listPackets(out);
    const status = Object.fromEntries(packets.map((p) => [p.packet.packet_id, [p.packet.status, p.packet.superseded_by]]));
    assert.deepEqual(status, { cur: ['active', null], old1: ['superseded', 'cur'], sup: ['superseded', 'x'], other: ['active', null] });
  });

  it('archives by packet id or by folder name; an unknown id lists at most five known ids', async () => {
    const out = await makeTempDir('reg-pins-');
    await store(out, { packet_id: 'p-id' }, 'folder-name');
    const byDir = await archivePacket(out, 'folder-name');
    assert.ok(byDir.ok && !byDir.already && byDir.packet.packet_id === 'p-id');
    await store(out, { packet_id: 'q-id' }, 'other-folder');
    const byId = await archivePacket(out, 'q-id');
    assert.ok(byId.ok && !byId.already && byId.packet.packet_id === 'q-id');
    for (const id of ['b', 'c', 'd', 'e', 'f', 'g']) await store(out, { packet_id: id });
    const missing = await archivePacket(out, 'zzz');
    assert.ok(!missing.ok);
    assert.equal(missing.reason.match(/known: (.*)\)/)?.[1]?.split(', ').length, 5);
    const empty = await makeTempDir('reg-pins-');
    const none = await archivePacket(empty, 'zzz');
    assert.deepEqual(none, { ok: false, reason: `No packet zzz in ${empty}.` });
    await fs.rm(empty, { recursive: true });
  });
});
