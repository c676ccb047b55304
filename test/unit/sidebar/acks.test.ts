import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ackFilePath, foldPendingAcks, readAcks, readPacketAcks, writeAck } from '../../../src/core/acks';
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
});
