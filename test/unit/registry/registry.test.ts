import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PacketSchema, type Packet } from '../../../src/core/packet/schema';
import { files } from '../../../src/core/fsx';
import { rewritePacket, archivePacket, listChosenPackets, listPackets, supersedeOthers, activePacketFor, latestPacketFor } from '../../../src/core/registry/registry';
import { newestPacket, readPacketSummaries } from '../../../src/core/workflow/readPackets';
import { assessFreshness } from '../../../src/core/registry/freshness';
import { buildTestPacket } from '../helpers/packetBuilder';

async function store(outputDir: string, p: Packet): Promise<void> {
  await rewritePacket(path.join(outputDir, p.packet_id), p, {});
}

async function readBack(outputDir: string, id: string): Promise<{ packet: Packet; md: string }> {
  const json = await fs.readFile(path.join(outputDir, id, 'handoff.json'), 'utf8');
  return { packet: PacketSchema.parse(JSON.parse(json)), md: await fs.readFile(path.join(outputDir, id, 'handoff.md'), 'utf8') };
}

describe('packet registry', () => {
  let out: string;
  beforeEach(async () => {
    out = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-reg-'));
  });

  it('supersedes only the active packet of the same branch + topic, rewriting json and md', async () => {
    await store(out, buildTestPacket({ packet_id: 'old', generated_at: '2026-01-01T00:00:00.000Z' }));
    await store(out, buildTestPacket({ packet_id: 'other-topic', topic: 'T-2' }));
    await store(out, buildTestPacket({ packet_id: 'other-branch', branch: 'feat/x' }));
    const fresh = buildTestPacket({ packet_id: 'new', generated_at: '2026-01-02T00:00:00.000Z' });
    await store(out, fresh);
    assert.deepEqual(await supersedeOthers(out, fresh), ['old']);
    const old = await readBack(out, 'old');
    assert.equal(old.packet.status, 'superseded');
    assert.equal(old.packet.superseded_by, 'new');
    assert.match(old.md, /superseded/i);
    assert.equal((await readBack(out, 'other-topic')).packet.status, 'active');
    assert.equal((await readBack(out, 'other-branch')).packet.status, 'active');
    const { packets } = await listPackets(out);
    assert.equal(activePacketFor(packets, 'main', 'T-1')?.packet.packet_id, 'new');
  });

  it('archives by id without deleting anything, and says so for an unknown id', async () => {
    await store(out, buildTestPacket({ packet_id: 'a1' }));
    const r = await archivePacket(out, 'a1');
    assert.ok(r.ok && !r.already && r.packet.status === 'archived');
    assert.equal((await readBack(out, 'a1')).packet.status, 'archived');
    const again = await archivePacket(out, 'a1');
    assert.ok(again.ok && again.already);
    const missing = await archivePacket(out, 'nope');
    assert.ok(!missing.ok);
    assert.match(missing.reason, /No packet nope.*known: a1/);
    assert.deepEqual((await fs.readdir(out)).sort(), ['a1']);
  });

  it('lists active first per key, then superseded, then archived; reports unreadable packets', async () => {
    await store(out, buildTestPacket({ packet_id: 'p1', status: 'archived', generated_at: '2026-01-01T00:00:00.000Z' }));
    await store(out, buildTestPacket({ packet_id: 'p2', status: 'superseded', superseded_by: 'p3', generated_at: '2026-01-02T00:00:00.000Z' }));
    await store(out, buildTestPacket({ packet_id: 'p3', generated_at: '2026-01-03T00:00:00.000Z' }));
    await store(out, buildTestPacket({ packet_id: 'q1', topic: 'T-9', generated_at: '2026-01-05T00:00:00.000Z' }));
    await fs.mkdir(path.join(out, 'broken'));
    await fs.writeFile(path.join(out, 'broken', 'handoff.json'), '{"schema_version": 1,');
    const { packets, diagnostics } = await listPackets(out);
    assert.deepEqual(packets.map((p) => p.packet.packet_id), ['q1', 'p3', 'p2', 'p1']);
    assert.equal(diagnostics.length, 1);
    assert.match(diagnostics[0]?.file ?? '', /broken/);
  });

  it('reads each listed packet folder with one open and no path resolved; a folder or packet that is a link out is left out', async function () {
    if (process.platform === 'win32') this.skip();
    for (let i = 0; i < 20; i++) await store(out, buildTestPacket({ packet_id: `p${i}`, session_id: `s${i}`, status: i ? 'superseded' : 'active' }));
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-reg-out-'));
    await store(elsewhere, buildTestPacket({ packet_id: 'planted', generated_at: '2099-01-01T00:00:00.000Z' }));
    await fs.symlink(path.join(elsewhere, 'planted'), path.join(out, 'planted'));
    await fs.mkdir(path.join(out, 'linked'));
    await fs.symlink(path.join(elsewhere, 'planted', 'handoff.json'), path.join(out, 'linked', 'handoff.json'));
    await fs.mkdir(path.join(out, 'inside'));
    await fs.symlink(path.join(out, 'p3', 'handoff.json'), path.join(out, 'inside', 'handoff.json'));
    const access = files();
    const saved = { lstat: access.lstat, realpath: access.realpath, open: access.open };
    const calls = new Map<string, number>();
    const count = (op: string): void => void calls.set(op, (calls.get(op) ?? 0) + 1);
    access.lstat = (f) => (count('lstat'), saved.lstat(f));
    access.realpath = (f) => (count('realpath'), saved.realpath(f));
    access.open = (f, flags, mode) => (count('open'), saved.open(f, flags, mode));
    let summaries;
    try {
      summaries = await readPacketSummaries(out);
    } finally {
      Object.assign(access, saved);
    }
    // The two links in folders take the full check (a second open for the one inside); the others one open.
    assert.deepEqual(Object.fromEntries(calls), { open: 23, lstat: 2, realpath: 4 });
    assert.deepEqual(summaries.map((s) => s.name).sort(), ['inside', ...Array.from({ length: 20 }, (_, i) => `p${i}`)].sort());
  });

  it('chooses from the summaries the packets a full read would: the active one, the previous session\'s, the newest', async () => {
    // A shuffled mix of branches, topics, statuses, sessions and ages, with write times out of step with them.
    let seed = 7;
    const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const statuses = ['active', 'superseded', 'archived'] as const;
    for (let round = 0; round < 6; round++) {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-reg-'));
      for (let i = 0; i < 30; i++) {
        const p = buildTestPacket({
          packet_id: `p${i}`, session_id: `s${rand(6)}`, branch: ['main', 'feat/x', null][rand(3)] ?? null, topic: `T-${rand(2)}`,
          status: statuses[rand(3)], generated_at: new Date(Date.UTC(2026, 0, 1 + rand(20), rand(24))).toISOString(),
        });
        await store(dir, p);
        const at = new Date(Date.UTC(2026, 1, 1 + rand(20)));
        await fs.utimes(path.join(dir, p.packet_id, 'handoff.json'), at, at);
      }
      const all = await listPackets(dir);
      const summaries = await readPacketSummaries(dir);
      for (const branch of ['main', 'feat/x', null]) {
        for (const topic of ['T-0', 'T-1']) {
          const chosen = await listChosenPackets(dir, summaries, branch, topic, 's0');
          const id = (p: { packet: { packet_id: string } } | null | undefined): string | undefined => p?.packet.packet_id;
          const others = (ps: typeof all.packets) => ps.filter((p) => p.packet.session_id !== 's0');
          assert.equal(id(activePacketFor(chosen.packets, branch, topic)), id(activePacketFor(all.packets, branch, topic)), `active ${branch} ${topic}`);
          assert.equal(id(latestPacketFor(others(chosen.packets), branch, topic)), id(latestPacketFor(others(all.packets), branch, topic)), `previous ${branch} ${topic}`);
          assert.equal(id(newestPacket(chosen.packets)), id(newestPacket(all.packets)), `newest ${branch} ${topic}`);
        }
      }
    }
  });
});

describe('assessFreshness', () => {
  const head = 'a'.repeat(40);
  const packet = buildTestPacket({ head_commit: head, branch: 'main', inputs: [{ file: 'agent_state.json', sha256: 'x1' }] });

  it('is fresh when HEAD, branch and inputs are unchanged', () => {
    const f = assessFreshness(packet, { facts: { head, branch: 'main' }, commitsSince: 0, inputs: [{ file: 'agent_state.json', sha256: 'x1' }] });
    assert.deepEqual(f, { stale: false, reasons: [] });
  });

  it('is stale with the commit count, a branch change and a changed or new input', () => {
    const f = assessFreshness(packet, {
      facts: { head: 'b'.repeat(40), branch: 'feat/y' },
      commitsSince: 2,
      inputs: [{ file: 'agent_state.json', sha256: 'x2' }, { file: 'feedback_record.jsonl', sha256: 'y' }],
    });
    assert.equal(f.stale, true);
    assert.equal(f.commitsBehind, 2);
    assert.match(f.reasons[0] ?? '', /HEAD moved 2 commits since the packet \(aaaaaaa → bbbbbbb\)/);
    assert.match(f.reasons[1] ?? '', /branch is feat\/y, but the packet was made on main/);
    assert.match(f.reasons[2] ?? '', /agent_state.json, feedback_record.jsonl \(new\)/);
  });

  it('without git compares inputs only', () => {
    const f = assessFreshness(packet, { facts: null, commitsSince: null, inputs: [] });
    assert.deepEqual(f.reasons, ['An input changed after the packet: agent_state.json (removed).']);
  });
});
