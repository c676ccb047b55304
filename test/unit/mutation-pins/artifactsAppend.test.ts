import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ATOMIC_APPEND_BYTES, TAIL_CHARS, appendFeedbackLine, recordLine, tailOf } from '../../../src/core/artifacts/appendRecord';
import type { FeedbackRecord } from '../../../src/core/artifacts/schemas';
import { LOCK_FILE, withLock } from '../../../src/core/registry/lock';
import { makeTempDir } from '../helpers/fixtures';
import { fake } from '../redact/corpus';

const LOG = 'feedback_record.jsonl';
const token = (): string => ['gh', 'p_', fake(8, 36)].join('');
const parse = (line: string): Record<string, unknown> => JSON.parse(line) as Record<string, unknown>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A workspace with its output dir: where `handoff record` appends, and the lock it takes. */
async function workspace(): Promise<{ root: string; file: string; opts: { root: string; lockDir: string } }> {
  const root = await fs.realpath(await makeTempDir('append-pins-'));
  return { root, file: path.join(root, LOG), opts: { root, lockDir: path.join(root, 'outputs', 'handoff') } };
}

/** A record line of exactly `bytes` bytes (ASCII), made long by its note. */
function lineOfBytes(bytes: number): string {
  const base = `${JSON.stringify({ command: 'npm test', exit_code: 0, agent_note: '' })}\n`;
  return `${JSON.stringify({ command: 'npm test', exit_code: 0, agent_note: 'n'.repeat(bytes - base.length) })}\n`;
}

describe('the end of an output kept in a record (tailOf)', () => {
  it('keeps a text that fits whole, even with an early line break', () => {
    assert.equal(tailOf('a\nbcdefgh', 9), 'a\nbcdefgh');
    assert.equal(tailOf('a\nb', 10), 'a\nb');
    assert.equal(tailOf('', 10), '');
  });

  it('keeps the last characters of a longer text without a line break', () => {
    assert.equal(tailOf('abcdefghij', 4), 'ghij');
  });

  it('starts after a line break found in the first quarter of the kept end', () => {
    const text = `${'x'.repeat(20)}\n${'y'.repeat(30)}`;
    assert.equal(tailOf(text, 40), 'y'.repeat(30));
    // The break right at the start of the kept end: the tail is the whole line after it.
    assert.equal(tailOf(`${'x'.repeat(5)}\n${'y'.repeat(39)}`, 40), 'y'.repeat(39));
  });

  it('does not drop a quarter or more of the kept end to start at a line break', () => {
    const late = `${'x'.repeat(20)}\n${'y'.repeat(24)}`; // the break is 15 characters into the last 40
    assert.equal(tailOf(late, 40), late.slice(-40));
    const atQuarter = `${'x'.repeat(20)}\n${'y'.repeat(29)}`; // exactly 10 characters in: kept whole
    assert.equal(tailOf(atQuarter, 40), atQuarter.slice(-40));
  });
});

describe('a feedback record as one line (recordLine)', () => {
  it('is the record as one JSON line ending in a newline', () => {
    const record: FeedbackRecord = { command: ['npm', 'test'], exit_code: 1, agent_note: 'flaky?', stdout_tail: 'ok 1\nnot ok 2', stderr_tail: 'boom' };
    const line = recordLine(record);
    assert.ok(line.endsWith('}\n') && line.indexOf('\n') === line.length - 1, line);
    assert.deepEqual(parse(line), record);
  });

  it('masks secrets in every field, the tails included', () => {
    const t = token();
    const line = recordLine({ command: ['git', 'push', `https://${t}@github.com/o/r`], exit_code: 0, stdout_tail: `pushed with ${t}`, stderr_tail: `warn ${t}` });
    assert.ok(!line.includes(t.slice(4)), line);
    const rec = parse(line);
    assert.match(String(rec['stdout_tail']), /^pushed with \[REDACTED\]$/);
    assert.match(String(rec['stderr_tail']), /^warn \[REDACTED\]$/);
  });

  it('cuts each output tail to its last TAIL_CHARS characters', () => {
    const out = Array.from({ length: 400 }, (_, i) => `out ${i}`).join('\n');
    const err = Array.from({ length: 400 }, (_, i) => `err ${i}`).join('\n');
    const rec = parse(recordLine({ command: 'make', exit_code: 2, stdout_tail: out, stderr_tail: err }));
    for (const [tail, full] of [[rec['stdout_tail'], out], [rec['stderr_tail'], err]] as const) {
      assert.equal(typeof tail, 'string');
      const kept = tail as string;
      assert.ok(kept.length <= TAIL_CHARS && kept.length > TAIL_CHARS - 10, `${kept.length}`);
      assert.ok(full.endsWith(kept) && full.includes(`\n${kept}`), 'the tail starts on a line of its own');
    }
  });

  it('keeps a short-enough tail whole when the line fits one atomic append', () => {
    const out = 'step '.repeat(80); // 400 characters
    const rec = parse(recordLine({ command: 'make', exit_code: 0, stdout_tail: out }));
    assert.equal(rec['stdout_tail'], out);
  });

  it('shrinks the tails of a long record until the line fits one atomic append, keeping their ends', () => {
    const out = `${'é'.repeat(3000)}last out`;
    const err = `${'ü'.repeat(3000)}last err`;
    const line = recordLine({ command: 'make', exit_code: 2, stdout_tail: out, stderr_tail: err });
    assert.ok(Buffer.byteLength(line) <= ATOMIC_APPEND_BYTES, `${Buffer.byteLength(line)} bytes`);
    const rec = parse(line);
    for (const [tail, full] of [[rec['stdout_tail'], out], [rec['stderr_tail'], err]] as const) {
      assert.ok(typeof tail === 'string' && full.endsWith(tail) && tail.length >= TAIL_CHARS / 4, String(tail));
    }
  });

  it('leaves a line of exactly ATOMIC_APPEND_BYTES bytes as it is', () => {
    const out = 'o'.repeat(TAIL_CHARS);
    const base = Buffer.byteLength(`${JSON.stringify({ command: 'make', agent_note: '', stdout_tail: out })}\n`);
    const record = { command: 'make', agent_note: 'n'.repeat(ATOMIC_APPEND_BYTES - base), stdout_tail: out };
    const line = recordLine(record);
    assert.equal(Buffer.byteLength(line), ATOMIC_APPEND_BYTES);
    assert.deepEqual(parse(line), record);
  });

  it('stops shrinking a line that cannot fit (a huge note) with a useful end of each tail left', () => {
    const out = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n');
    const rec = parse(recordLine({ command: 'make', exit_code: 1, agent_note: 'why '.repeat(1500), stdout_tail: out }));
    const tail = String(rec['stdout_tail']);
    assert.ok(out.endsWith(tail) && tail.length >= 50, tail);
    assert.equal(rec['agent_note'], 'why '.repeat(1500));
  });
});

describe('appending a record line to the feedback log (appendFeedbackLine)', () => {
  it('creates the log (and missing folders) holding just the line', async () => {
    const ws = await workspace();
    const line = recordLine({ command: 'npm test', exit_code: 0 });
    await appendFeedbackLine(ws.file, line, ws.opts);
    assert.equal(await fs.readFile(ws.file, 'utf8'), line);
    const nested = path.join(ws.root, 'a', 'b', LOG);
    await appendFeedbackLine(nested, line, ws.opts);
    assert.equal(await fs.readFile(nested, 'utf8'), line);
  });

  it('appends to an empty log, or after a complete last line, with no blank line', async () => {
    const ws = await workspace();
    await fs.writeFile(ws.file, '');
    const one = recordLine({ command: 'one', exit_code: 0 });
    const two = recordLine({ command: 'two', exit_code: 1 });
    await appendFeedbackLine(ws.file, one, ws.opts);
    await appendFeedbackLine(ws.file, two, ws.opts);
    assert.equal(await fs.readFile(ws.file, 'utf8'), one + two);
  });

  it('ends a torn last line before appending, so the record is not glued to it', async () => {
    const ws = await workspace();
    await fs.writeFile(ws.file, '{"command":"half');
    const line = recordLine({ command: 'two', exit_code: 0 });
    await appendFeedbackLine(ws.file, line, ws.opts);
    assert.equal(await fs.readFile(ws.file, 'utf8'), `{"command":"half\n${line}`);
  });

  it('follows a symlink that stays inside the workspace', async () => {
    const ws = await workspace();
    await fs.mkdir(path.join(ws.root, 'logs'));
    await fs.symlink(path.join(ws.root, 'logs', 'real.jsonl'), ws.file);
    const line = recordLine({ command: 'x', exit_code: 0 });
    await appendFeedbackLine(ws.file, line, ws.opts);
    assert.equal(await fs.readFile(path.join(ws.root, 'logs', 'real.jsonl'), 'utf8'), line);
  });

  it('refuses a symlink leading out of the workspace, writing nothing there', async () => {
    const ws = await workspace();
    const outside = await fs.realpath(await makeTempDir('append-outside-'));
    const target = path.join(outside, 'elsewhere.jsonl');
    await fs.writeFile(target, 'theirs\n');
    await fs.symlink(target, ws.file);
    const line = recordLine({ command: 'x', exit_code: 0 });
    await assert.rejects(appendFeedbackLine(ws.file, line, ws.opts), (e: Error) => {
      assert.equal(e.message, `${ws.file} is a symbolic link that leads outside the workspace; nothing recorded`);
      return true;
    });
    assert.equal(await fs.readFile(target, 'utf8'), 'theirs\n');
  });

  it('refuses a symlink to the folder just above the workspace', async () => {
    const ws = await workspace();
    await fs.symlink(path.dirname(ws.root), ws.file);
    await assert.rejects(appendFeedbackLine(ws.file, recordLine({ command: 'x' }), ws.opts), /is a symbolic link that leads outside the workspace; nothing recorded$/);
  });

  it('refuses a named pipe in place of the log', async function () {
    if (process.platform === 'win32') this.skip();
    const ws = await workspace();
    execFileSync('mkfifo', [ws.file]);
    await assert.rejects(appendFeedbackLine(ws.file, recordLine({ command: 'x' }), ws.opts), (e: Error) => {
      assert.equal(e.message, `${ws.file} is not a regular file; nothing recorded`);
      return true;
    });
  });

  it('leaves no file open behind it', async function () {
    if (!existsSync('/proc/self/fd')) this.skip();
    const ws = await workspace();
    const line = recordLine({ command: 'x', exit_code: 0 });
    await appendFeedbackLine(ws.file, line, ws.opts);
    const before = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 10; i++) await appendFeedbackLine(ws.file, line, ws.opts);
    assert.equal(readdirSync('/proc/self/fd').length, before);
  });

  it('writes a line that fits one atomic append at once, and waits for the lock with a longer one', async () => {
    const ws = await workspace();
    const fits = lineOfBytes(ATOMIC_APPEND_BYTES - 1); // with a newline before it, still one atomic write
    const over = lineOfBytes(ATOMIC_APPEND_BYTES);
    assert.equal(Buffer.byteLength(fits) + 1, ATOMIC_APPEND_BYTES);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const held = withLock(ws.opts.lockDir, () => gate);
    try {
      // Held before going on, however long taking it takes.
      for (let i = 0; i < 6000 && !existsSync(path.join(ws.opts.lockDir, LOCK_FILE)); i++) await sleep(10);
      assert.ok(existsSync(path.join(ws.opts.lockDir, LOCK_FILE)), 'the lock is held');
      await appendFeedbackLine(ws.file, fits, ws.opts);
      assert.equal(await fs.readFile(ws.file, 'utf8'), fits);
      let done = false;
      const waiting = appendFeedbackLine(ws.file, over, ws.opts).then(() => (done = true));
      await sleep(300);
      assert.equal(done, false, 'the long line did not wait for the lock');
      assert.equal(await fs.readFile(ws.file, 'utf8'), fits);
      release();
      await waiting;
    } finally {
      release();
      await held;
    }
    assert.equal(await fs.readFile(ws.file, 'utf8'), fits + over);
  });
});
