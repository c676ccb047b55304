import * as assert from 'node:assert/strict';
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { LineParser } from '../../../src/core/context/tailReader';
import { TailReader } from '../../../src/core/context/tailReader';
import type { ContextResult } from '../../../src/core/context/types';
import { useBlockingFileAccess } from '../../../src/core/fsx';
import { makeTempDir } from '../helpers/fixtures';

const MiB = 1024 * 1024;

/**
 * A parser that records what the reader gives it: the lines applied (`n` of each), the skipped older
 * lines, and the head's first 10 characters. Lines with `"d"` are decisive.
 */
interface S { lines: string[]; older: string[]; head?: string }
function parser(opts: { head?: boolean; skipped?: boolean } = {}): LineParser<S> {
  const n = (line: string) => String((JSON.parse(line) as { n: number }).n);
  return {
    initial: () => ({ lines: [], older: [] }),
    decisive: (line) => line.includes('"d"'),
    apply: (s, line) => ({ ...s, lines: [...s.lines, n(line)] }),
    ...(opts.head ? { head: (s: S, head: string) => ({ ...s, head: head.slice(0, 10) }) } : {}),
    ...(opts.skipped ? { skipped: (s: S, line: string) => ({ ...s, older: [...s.older, n(line)] }) } : {}),
    result: (s, file): ContextResult => ({
      known: false,
      reason: `${s.head !== undefined ? `${s.head}|` : ''}${s.older.length ? `${s.older.join(',')}/` : ''}${s.lines.join(',')}`,
      file,
    }),
  };
}
const line = (n: number, decisive = false, pad = 0) => `${JSON.stringify({ n, ...(decisive ? { d: true } : {}), ...(pad ? { pad: 'x'.repeat(pad) } : {}) })}\n`;
/** A line of exactly `bytes` bytes before its newline. */
const sized = (n: number, bytes: number) => `${JSON.stringify({ n, pad: 'x'.repeat(bytes - JSON.stringify({ n, pad: '' }).length) })}\n`;
const reasonOf = (r: ContextResult) => (r.known ? assert.fail('known') : r.reason);
async function file(text: string): Promise<string> {
  const f = path.join(await makeTempDir('tail-refresh-'), 'log.jsonl');
  await fs.writeFile(f, text);
  return f;
}
/** Sets a file's times to a whole second, so a later write can restore exactly the same mtime. */
const setTime = (f: string, seconds: number) => fs.utimes(f, seconds, seconds);

for (const mode of ['asynchronous', 'blocking'] as const) describe(`the tail reader keeps up with its log (${mode} file access)`, () => {
  before(() => useBlockingFileAccess(mode === 'blocking'));
  after(() => useBlockingFileAccess(false));

  describe('noticing a change', () => {
    it('before its first read, a reader has read nothing and restarted nothing', async () => {
      const r = new TailReader(await file(line(1)), parser());
      assert.deepEqual(r.stats, { bytesRead: 0, mode: 'unchanged', restarted: false });
      assert.equal(r.totalBytesRead, 0);
    });

    it('sees an append even when the modification time did not move (coarse file-system clocks)', async () => {
      const f = await file(line(1));
      await setTime(f, 1_700_000_000);
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '1');
      await fs.appendFile(f, line(2));
      await setTime(f, 1_700_000_000);
      assert.equal(reasonOf(await r.read()), '1,2');
      assert.equal(r.stats.mode, 'append');
    });

    it('sees a file rewritten in place to the same size, by its time, and starts over', async () => {
      const f = await file(line(1) + line(2));
      await setTime(f, 1_700_000_000);
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '1,2');
      await fs.writeFile(f, line(3) + line(4));
      await setTime(f, 1_700_000_100);
      assert.equal(reasonOf(await r.read()), '3,4');
      assert.equal(r.stats.restarted, true);
    });

    it('sees a file replaced by another of the same size and time, by its inode, and starts over', async () => {
      const f = await file(line(1) + line(2));
      await setTime(f, 1_700_000_000);
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '1,2');
      const other = `${f}.new`;
      await fs.writeFile(other, line(5) + line(6));
      await setTime(other, 1_700_000_000);
      await fs.rename(other, f);
      assert.equal(reasonOf(await r.read()), '5,6');
      assert.equal(r.stats.restarted, true);
      assert.equal(r.stats.mode, 'initial');
    });

    it('a file only touched is checked, not read again from the start', async () => {
      const text = line(1, false, 400) + line(2);
      const f = await file(text);
      await setTime(f, 1_700_000_000);
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '1,2');
      // The first read went through the whole file, and counts every byte of it.
      assert.ok(r.stats.bytesRead >= text.length, `counted ${r.stats.bytesRead} of ${text.length}`);
      await setTime(f, 1_700_000_100);
      assert.equal(reasonOf(await r.read()), '1,2');
      assert.equal(r.stats.mode, 'append');
      assert.equal(r.stats.restarted, false);
      assert.ok(r.stats.bytesRead <= 256, `read ${r.stats.bytesRead} of ${text.length}`);
    });

    it('a file cut shorter in place, its head unchanged, is read again from the start', async () => {
      const f = await file(line(1, false, 400) + line(2) + line(3));
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '1,2,3');
      await fs.truncate(f, (line(1, false, 400) + line(2)).length);
      assert.equal(reasonOf(await r.read()), '1,2');
      assert.equal(r.stats.restarted, true);
    });

    it('a log empty at first is appended to, reading only the new bytes', async () => {
      const f = await file('');
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '');
      assert.equal(r.stats.mode, 'initial');
      assert.equal(reasonOf(await r.read()), '');
      assert.deepEqual(r.stats, { bytesRead: 0, mode: 'unchanged', restarted: false });
      await fs.appendFile(f, line(1) + line(2));
      assert.equal(reasonOf(await r.read()), '1,2');
      assert.deepEqual(r.stats, { bytesRead: (line(1) + line(2)).length, mode: 'append', restarted: false });
    });

    it('a log empty at first and then replaced is read from scratch, head included', async () => {
      const f = await file('');
      const r = new TailReader(f, parser({ head: true }));
      assert.equal(reasonOf(await r.read()), '|');
      const other = `${f}.new`;
      await fs.writeFile(other, line(7));
      await fs.rename(other, f);
      assert.equal(reasonOf(await r.read()), '{"n":7}\n|7');
      assert.equal(r.stats.restarted, true);
      assert.equal(r.stats.mode, 'initial');
    });

    it('a folder in place of the log is refused, saying so, and counts as missing', async () => {
      const dir = path.join(await makeTempDir('tail-refresh-'), 'log.jsonl');
      await fs.mkdir(dir);
      const r = new TailReader(dir, parser());
      assert.equal(reasonOf(await r.read()), `cannot read ${dir}: it is a folder, not a regular file; not read`);
      assert.deepEqual(r.stats, { bytesRead: 0, mode: 'missing', restarted: false });
    });

    it('a first line still being written at byte 0 is applied once it ends', async () => {
      const f = await file('{"n": 1');
      const r = new TailReader(f, parser());
      assert.equal(reasonOf(await r.read()), '');
      await fs.appendFile(f, '}\n');
      const done = await r.read();
      assert.equal(reasonOf(done), '1');
      assert.equal(done.warnings, undefined);
    });

    it('never leaves a file open, however often it reads', async function () {
      if (!existsSync('/proc/self/fd')) this.skip();
      const f = await file(line(0));
      const r = new TailReader(f, parser());
      await r.read();
      const before = readdirSync('/proc/self/fd').length;
      for (let i = 1; i <= 20; i++) {
        await fs.appendFile(f, line(i));
        await r.read();
      }
      const after = readdirSync('/proc/self/fd').length;
      assert.ok(after - before <= 2, `${after - before} more open files after 20 reads`);
    });
  });

  describe('lines too long and blank lines', () => {
    it('names the first three lines over the cap, counts the rest, and starts the list afresh after a restart', async () => {
      const long = (n: number) => line(n, false, 150);
      const parts = [line(0), long(1), line(2), long(3), long(4), line(5), long(6), long(7), line(8)];
      const f = await file(parts.join(''));
      const at = (i: number) => parts.slice(0, i).join('').length;
      const r = new TailReader(f, parser(), { maxLineBytes: 100 });
      const got = await r.read();
      assert.equal(reasonOf(got), '0,2,5,8');
      const tooLong = (i: number) => `${f}: line at byte ${at(i)} is 0.0 MiB, over the 0 MiB line limit; line too long, skipped`;
      assert.deepEqual(got.warnings, [tooLong(1), tooLong(3), tooLong(4), `${f}: 2 more lines too long, skipped`]);
      await fs.writeFile(f, line(9));
      const fresh = await r.read();
      assert.equal(reasonOf(fresh), '9');
      assert.equal(r.stats.restarted, true);
      assert.equal(fresh.warnings, undefined);
    });

    it('gives the size of a skipped line and of an unfinished long last line, wherever they start', async () => {
      const before = [0, 1, 2, 3].map((n) => line(n, false, 90_000)).join('');
      const skipped = line(4, false, 200_000);
      const text = `${before}${skipped}${line(5)}{"n":6,"pad":"${'y'.repeat(150_000)}`;
      const f = await file(text);
      const r = new TailReader(f, parser(), { maxLineBytes: 100_000 });
      const got = await r.read();
      assert.equal(reasonOf(got), '0,1,2,3,5');
      const last = (before + skipped + line(5)).length;
      assert.deepEqual(got.warnings, [
        `${f}: line at byte ${before.length} is 0.2 MiB, over the 0 MiB line limit; line too long, skipped`,
        `${f}: last line (from byte ${last}) is 0.1 MiB so far without an end, over the 0 MiB line limit; line too long, skipped`,
      ]);
    });

    it('blank and whitespace-only lines reach neither apply nor skipped', async () => {
      const text = `${line(1)}   \n\n${line(2)}\t\n${line(3, true)}\n \n${line(4)}`;
      const r = new TailReader(await file(text), parser({ skipped: true }));
      assert.equal(reasonOf(await r.read()), '1,2/3,4');
    });
  });

  describe('memory stays bounded on a huge tail', () => {
    it('holds up to 16 MiB of lines found on the way back, so they are read only once', async () => {
      const text = Array.from({ length: 16 }, (_, i) => sized(i, MiB)).join('');
      const r = new TailReader(await file(text), parser());
      assert.equal(reasonOf(await r.read()), Array.from({ length: 16 }, (_, i) => String(i)).join(','));
      assert.ok(r.stats.bytesRead < text.length + MiB, `read ${r.stats.bytesRead} for ${text.length}`);
    });

    it('beyond 16 MiB it reads the lines again from the decisive one instead of holding them', async () => {
      const after = Array.from({ length: 17 }, (_, i) => sized(i + 2, MiB)).join('');
      const text = line(0) + line(1, true) + after;
      const r = new TailReader(await file(text), parser());
      assert.equal(reasonOf(await r.read()), Array.from({ length: 18 }, (_, i) => String(i + 1)).join(','));
      assert.ok(r.stats.bytesRead > 1.5 * text.length, `read ${r.stats.bytesRead} for ${text.length}`);
    });
  });
});
