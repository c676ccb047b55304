import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ArrayElement } from '../../../src/core/session/jsonElements';
import { eachArrayElement } from '../../../src/core/session/jsonElements';
import { elementLines } from '../../../src/core/session/taskJson';
import { makeTempDir } from '../helpers/fixtures';

/** Values holding what a forward scan could stumble on: quotes, runs of backslashes, brackets, commas, non-ASCII. */
function trickyValues(n: number): unknown[] {
  const texts = ['plain', 'a "quoted" word', 'ends with a backslash \\', '\\"', '\\\\\\"x', '], {"not": [an element}', 'line\nbreak', 'ünïcödé ✓ 密码', '', ',,,'];
  return Array.from({ length: n }, (_, i) => (i % 11 === 5 ? texts[i % texts.length] : i % 13 === 7 ? [i, texts[i % texts.length]] : i % 17 === 3 ? i : { ts: i, say: i % 3 ? 'text' : 'command', text: `${texts[i % texts.length]} #${i}`, nested: { list: [i, [i, { k: texts[(i + 1) % texts.length] }]] } }));
}

async function elementsOf(bytes: Buffer | string, opts: { chunkBytes?: number; maxElementBytes?: number } = {}) {
  const dir = await makeTempDir('handoff-elements-');
  const file = path.join(dir, 'ui_messages.json');
  await fs.writeFile(file, bytes);
  const handle = await fs.open(file, 'r');
  const got: ArrayElement[] = [];
  try {
    const result = await eachArrayElement(handle, (e) => got.push({ ...e, bytes: Buffer.from(e.bytes) }), opts);
    return { ...result, got, file: await fs.readFile(file) };
  } finally {
    await handle.close();
  }
}

describe('a JSON array read forwards one element at a time', () => {
  for (const [name, indent] of [['compact', undefined], ['pretty-printed', 2]] as const) {
    for (const chunkBytes of [1, 7, 64, 1 << 20]) {
      it(`gives every element as a whole parse does, with its line, index and offset (${name}, ${chunkBytes}-byte reads)`, async () => {
        const all = trickyValues(120);
        const text = JSON.stringify(all, null, indent);
        const r = await elementsOf(text, { chunkBytes });
        assert.equal(r.ok, true);
        assert.deepEqual(r.got.map((e) => JSON.parse(e.bytes.toString('utf8')) as unknown), all);
        assert.deepEqual(r.got.map((e) => e.index), all.map((_, i) => i));
        assert.deepEqual(r.got.map((e) => e.line), elementLines(text));
        // Each element's bytes are the file's at its offset.
        for (const e of r.got) assert.ok(r.file.subarray(e.offset, e.offset + e.bytes.length).equals(e.bytes));
      });
    }
  }

  it('reads past a byte-order mark; an empty array gives nothing and is whole', async () => {
    const bom = await elementsOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"a":1}, 2]')]));
    assert.equal(bom.ok, true);
    assert.deepEqual(bom.got.map((e) => e.bytes.toString()), ['{"a":1}', '2']);
    const empty = await elementsOf(' [ ] \n');
    assert.deepEqual([empty.ok, empty.got.length], [true, 0]);
  });

  it('says when the file is not one whole array, after giving the elements before the fault', async () => {
    const cut = await elementsOf('[{"a":1},{"b":"2"},{"c":');
    assert.equal(cut.ok, false);
    assert.deepEqual(cut.got.map((e) => e.bytes.toString()), ['{"a":1}', '{"b":"2"}']);
    for (const bad of ['{"a":[1]}', '[1] [2]', '', 'x[1]']) assert.equal((await elementsOf(bad)).ok, false, bad);
  });

  it('passes over an element bigger than the bound, naming it, and gives the ones around it', async () => {
    const big = { text: 'x'.repeat(5000) };
    const text = JSON.stringify([{ a: 1 }, big, { b: 2 }]);
    const r = await elementsOf(text, { chunkBytes: 100, maxElementBytes: 1000 });
    assert.equal(r.ok, true);
    assert.deepEqual(r.got.map((e) => [e.index, e.bytes.toString()]), [[0, '{"a":1}'], [2, '{"b":2}']]);
    assert.deepEqual(r.oversized.map((o) => [o.index, o.line, o.bytes]), [[1, 1, JSON.stringify(big).length]]);
  });
});
