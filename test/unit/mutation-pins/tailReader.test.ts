import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { LineParser } from '../../../src/core/context/tailReader';
import { TailReader } from '../../../src/core/context/tailReader';
import type { ContextResult } from '../../../src/core/context/types';
import { makeTempDir } from '../helpers/fixtures';

/** A parser that records the lines applied; `"d"` lines are decisive; the head's first 10 characters are kept. */
interface S { lines: string[]; head?: string }
function parser(withHead = false): LineParser<S> {
  return {
    initial: () => ({ lines: [] }),
    decisive: (line) => line.includes('"d"'),
    apply: (s, line) => ({ ...s, lines: [...s.lines, (JSON.parse(line) as { n: number }).n.toString()] }),
    ...(withHead ? { head: (s: S, head: string) => ({ ...s, head: head.slice(0, 10) }) } : {}),
    result: (s, file): ContextResult => ({ known: false, reason: `${s.head ? `${s.head}|` : ''}${s.lines.join(',')}`, file }),
  };
}
const line = (n: number, decisive = false, pad = 0) => `${JSON.stringify({ n, ...(decisive ? { d: true } : {}), ...(pad ? { pad: 'x'.repeat(pad) } : {}) })}\n`;
const reasonOf = (r: ContextResult) => (r.known ? assert.fail('known') : r.reason);
async function file(text: string): Promise<string> {
  const f = path.join(await makeTempDir('tail-pins-'), 'log.jsonl');
  await fs.writeFile(f, text);
  return f;
}

describe('the tail reader: read a huge log from its end, then only what was appended', () => {
  it('applies the lines from the newest decisive one on, in order, reading only the tail', async () => {
    const body = Array.from({ length: 200 }, (_, i) => line(i, i === 150, 200)).join('');
    const f = await file(body);
    const r = new TailReader(f, parser(), { chunkSize: 1024 });
    assert.equal(reasonOf(await r.read()), Array.from({ length: 50 }, (_, i) => String(150 + i)).join(','));
    assert.equal(r.stats.mode, 'initial');
    assert.equal(r.stats.restarted, false);
    assert.ok(r.stats.bytesRead < body.length / 2, `read ${r.stats.bytesRead} of ${body.length}`);
    assert.equal(r.totalBytesRead, r.stats.bytesRead);
  });

  it('without a decisive line applies everything, even a single line', async () => {
    assert.equal(reasonOf(await new TailReader(await file(line(1) + line(2) + line(3)), parser(), { chunkSize: 8 }).read()), '1,2,3');
    assert.equal(reasonOf(await new TailReader(await file(line(7)), parser()).read()), '7');
    assert.equal(reasonOf(await new TailReader(await file(line(1, true) + line(2)), parser(), { chunkSize: 4 }).read()), '1,2');
  });

  it('reads only appended bytes next time, nothing when the file is unchanged', async () => {
    const f = await file(line(1) + line(2, true));
    const r = new TailReader(f, parser(), { chunkSize: 16 });
    await r.read();
    const first = r.totalBytesRead;
    assert.equal(reasonOf(await r.read()), '2');
    assert.deepEqual(r.stats, { bytesRead: 0, mode: 'unchanged', restarted: false });
    await fs.appendFile(f, line(3) + line(4));
    assert.equal(reasonOf(await r.read()), '2,3,4');
    assert.equal(r.stats.mode, 'append');
    assert.ok(r.stats.bytesRead <= (line(3) + line(4)).length + (line(1) + line(2, true)).length);
    assert.equal(r.totalBytesRead, first + r.stats.bytesRead);
  });

  it('keeps a last line without newline for later, applying it meanwhile only when it is complete JSON', async () => {
    const f = await file(`${line(1)}{"n": 2`);
    const r = new TailReader(f, parser());
    assert.equal(reasonOf(await r.read()), '1');
    await fs.appendFile(f, '}');
    assert.equal(reasonOf(await r.read()), '1,2');
    await fs.appendFile(f, `\n${line(3)}`);
    assert.equal(reasonOf(await r.read()), '1,2,3');
    const lone = await file('{"n": 9}');
    assert.equal(reasonOf(await new TailReader(lone, parser()).read()), '9');
  });

  it('starts over when the file shrank, was replaced, or its head changed', async () => {
    const f = await file(line(1) + line(2) + line(3));
    const r = new TailReader(f, parser(true));
    assert.equal(reasonOf(await r.read()), '{"n":1}\n{"|1,2,3');
    await fs.writeFile(f, line(5));
    assert.equal(reasonOf(await r.read()), '{"n":5}\n|5');
    assert.equal(r.stats.restarted, true);
    assert.equal(r.stats.mode, 'initial');
    await fs.writeFile(f, line(6) + line(7));
    assert.equal(reasonOf(await r.read()), '{"n":6}\n{"|6,7');
    assert.equal(r.stats.restarted, true);
    const other = `${f}.new`;
    await fs.writeFile(other, line(6) + line(7) + line(8));
    await fs.rename(other, f);
    assert.equal(reasonOf(await r.read()), '{"n":6}\n{"|6,7,8');
    assert.equal(r.stats.restarted, true);
  });

  it('a missing file is unknown with the error code, and read from scratch once it appears', async () => {
    const f = path.join(await makeTempDir('tail-pins-'), 'later.jsonl');
    const r = new TailReader(f, parser());
    const missing = await r.read();
    assert.equal(reasonOf(missing), `cannot read ${f}: ENOENT`);
    assert.deepEqual(r.stats, { bytesRead: 0, mode: 'missing', restarted: false });
    await fs.writeFile(f, line(1));
    assert.equal(reasonOf(await r.read()), '1');
    assert.equal(r.stats.mode, 'initial');
  });

  it('gives up scanning back after maxScanBytes and says how much it searched', async () => {
    const body = line(0, true) + Array.from({ length: 400 }, (_, i) => line(i + 1, false, 30)).join('');
    const f = await file(body);
    const r = new TailReader(f, parser(), { chunkSize: 256, maxScanBytes: 2 * 1024 * 1024 });
    const full = reasonOf(await r.read());
    assert.ok(full.startsWith('0,1,2') && !full.includes('searched'));
    const capped = new TailReader(f, parser(), { chunkSize: 256, maxScanBytes: 1024 });
    const text = reasonOf(await capped.read());
    assert.ok(text.endsWith(' (only the last 0 MiB were searched)'), text);
    assert.ok(!text.startsWith('0,'), text);
    assert.ok(capped.stats.bytesRead < body.length);
  });
});
