import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FileHandle } from '../../../src/core/fsx';
import { openRegular, useBlockingFileAccess } from '../../../src/core/fsx';
import type { BackItem, BackLine } from '../../../src/core/context/lineScan';
import { backwardLines, forwardLines, readAt } from '../../../src/core/context/lineScan';
import { makeTempDir } from '../helpers/fixtures';

const MiB = 1024 * 1024;

/** Opens `content` as a file the way the readers do, runs `fn`, closes the handle. */
async function withFile<T>(content: string | Buffer, fn: (handle: FileHandle, size: number) => Promise<T>): Promise<T> {
  const file = path.join(await makeTempDir('line-scan-'), 'log.jsonl');
  await fs.writeFile(file, content);
  const opened = await openRegular(file);
  if (!opened.ok) return assert.fail('cannot open the test file');
  try {
    return await fn(opened.file.handle, opened.file.size);
  } finally {
    await opened.file.handle.close();
  }
}

type Seen = { kind: 'line' | 'fragment'; start: number; end: number; text: string | null } | { kind: 'limit'; resumeAt: number };
const seen = (item: BackItem): Seen =>
  item.kind === 'limit' ? item : { kind: item.kind, start: item.start, end: item.end, text: item.bytes ? item.bytes.toString('latin1') : null };

/** Everything backwardLines gives over [lo, hi), and the size of each read. */
async function scanBack(
  handle: FileHandle,
  lo: number,
  hi: number,
  opts: { chunk: number; cap?: number; maxScan?: number; knownOverlongTo?: number },
): Promise<{ items: Seen[]; reads: number[] }> {
  const reads: number[] = [];
  const items: Seen[] = [];
  const gen = backwardLines(handle, lo, hi, {
    chunk: opts.chunk,
    cap: opts.cap ?? 1e9,
    maxScan: opts.maxScan ?? 1e9,
    knownOverlongTo: opts.knownOverlongTo ?? -1,
    onRead: (n) => reads.push(n),
  });
  for await (const item of gen) {
    items.push(seen(item));
    if (items.length > 10_000) assert.fail('the scan does not end');
  }
  return { items, reads };
}

/** The lines of `text[lo, hi)` as the contract states them: the part after the last newline, then each line, newest first. */
function expectedBack(text: string, lo: number, hi: number, cap = 1e9): Seen[] {
  const out: Seen[] = [];
  let end = hi;
  let first = true;
  for (let i = hi - 1; i >= lo - 1; i--) {
    if (i >= lo && text[i] !== '\n') continue;
    const start = i + 1;
    const body = text.slice(start, end);
    out.push({ kind: first ? 'fragment' : 'line', start, end, text: body.length > cap ? null : body });
    first = false;
    end = i;
  }
  return out;
}

const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

for (const mode of ['asynchronous', 'blocking'] as const) describe(`line scanning (${mode} file access)`, () => {
  before(() => useBlockingFileAccess(mode === 'blocking'));
  after(() => useBlockingFileAccess(false));

  describe('backwardLines: the lines of a range, newest first', () => {
    it('gives the part after the last newline, then every line with its byte range, whatever the chunk size', async () => {
      // Newlines at the very start, doubled, and at every possible chunk boundary.
      const text = '\nalpha\nbb\n\n\nccc\nd\ntail';
      await withFile(text, async (handle, size) => {
        for (let chunk = 1; chunk <= 12; chunk++) {
          const { items, reads } = await scanBack(handle, 0, size, { chunk });
          assert.deepEqual(items, expectedBack(text, 0, size), `chunk ${chunk}`);
          assert.equal(sum(reads), size, `chunk ${chunk}: every byte read once`);
        }
      });
    });

    it('scans only [lo, hi): nothing before lo is read or given', async () => {
      const text = 'aa\nbb\ncc\ndd\nee';
      await withFile(text, async (handle) => {
        for (let chunk = 1; chunk <= 7; chunk++) {
          const { items, reads } = await scanBack(handle, 3, 12, { chunk });
          assert.deepEqual(items, expectedBack(text, 3, 12), `chunk ${chunk}`);
          assert.equal(sum(reads), 9);
        }
      });
    });

    it('a line over the cap comes with null bytes; a line of exactly the cap is kept', async () => {
      const text = 'ok\n12345\n123456\nab\n1234567890123\n12345';
      await withFile(text, async (handle, size) => {
        for (let chunk = 1; chunk <= 9; chunk++) {
          const { items } = await scanBack(handle, 0, size, { chunk, cap: 5 });
          assert.deepEqual(items, expectedBack(text, 0, size, 5), `chunk ${chunk}`);
        }
      });
    });

    it('does not read again the start of a line already known to be over the cap', async () => {
      // [0, 8) was seen before as the unfinished start of an over-cap line; it has since ended.
      const text = `${'x'.repeat(8)}yy\nok\n`;
      await withFile(text, async (handle, size) => {
        const { items, reads } = await scanBack(handle, 0, size, { chunk: 4, cap: 100, knownOverlongTo: 8 });
        assert.deepEqual(items, [
          { kind: 'fragment', start: 14, end: 14, text: '' },
          { kind: 'line', start: 11, end: 13, text: 'ok' },
          { kind: 'line', start: 0, end: 10, text: null },
        ]);
        assert.equal(sum(reads), size - 8);
        // Nothing new since: the unfinished line is given as over the cap without a read.
        const same = await scanBack(handle, 0, 8, { chunk: 4, cap: 100, knownOverlongTo: 8 });
        assert.deepEqual(same.items, [{ kind: 'fragment', start: 0, end: 8, text: null }]);
        assert.deepEqual(same.reads, []);
        // A mark beyond the range (the file was rewritten shorter) is ignored.
        const stale = await scanBack(handle, 0, 8, { chunk: 4, cap: 100, knownOverlongTo: 12 });
        assert.deepEqual(stale.items, [{ kind: 'fragment', start: 0, end: 8, text: 'xxxxxxxx' }]);
        assert.equal(sum(stale.reads), 8);
      });
    });

    it('stops once maxScan bytes were scanned, resuming at the oldest complete line it gave', async () => {
      const text = Array.from({ length: 40 }, (_, i) => `line-${String(i).padStart(2, '0')}\n`).join('');
      await withFile(text, async (handle, size) => {
        // Chunks of 8, then 16 bytes: 24 bytes scanned, which is maxScan.
        const { items, reads } = await scanBack(handle, 0, size, { chunk: 8, maxScan: 24 });
        assert.equal(sum(reads), 24);
        const limit = items.at(-1)!;
        assert.ok(limit.kind === 'limit' && limit.resumeAt < size - 8, JSON.stringify(items));
        // What was given is exactly the lines from resumeAt on.
        assert.deepEqual(items.slice(0, -1), expectedBack(text, limit.resumeAt, size));
      });
    });

    it('with nothing complete given yet, resumes at the end of the range', async () => {
      await withFile('x'.repeat(100), async (handle, size) => {
        const { items } = await scanBack(handle, 0, size, { chunk: 8, maxScan: 8 });
        assert.deepEqual(items, [{ kind: 'limit', resumeAt: size }]);
      });
    });

    it('a range shorter than maxScan is scanned to its start', async () => {
      const text = `${'a'.repeat(300)}\n${'b'.repeat(299)}\n`;
      await withFile(text, async (handle, size) => {
        const { items } = await scanBack(handle, 0, size, { chunk: 64, maxScan: 1000 });
        assert.deepEqual(items, expectedBack(text, 0, size));
      });
    });

    it('the bytes of a line over the cap do not count against maxScan, down to its last small piece', async () => {
      // A 30-byte line over the 10-byte cap, then older short lines. Reads of 8, 16, 32 bytes reach
      // 56 bytes, 30 of them on the long line: 26 kept bytes, under maxScan = 30, so a fourth read
      // (64 bytes, to 120 scanned) happens before the scan stops.
      const older = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}\n`).join('');
      const text = `${older}${'A'.repeat(30)}\n`;
      await withFile(text, async (handle, size) => {
        const { items, reads } = await scanBack(handle, 0, size, { chunk: 8, cap: 10, maxScan: 30 });
        assert.deepEqual(reads, [8, 16, 32, 64]);
        const limit = items.at(-1)!;
        assert.ok(limit.kind === 'limit');
        // The oldest line given lies within the fourth read.
        assert.ok(limit.resumeAt >= size - 120 && limit.resumeAt < size - 56, `resumes at ${limit.resumeAt} of ${size}`);
        assert.deepEqual(items.slice(0, -1), expectedBack(text, limit.resumeAt, size, 10));
      });
    });

    it('stops after four times maxScan even when every byte was on lines over the cap', async () => {
      const text = `k\n${'X'.repeat(500)}\n`;
      await withFile(text, async (handle, size) => {
        // 8 + 16 + 32 = 56 = 4 x 14 bytes, nearly all on the over-cap line.
        const { items, reads } = await scanBack(handle, 0, size, { chunk: 8, cap: 10, maxScan: 14 });
        assert.equal(sum(reads), 56);
        assert.deepEqual(items, [
          { kind: 'fragment', start: size, end: size, text: '' },
          { kind: 'limit', resumeAt: size },
        ]);
      });
    });

    it('chunks double from the first one, up to 8 MiB', async () => {
      const line = `${'z'.repeat(1023)}\n`;
      await withFile(line.repeat(15 * 1024), async (handle, size) => {
        const reads: number[] = [];
        const gen = backwardLines(handle, 0, size, { chunk: 6 * MiB, cap: 1e9, maxScan: 1e9, knownOverlongTo: -1, onRead: (n) => reads.push(n) });
        for await (const item of gen) {
          assert.ok(item.kind !== 'limit');
          if (reads.length === 2) break;
        }
        assert.deepEqual(reads, [6 * MiB, 8 * MiB]);
      });
    });
  });

  describe('forwardLines: the lines of a range that ends with a newline, in order', () => {
    async function forward(handle: FileHandle, from: number, to: number, cap: number): Promise<{ lines: Seen[]; bytes: number }> {
      const lines: Seen[] = [];
      const bytes = await forwardLines(handle, from, to, cap, (l: BackLine) => {
        lines.push({ kind: 'line', start: l.start, end: l.end, text: l.bytes ? l.bytes.toString('latin1') : null });
        if (lines.length > 10_000) assert.fail('the read does not end');
      });
      return { lines, bytes };
    }
    const expectedForward = (text: string, from: number, to: number, cap = 1e9): Seen[] =>
      expectedBack(text, from, to, cap)
        .filter((l) => l.kind === 'line')
        .reverse();

    it('gives each line with its byte range and returns the bytes read, nothing past `to`', async () => {
      const text = 'skip\nalpha\n\nbb\n  \nccc\nlater\nrest';
      const to = text.indexOf('later');
      await withFile(text, async (handle) => {
        for (const from of [0, 5]) {
          const { lines, bytes } = await forward(handle, from, to, 100);
          assert.deepEqual(lines, expectedForward(text, from, to), `from ${from}`);
          assert.equal(bytes, to - from);
        }
      });
    });

    it('a line over the cap comes with null bytes, the next one is kept again; exactly the cap is kept', async () => {
      const text = '12345\nab\n123456\nok\n1234567890123\nxy\n';
      await withFile(text, async (handle, size) => {
        const { lines } = await forward(handle, 0, size, 5);
        assert.deepEqual(lines, expectedForward(text, 0, size, 5));
        assert.deepEqual(lines.map((l) => (l.kind === 'line' ? l.text : '')), ['12345', 'ab', null, 'ok', null, 'xy']);
      });
    });

    it('reads a range bigger than one read in a few large reads, lines spanning them intact', async () => {
      const big = 'b'.repeat(1.5 * MiB);
      const huge = 'h'.repeat(2.5 * MiB);
      const text = `first\n${big}\n${huge}\nlast\n`;
      await withFile(text, async (handle, size) => {
        let calls = 0;
        const counting: FileHandle = { ...handle, read: (...args) => (calls++, handle.read(...args)) };
        const lines: BackLine[] = [];
        const bytes = await forwardLines(counting, 0, size, 2 * MiB, (l) => lines.push(l));
        assert.equal(bytes, size);
        assert.ok(calls <= 6, `${calls} reads for ${size} bytes`);
        assert.deepEqual(
          lines.map((l) => [l.start, l.end, l.bytes ? l.bytes.length : null]),
          [[0, 5, 5], [6, 6 + big.length, big.length], [7 + big.length, 7 + big.length + huge.length, null], [size - 5, size - 1, 4]],
        );
        assert.equal(lines[1]!.bytes!.toString(), big);
        assert.equal(lines[3]!.bytes!.toString(), 'last');
      });
    });

    it('ends at the end of the file when the range runs past it (the file was cut meanwhile)', async () => {
      const text = 'one\ntwo\nthr';
      await withFile(text, async (handle, size) => {
        const { lines, bytes } = await forward(handle, 0, size + 50, 100);
        assert.deepEqual(lines, expectedForward(text, 0, 8));
        assert.equal(bytes, size);
      });
    });
  });

  describe('readAt: up to `length` bytes at a position', () => {
    it('gives the bytes asked for, fewer at the end of the file, none for a zero length', async () => {
      await withFile('0123456789', async (handle) => {
        assert.equal((await readAt(handle, 2, 5)).toString(), '23456');
        assert.equal((await readAt(handle, 7, 10)).toString(), '789');
        assert.equal((await readAt(handle, 12, 4)).length, 0);
        assert.equal((await readAt(handle, 0, 0)).length, 0);
      });
    });

    it('keeps reading when the file gives fewer bytes than asked (a short read is not the end)', async () => {
      await withFile('abcdefghijklmnopqrstuvwxyz', async (handle) => {
        // At most 4 bytes a call, as a network file system may give.
        const short: FileHandle = { ...handle, read: (buf, offset, length, position) => handle.read(buf, offset, Math.min(length, 4), position) };
        assert.equal((await readAt(short, 3, 10)).toString(), 'defghijklm');
        assert.equal((await readAt(short, 20, 10)).toString(), 'uvwxyz');
      });
    });
  });
});
