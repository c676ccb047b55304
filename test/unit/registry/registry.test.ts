import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PacketSchema, type Packet } from '../../../src/core/packet/schema';
import { rewritePacket, archivePacket, listPackets, supersedeOthers, activePacketFor } from '../../../src/core/registry/registry';
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
