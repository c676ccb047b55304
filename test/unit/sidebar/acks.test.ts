import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ackFilePath, acksForRisks, foldPendingAcks, readAcks, readPacketAcks, riskKey, writeAck } from '../../../src/core/acks';
import { makeTempDir } from '../helpers/fixtures';

describe('risk acknowledgements sidecar', () => {
  it('records who/when next to the packet and reads it back', async () => {
    const dir = await makeTempDir();
    const w = await writeAck(dir, { risk_id: 'verify:a', by: 'ana', at: '2026-01-02T03:04:05Z' });
    assert.ok(w.ok);
    const r = await readAcks(dir);
    assert.ok(r.ok);
    assert.deepEqual(r.value.acks, [{ risk_id: 'verify:a', by: 'ana', at: '2026-01-02T03:04:05Z' }]);
    assert.equal(JSON.parse(await fs.readFile(ackFilePath(dir), 'utf8')).schema_version, 1);
  });

  it('keeps the first acknowledgement of a risk', async () => {
    const dir = await makeTempDir();
    await writeAck(dir, { risk_id: 'r', by: 'ana', at: '1' });
    await writeAck(dir, { risk_id: 'r', by: 'bo', at: '2' });
    const r = await readAcks(dir);
    assert.ok(r.ok);
    assert.deepEqual(r.value.acks.map((a) => a.by), ['ana']);
  });

  it('refuses a corrupt sidecar with a located message and does not overwrite it', async () => {
    const dir = await makeTempDir();
    await fs.writeFile(path.join(dir, 'acks.json'), '{"schema_version": 1, "acks": [{"risk_id": 3}]}');
    const w = await writeAck(dir, { risk_id: 'r', by: 'ana', at: '1' });
    assert.equal(w.ok, false);
    if (!w.ok) {
      assert.equal(w.error.file, ackFilePath(dir));
      assert.match(w.error.message, /acks\.0\.risk_id/);
    }
    assert.match(await fs.readFile(path.join(dir, 'acks.json'), 'utf8'), /"risk_id": 3/);
  });

  it('reads a missing sidecar as no acknowledgements', async () => {
    const r = await readAcks(path.join(await makeTempDir(), 'nope'));
    assert.deepEqual(r, { ok: true, value: { schema_version: 1, acks: [] } });
  });

  it("applies the output dir's acknowledgements only until a packet exists, then moves them into it", async () => {
    const outputDir = await makeTempDir();
    const packetDir = path.join(outputDir, 'sess-1');
    await writeAck(outputDir, { risk_id: 'early', by: 'ana', at: '1' });
    await writeAck(outputDir, { risk_id: 'both', by: 'ana', at: '1' });
    await writeAck(packetDir, { risk_id: 'both', by: 'bo', at: '2' });
    assert.deepEqual((await readPacketAcks(outputDir, null)).acks.map((a) => a.risk_id).sort(), ['both', 'early']);
    // Another packet's sidecar is not merged with acknowledgements waiting for a new packet.
    assert.deepEqual((await readPacketAcks(outputDir, packetDir)).acks.map((a) => [a.risk_id, a.by]), [['both', 'bo']]);

    await foldPendingAcks(outputDir, packetDir);
    const folded = await readPacketAcks(outputDir, packetDir);
    assert.deepEqual(folded.acks.map((a) => [a.risk_id, a.by]).sort(), [['both', 'bo'], ['early', 'ana']], 'the packet\'s own record wins');
    assert.deepEqual((await readPacketAcks(outputDir, null)).acks, [], 'nothing waits any more');
  });

  it('reports a corrupt sidecar as a located diagnostic instead of failing', async () => {
    const outputDir = await makeTempDir();
    const packetDir = path.join(outputDir, 'sess-1');
    await fs.mkdir(packetDir, { recursive: true });
    await fs.writeFile(ackFilePath(packetDir), '{ not json');
    const r = await readPacketAcks(outputDir, packetDir);
    assert.deepEqual(r.acks, []);
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]?.file, ackFilePath(packetDir));
  });

  it('reports bad JSON in the sidecar without quoting the file', async () => {
    const dir = await makeTempDir();
    await fs.writeFile(path.join(dir, 'acks.json'), `{\n  "schema_version": 1,\n  "acks": [tok-${'a1b2c3d4'.repeat(4)}]\n}`);
    const r = await readPacketAcks(dir, dir);
    assert.equal(r.diagnostics.length, 1);
    assert.match(r.diagnostics[0]?.message ?? '', /^not valid JSON \(/);
    assert.ok(!r.diagnostics[0]?.message.includes('a1b2'), r.diagnostics[0]?.message);
  });

  it('keeps an acknowledgement of a risk that is still open unchanged, whatever happened to its packet', async () => {
    const outputDir = await makeTempDir();
    const archived = path.join(outputDir, 'sess-1');
    const next = path.join(outputDir, 'sess-1-b');
    await fs.mkdir(archived, { recursive: true });
    await fs.mkdir(next, { recursive: true });
    const risk = { id: 'verify:acceptance.failed', severity: 'block' as const, detail: 'exit 1 on pytest tests/test_refund.py' };
    await writeAck(archived, { risk_id: risk.id, risk_key: riskKey(risk), by: 'ana', at: '2026-01-01T00:00:00Z' });
    // The packet it was made in is archived: no active packet, the live risk is the same.
    assert.deepEqual((await acksForRisks(outputDir, null, [risk])).acks.map((a) => [a.risk_id, a.by]), [[risk.id, 'ana']]);
    // A newer packet carries the same risk: still acknowledged, in its prompt too.
    assert.deepEqual((await acksForRisks(outputDir, next, [risk])).acks.map((a) => a.by), ['ana']);
    // The risk changed (other text, or other severity): a new risk, not acknowledged.
    assert.deepEqual((await acksForRisks(outputDir, null, [{ ...risk, detail: 'exit 2 on pytest tests/test_refund.py' }])).acks, []);
    assert.deepEqual((await acksForRisks(outputDir, null, [{ ...risk, severity: 'warn' }])).acks, []);
    // Gone: nothing to acknowledge.
    assert.deepEqual((await acksForRisks(outputDir, null, [])).acks, []);
  });

  it('applies an older acknowledgement without a key only to its own packet, by id', async () => {
    const outputDir = await makeTempDir();
    const own = path.join(outputDir, 'sess-1');
    const other = path.join(outputDir, 'sess-0');
    await fs.mkdir(own, { recursive: true });
    await fs.mkdir(other, { recursive: true });
    await writeAck(own, { risk_id: 'blocker:1', by: 'ana', at: '1' });
    await writeAck(other, { risk_id: 'review:score', by: 'bo', at: '2' });
    const risks = [
      { id: 'blocker:1', severity: 'block' as const, detail: 'a' },
      { id: 'review:score', severity: 'warn' as const, detail: 'b' },
    ];
    assert.deepEqual((await acksForRisks(outputDir, own, risks)).acks.map((a) => [a.risk_id, a.by]), [['blocker:1', 'ana']]);
    // An own keyed ack of an earlier version of the risk no longer applies.
    await writeAck(own, { risk_id: 'review:score', risk_key: riskKey({ ...risks[1]!, detail: 'old' }), by: 'cy', at: '3' });
    assert.deepEqual((await acksForRisks(outputDir, own, risks)).acks.map((a) => a.risk_id), ['blocker:1']);
    // Acknowledging the changed risk records it anew, next to the old record.
    await writeAck(own, { risk_id: 'review:score', risk_key: riskKey(risks[1]!), by: 'dee', at: '4' });
    assert.deepEqual((await acksForRisks(outputDir, own, risks)).acks.map((a) => [a.risk_id, a.by]), [['blocker:1', 'ana'], ['review:score', 'dee']]);
  });
});
