import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader } from '../../../src/core/context/claude';
import type { ContextResult } from '../../../src/core/context/types';
import { claudeCall, claudeUser } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

const used = (r: ContextResult) => (r.known ? r.usedTokens : undefined);

async function tempFile(content: string): Promise<string> {
  const file = path.join(await makeTempDir('ctx-tail-'), 'session.jsonl');
  await fs.writeFile(file, content);
  return file;
}

describe('TailReader (incremental tail reading)', () => {
  it('keeps a partial last line for later and completes it on the next read', async () => {
    const file = await tempFile(claudeCall({ input: 1000 }));
    const reader = claudeTranscriptReader(file);
    assert.equal(used(await reader.read()), 1000);
    const next = claudeCall({ input: 2000 });
    const cut = Math.floor(next.length / 2);
    await fs.appendFile(file, next.slice(0, cut));
    assert.equal(used(await reader.read()), 1000, 'half a line is not a reading');
    await fs.appendFile(file, next.slice(cut));
    assert.equal(used(await reader.read()), 2000);
    assert.equal(reader.stats.mode, 'append');
  });

  it('reads only the appended bytes, not the file again', async () => {
    // ~4 MB of history before the first reading.
    const filler = claudeUser('x'.repeat(4000));
    const file = await tempFile(filler.repeat(1000) + claudeCall({ input: 500 }));
    const reader = claudeTranscriptReader(file);
    assert.equal(used(await reader.read()), 500);
    const initialCost = reader.stats.bytesRead;
    const { size } = await fs.stat(file);
    assert.ok(initialCost < size / 10, `initial read cost ${initialCost} of ${size}`);

    const appended = claudeUser('next') + claudeCall({ input: 777, cacheRead: 1000 });
    await fs.appendFile(file, appended);
    assert.equal(used(await reader.read()), 1777);
    const cost = reader.stats.bytesRead;
    assert.equal(reader.stats.mode, 'append');
    assert.ok(cost >= appended.length && cost <= appended.length + 512, `append cost ${cost} for ${appended.length} appended`);

    assert.equal(used(await reader.read()), 1777);
    assert.equal(reader.stats.bytesRead, 0, 'an unchanged file costs nothing');
  });

  it('starts over when the file is truncated', async () => {
    const file = await tempFile(claudeCall({ input: 9000 }) + claudeCall({ input: 9500 }));
    const reader = claudeTranscriptReader(file);
    assert.equal(used(await reader.read()), 9500);
    await fs.writeFile(file, claudeCall({ input: 42 }));
    assert.equal(used(await reader.read()), 42);
    assert.equal(reader.stats.restarted, true);
  });

  it('starts over when the file is replaced by one that is not shorter', async () => {
    const file = await tempFile(claudeCall({ input: 100, sessionId: 'aaaa' }));
    const reader = claudeTranscriptReader(file);
    assert.equal(used(await reader.read()), 100);
    const replacement = path.join(path.dirname(file), 'other.jsonl');
    await fs.writeFile(replacement, claudeCall({ input: 300, sessionId: 'bbbb' }) + claudeCall({ input: 200, sessionId: 'bbbb' }));
    await fs.rename(replacement, file);
    const r = await reader.read();
    assert.equal(used(r), 200);
    assert.equal(r.sessionId, 'bbbb');
    assert.equal(reader.stats.restarted, true);
  });

  it('finds a reading that lies many chunks back from the end', async () => {
    const file = await tempFile(claudeCall({ input: 321 }) + claudeUser('y'.repeat(1000)).repeat(500));
    const reader = claudeTranscriptReader(file, { chunkSize: 1024 });
    assert.equal(used(await reader.read()), 321);
  });

  it('uses a complete last line that lacks its newline, and does not count it twice', async () => {
    const file = await tempFile(claudeCall({ input: 10 }) + claudeCall({ input: 20 }).trimEnd());
    const reader = claudeTranscriptReader(file);
    assert.equal(used(await reader.read()), 20);
    await fs.appendFile(file, '\n' + claudeUser('later'));
    assert.equal(used(await reader.read()), 20);
  });
});

describe('TailReader: lines over the cap', () => {
  it('skips a long line with a located warning, keeps the reading before it, and never holds the line', async () => {
    const file = await tempFile(claudeCall({ input: 111 }) + claudeUser('z'.repeat(200_000)) + claudeUser('after'));
    const reader = claudeTranscriptReader(file, { chunkSize: 1024, maxLineBytes: 10_000 });
    const r = await reader.read();
    assert.equal(used(r), 111);
    assert.equal(r.warnings?.length, 1);
    assert.match(r.warnings![0]!, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: line at byte \\d+ is 0\\.2 MiB, over the 0 MiB line limit; line too long, skipped$`));
    // Read once, backwards: no second pass over the long line.
    assert.ok(reader.stats.bytesRead < (await fs.stat(file)).size + 4096, `read ${reader.stats.bytesRead}`);
  });

  it('an unfinished long last line is not re-read on every refresh, and is dropped once a newer line settles the reading', async () => {
    const file = await tempFile(claudeCall({ input: 222 }));
    const reader = claudeTranscriptReader(file, { chunkSize: 1024, maxLineBytes: 10_000 });
    assert.equal(used(await reader.read()), 222);
    await fs.appendFile(file, `{"type":"user","message":{"content":"${'q'.repeat(50_000)}`);
    let r = await reader.read();
    assert.equal(used(r), 222);
    assert.match(r.warnings?.[0] ?? '', /last line \(from byte \d+\) is 0\.0 MiB so far without an end/);
    await fs.appendFile(file, 'q'.repeat(20_000));
    r = await reader.read();
    assert.ok(reader.stats.bytesRead <= 20_000 + 512, `re-read ${reader.stats.bytesRead} bytes of a line known to be too long`);
    await fs.appendFile(file, `"}}\n${claudeCall({ input: 333 })}`);
    r = await reader.read();
    assert.equal(used(r), 333);
    // The newer call settles the reading: the finished long line before it is not read again.
    assert.ok(reader.stats.bytesRead < 10_000, `read ${reader.stats.bytesRead}`);
    assert.equal(r.warnings, undefined);
  });

  it('a FIFO in place of the transcript is an unknown reading that says why, at once', async function () {
    if (process.platform === 'win32') this.skip();
    const file = path.join(await makeTempDir('ctx-fifo-'), 'session.jsonl');
    execFileSync('mkfifo', [file]);
    const r = await claudeTranscriptReader(file).read();
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, /named pipe \(FIFO\), not a regular file/);
  });
});
