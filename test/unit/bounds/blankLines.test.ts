import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader } from '../../../src/core/context/claude';
import { backwardLines, forwardLines } from '../../../src/core/context/lineScan';
import { openRegular } from '../../../src/core/fsx';
import { claudeCall } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

const BLANKS = '\n'.repeat(4 * 1024 * 1024);

async function withHandle<T>(file: string, f: (h: Parameters<typeof backwardLines>[0]) => Promise<T>): Promise<T> {
  const opened = await openRegular(file);
  assert.ok(opened.ok);
  try {
    return await f(opened.file.handle);
  } finally {
    await opened.file.handle.close();
  }
}

describe('blank lines at a transcript\'s end cost one pass, not an item each', () => {
  it('4 MiB of empty (and CR, space) lines after the last call: the reading is the call, and the scan hands out 2 items', async () => {
    const dir = await makeTempDir('blank-');
    const file = path.join(dir, 's.jsonl');
    await fs.writeFile(file, claudeCall({ input: 7000 }) + '\r\n  \n\t\n' + BLANKS);
    const r = await claudeTranscriptReader(file).read();
    assert.ok(r.known && r.usedTokens === 7000, JSON.stringify(r));
    const size = (await fs.stat(file)).size;
    const items = await withHandle(file, async (h) => {
      const out: string[] = [];
      for await (const it of backwardLines(h, 0, size, { chunk: 64 * 1024, cap: 1 << 24, maxScan: 1 << 28, knownOverlongTo: -1, onRead: () => undefined, skipBlank: true })) out.push(it.kind);
      return out;
    });
    // The empty fragment after the last newline, then the call: no item for any blank line.
    assert.deepEqual(items, ['fragment', 'line']);
  });

  it('read forward, blank lines are not handed out either; a line with text among them is', async () => {
    const dir = await makeTempDir('blank-');
    const file = path.join(dir, 's.jsonl');
    await fs.writeFile(file, `${BLANKS}x\n${BLANKS}`);
    const size = (await fs.stat(file)).size;
    const lines: string[] = [];
    await withHandle(file, (h) => forwardLines(h, 0, size, 1 << 24, (l) => void lines.push(String(l.bytes)), true));
    assert.deepEqual(lines, ['x']);
  });
});
