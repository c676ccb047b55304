import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readFeedback } from '../../../src/core/artifacts/feedback';
import type { FeedbackOptions } from '../../../src/core/artifacts/feedback';
import { useBlockingFileAccess } from '../../../src/core/fsx';
import { makeTempDir } from '../helpers/fixtures';

const line = (v: unknown) => `${JSON.stringify(v)}\n`;
const ok = (command: string | string[], extra: Record<string, unknown> = {}) => line({ command, exit_code: 0, ...extra });
const bad = (command: string | string[], extra: Record<string, unknown> = {}) => line({ command, exit_code: 1, ...extra });

async function read(text: string | Buffer, opts: Partial<FeedbackOptions> = {}) {
  const dir = await makeTempDir('feedback-pins-');
  const abs = path.join(dir, 'feedback_record.jsonl');
  await fs.writeFile(abs, text);
  const r = await readFeedback(abs, 'feedback_record.jsonl', { feedbackK: 3, maxCommands: 30, ...opts });
  assert.ok(r && r.feedback && r.source, 'expected records');
  return { feedback: r.feedback, source: r.source, diagnostics: r.diagnostics };
}
const commandsOf = (kept: { record: { command: string | string[] } }[]) => kept.map((k) => k.record.command);

describe('feedback_record.jsonl: what a packet keeps of it', () => {
  it('keeps the last K records, in file order, and counts the rest as omitted', async () => {
    const r = await read([ok('a'), ok('b'), ok('c'), ok('d'), ok('e')].join(''), { feedbackK: 2 });
    assert.deepEqual(commandsOf(r.feedback.kept), ['d', 'e']);
    assert.deepEqual(r.feedback.kept.map((k) => k.index), [3, 4]);
    assert.equal(r.feedback.total, 5);
    assert.equal(r.feedback.omitted, 3);
  });

  it('K of zero keeps only failures; a fractional K is rounded down', async () => {
    const zero = await read([ok('a'), bad('b'), ok('c')].join(''), { feedbackK: 0 });
    assert.deepEqual(commandsOf(zero.feedback.kept), ['b']);
    const frac = await read([ok('a'), ok('b'), ok('c')].join(''), { feedbackK: 1.9 });
    assert.deepEqual(commandsOf(frac.feedback.kept), ['c']);
  });

  it('keeps every failure before the last K too, newest first when the cap bites', async () => {
    const r = await read([bad('f1'), ok('a'), bad('f2'), ok('b'), ok('c'), ok('d')].join(''), { feedbackK: 2 });
    assert.deepEqual(commandsOf(r.feedback.kept), ['f1', 'f2', 'c', 'd']);
    // Failures come before the last K when the cap bites (issue 20: every failure, whatever K).
    const capped = await read([bad('f1'), bad('f2'), bad('f3'), ok('a')].join(''), { feedbackK: 1, maxCommands: 2 });
    assert.deepEqual(commandsOf(capped.feedback.kept), ['f2', 'f3']);
    assert.equal(capped.feedback.omitted, 2);
    const onlyFailures = await read([bad('f1'), bad('f2'), bad('f3')].join(''), { feedbackK: 0, maxCommands: 2 });
    assert.deepEqual(commandsOf(onlyFailures.feedback.kept), ['f2', 'f3']);
    assert.equal(onlyFailures.feedback.omitted, 1);
  });

  it('with K as large as the cap (--k 30), every failure is still kept, and the newest others fill the rest', async () => {
    const lines = [bad('f1'), bad('f2'), ...Array.from({ length: 40 }, (_, i) => ok(`o${i}`)), bad('f3')];
    const r = await read(lines.join(''), { feedbackK: 30, maxCommands: 30 });
    const kept = commandsOf(r.feedback.kept).map(String);
    assert.equal(kept.length, 30);
    assert.deepEqual(kept.filter((c) => c.startsWith('f')), ['f1', 'f2', 'f3']);
    assert.deepEqual(kept.slice(2, 4), ['o13', 'o14'], 'the newest 27 others, in order');
    assert.equal(kept.at(-1), 'f3');
  });

  it('never keeps more than maxCommands, the newest of them; the cap is at least one', async () => {
    const r = await read([ok('a'), ok('b'), ok('c'), ok('d')].join(''), { feedbackK: 4, maxCommands: 2 });
    assert.deepEqual(commandsOf(r.feedback.kept), ['c', 'd']);
    const zeroCap = await read([ok('a'), ok('b')].join(''), { feedbackK: 4, maxCommands: 0 });
    assert.deepEqual(commandsOf(zeroCap.feedback.kept), ['b']);
  });

  it('treats a timeout or a missing exit code as a failure worth keeping', async () => {
    const r = await read([line({ command: 'slow', exit_code: null, error: 'timed out' }), line({ command: 'gone' }), ok('a'), ok('b')].join(''), { feedbackK: 1 });
    assert.deepEqual(commandsOf(r.feedback.kept), ['slow', 'gone', 'b']);
  });

  it('remembers the newest test run and the newest run of each test or watched command', async () => {
    const r = await read([bad(['npm', 'test']), ok('npm  run build'), ok(['npm', 'test']), ok('ls'), bad('pytest -q')].join(''), {
      feedbackK: 1, watchCommands: [' npm run   build '],
    });
    assert.equal(r.feedback.lastTestRun?.index, 4);
    assert.deepEqual(Object.keys(r.feedback.lastRunOf).sort(), ['npm run build', 'npm test', 'pytest -q']);
    assert.equal(r.feedback.lastRunOf['npm test']?.index, 2);
    assert.equal(r.feedback.lastRunOf['npm run build']?.index, 1);
  });

  it('has no last test run when no test ran', async () => {
    const r = await read([ok('ls')].join(''));
    assert.equal(r.feedback.lastTestRun, null);
    assert.deepEqual(r.feedback.lastRunOf, {});
  });

  it('tracks at most 200 distinct commands: once full, a new unwatched one is not tracked', async () => {
    const lines = [ok('make check')];
    for (let i = 1; i <= 201; i++) lines.push(ok(`pytest t${i}`));
    const r = await read(lines.join(''), { watchCommands: ['make check'] });
    const keys = Object.keys(r.feedback.lastRunOf);
    assert.equal(keys.length, 200);
    assert.ok(keys.includes('make check') && keys.includes('pytest t1') && keys.includes('pytest t199'));
    assert.ok(!keys.includes('pytest t200') && !keys.includes('pytest t201'));
    assert.equal(r.feedback.lastTestRun?.record.command, 'pytest t201');
  });

  it('a command already tracked is updated when full, and counts as recent when a watched one needs room', async () => {
    const lines: string[] = [];
    for (let i = 1; i <= 200; i++) lines.push(ok(`pytest t${i}`));
    lines.push(bad('pytest t1'), ok('make check'));
    const r = await read(lines.join(''), { watchCommands: ['make check'] });
    const keys = Object.keys(r.feedback.lastRunOf);
    assert.equal(keys.length, 200);
    assert.equal(r.feedback.lastRunOf['pytest t1']?.index, 200);
    assert.ok(keys.includes('make check'));
    assert.ok(!keys.includes('pytest t2'));
  });

  it('a watched command that needs room pushes out the oldest unwatched one, never an older watched one', async () => {
    const lines = [ok('make check')];
    for (let i = 1; i <= 199; i++) lines.push(ok(`pytest t${i}`));
    lines.push(ok('make lint'));
    const keys = Object.keys((await read(lines.join(''), { watchCommands: ['make check', 'make lint'] })).feedback.lastRunOf);
    assert.equal(keys.length, 200);
    assert.ok(keys.includes('make check') && keys.includes('make lint') && keys.includes('pytest t2'));
    assert.ok(!keys.includes('pytest t1'));
  });

  it('a watched command is tracked even when 200 others already are', async () => {
    const lines: string[] = [];
    for (let i = 1; i <= 200; i++) lines.push(ok(`pytest t${i}`));
    lines.push(ok('make check'));
    const keys = Object.keys((await read(lines.join(''), { watchCommands: ['make check'] })).feedback.lastRunOf);
    assert.equal(keys.length, 200);
    assert.ok(keys.includes('make check'));
    assert.ok(!keys.includes('pytest t1'));
  });

  it('hashes the whole file as read', async () => {
    const text = [ok('a'), 'garbage\n', ok('b')].join('');
    const r = await read(text);
    assert.equal(r.source.sha256, createHash('sha256').update(text).digest('hex'));
    assert.equal(r.source.file, 'feedback_record.jsonl');
  });

  describe('records that only look right', () => {
    for (const [what, record] of [
      ['an argv with a non-string', { command: ['npm', 1], exit_code: 0 }],
      ['a fractional exit code', { command: 'x', exit_code: 1.5 }],
      ['a boolean start time', { command: 'x', exit_code: 0, started_at: true }],
      ['a text duration', { command: 'x', exit_code: 0, duration_ms: '3' }],
      ['a numeric note', { command: 'x', exit_code: 0, agent_note: 4 }],
      ['a numeric stdout tail', { command: 'x', exit_code: 0, stdout_tail: 4 }],
      ['a numeric stderr tail', { command: 'x', exit_code: 0, stderr_tail: 4 }],
      ['a numeric error', { command: 'x', exit_code: 0, error: 4 }],
      ['no command', { exit_code: 0 }],
      ['an array', ['x']],
      ['null', null],
    ] as const) {
      it(`are rejected with a located message: ${what}`, async () => {
        const r = await read([ok('first'), line(record)].join(''));
        assert.equal(r.feedback.total, 1);
        assert.deepEqual(commandsOf(r.feedback.kept), ['first']);
        assert.equal(r.diagnostics.length, 1);
        assert.equal(r.diagnostics[0]?.line, 2);
      });
    }

    const full = { command: 'x', exit_code: 0, started_at: 1_700_000_000, duration_ms: 5, agent_note: null, stdout_tail: null, stderr_tail: null, error: null };
    for (const [what, change] of [
      ['an argv of numbers', { command: [1, 2] }],
      ['a text duration', { duration_ms: '3' }],
      ['a boolean start time', { started_at: true }],
      ['a numeric note', { agent_note: 4 }],
      ['a numeric stdout tail', { stdout_tail: 4 }],
      ['a numeric error', { error: 4 }],
    ] as const) {
      it(`are rejected even when every other field is present: ${what}`, async () => {
        const r = await read([ok('first'), line({ ...full, ...change })].join(''));
        assert.equal(r.feedback.total, 1);
        assert.equal(r.diagnostics.length, 1);
        assert.equal(r.diagnostics[0]?.line, 2);
      });
    }

    it('accept every field in its allowed forms', async () => {
      const r = await read([
        line({ command: ['a'], exit_code: null, started_at: '2026-01-01T00:00:00Z', duration_ms: null, agent_note: null, stdout_tail: 's', stderr_tail: null, error: 'e' }),
        line({ command: 'b', started_at: 1_700_000_000, duration_ms: 5 }),
        line({ command: 'c', exit_code: 2, started_at: null }),
      ].join(''));
      assert.deepEqual(r.diagnostics, []);
      assert.equal(r.feedback.total, 3);
    });
  });

  describe('bad lines', () => {
    it('skips blank lines silently and names the line of invalid JSON', async () => {
      const r = await read([ok('a'), '   \n', '{not json\n', ok('b')].join(''));
      assert.equal(r.feedback.total, 2);
      assert.equal(r.diagnostics.length, 1);
      assert.equal(r.diagnostics[0]?.line, 3);
      assert.match(r.diagnostics[0]!.message, /^invalid JSON/);
    });

    it('calls a broken last line without newline a partial line the agent may still be writing', async () => {
      const r = await read([ok('a'), '{"command": "b", "exit'].join(''));
      assert.deepEqual(r.diagnostics, [{ file: 'feedback_record.jsonl', line: 2, message: 'partial last line (no newline, not valid JSON) skipped — the agent may still be writing it' }]);
      const complete = await read([ok('a'), '{"command": "b"}'].join(''));
      assert.equal(complete.feedback.total, 2);
    });

    it('names binary lines as such', async () => {
      const r = await read(Buffer.concat([Buffer.from(ok('a')), Buffer.from([0x7b, 0x00, 0x7d, 0x0a])]));
      assert.equal(r.diagnostics.length, 1);
      assert.equal(r.diagnostics[0]?.line, 2);
      assert.equal(r.diagnostics[0]?.message, 'binary content (NUL bytes), not a JSON line');
    });

    it('lists at most 50 bad lines and counts the rest', async () => {
      const r = await read(`${'oops\n'.repeat(53)}${ok('a')}`);
      assert.equal(r.diagnostics.length, 51);
      assert.equal(r.diagnostics[49]?.line, 50);
      assert.deepEqual(r.diagnostics[50], { file: 'feedback_record.jsonl', message: '3 more bad lines not listed' });
      assert.equal(r.feedback.total, 1);
    });

    it('exactly 50 bad lines are all listed, with no count', async () => {
      const r = await read('oops\n'.repeat(50));
      assert.equal(r.diagnostics.length, 50);
      assert.ok(r.diagnostics.every((d) => d.line !== undefined));
    });

    it('skips a line over 1 MB without keeping it, and reads on', async () => {
      const huge = `{"command": "${'x'.repeat(1024 * 1024 + 10)}"}\n`;
      const r = await read([ok('a'), huge, ok('b')].join(''));
      assert.deepEqual(commandsOf(r.feedback.kept), ['a', 'b']);
      assert.equal(r.diagnostics.length, 1);
      assert.equal(r.diagnostics[0]?.line, 2);
      assert.match(r.diagnostics[0]!.message, /^line longer than 1 MB\b.*skipped$/);
      const last = await read([ok('a'), huge.trimEnd()].join(''));
      assert.deepEqual(last.diagnostics, r.diagnostics);
      const muchLonger = await read([ok('a'), `{"command": "${'x'.repeat(3 * 1024 * 1024 + 300_000)}"}\n`, ok('b')].join(''));
      assert.deepEqual(muchLonger.diagnostics, r.diagnostics);
      assert.deepEqual(commandsOf(muchLonger.feedback.kept), ['a', 'b']);
    });

    it('a line of exactly 1 MB is still read', async () => {
      const prefix = '{"command": "';
      const suffix = '"}';
      const exact = `${prefix}${'y'.repeat(1024 * 1024 - prefix.length - suffix.length)}${suffix}`;
      assert.equal(Buffer.byteLength(exact), 1024 * 1024);
      const r = await read(`${exact}\n${ok('b')}`);
      assert.equal(r.feedback.total, 2);
      assert.deepEqual(r.diagnostics, []);
      const after = await read(`${ok('a')}${exact}\n`);
      assert.equal(after.feedback.total, 2);
      assert.deepEqual(after.diagnostics, []);
    });

    it('a file that is one over-long line is named for that line only, not as empty', async () => {
      const r = await read(`{"command": "${'x'.repeat(1024 * 1024 + 10)}"}`);
      assert.equal(r.diagnostics.length, 1);
      assert.match(r.diagnostics[0]!.message, /^line longer than 1 MB\b/);
      assert.equal(r.feedback.total, 0);
    });

    it('says an empty file holds no records; a file of blank lines is not "empty"', async () => {
      const r = await read('');
      assert.deepEqual(r.diagnostics, [{ file: 'feedback_record.jsonl', line: 1, message: 'is empty: no feedback records' }]);
      assert.equal(r.feedback.total, 0);
      const blanks = await read('\n\n');
      assert.deepEqual(blanks.diagnostics, []);
      const spaces = await read('  \t ');
      assert.deepEqual(spaces.diagnostics, []);
      assert.equal(spaces.feedback.total, 0);
    });

    it('gives null for a missing file, and one message and no records for a folder in its place', async () => {
      const dir = await makeTempDir('feedback-pins-');
      assert.equal(await readFeedback(path.join(dir, 'nope.jsonl'), 'nope.jsonl', { feedbackK: 3, maxCommands: 30 }), null);
      const r = await readFeedback(dir, 'feedback_record.jsonl', { feedbackK: 3, maxCommands: 30 });
      assert.ok(r);
      assert.equal(r.diagnostics.length, 1);
      assert.equal(r.feedback, null);
    });
  });
});

describe('feedback_record.jsonl: argv commands', () => {
  it('tells argv apart by its words, not by the characters they join to', async () => {
    const dir = await makeTempDir('feedback-pins-');
    const abs = path.join(dir, 'feedback_record.jsonl');
    await fs.writeFile(abs, [line({ command: ['pytest', 'x'], exit_code: 0 }), line({ command: ['pyte', 'stx'], exit_code: 0 }), line({ command: 'pytestx', exit_code: 0 })].join(''));
    const r = await readFeedback(abs, 'feedback_record.jsonl', { feedbackK: 3, maxCommands: 30 });
    assert.deepEqual(Object.keys(r?.feedback?.lastRunOf ?? {}), ['pytest x']);
    assert.equal(r?.feedback?.lastRunOf['pytest x']?.index, 0);
    assert.equal(r?.feedback?.lastTestRun?.index, 0);
  });
});

describe('feedback_record.jsonl: where it is read from and how', () => {
  const opts = (root?: string): FeedbackOptions => ({ feedbackK: 3, maxCommands: 30, ...(root === undefined ? {} : { root }) });

  it('refuses a log that is a symbolic link out of the root, and reads one that stays inside', async function () {
    if (process.platform === 'win32') this.skip();
    const root = await makeTempDir('feedback-pins-');
    const outside = path.join(await makeTempDir('feedback-pins-'), 'elsewhere.jsonl');
    await fs.writeFile(outside, ok('a'));
    await fs.symlink(outside, path.join(root, 'feedback_record.jsonl'));
    const refused = await readFeedback(path.join(root, 'feedback_record.jsonl'), 'feedback_record.jsonl', opts(root));
    assert.ok(refused);
    assert.equal(refused.feedback, null);
    assert.equal(refused.source, null);
    assert.equal(refused.diagnostics.length, 1);
    await fs.writeFile(path.join(root, 'inside.jsonl'), ok('b'));
    await fs.symlink(path.join(root, 'inside.jsonl'), path.join(root, 'linked.jsonl'));
    const inside = await readFeedback(path.join(root, 'linked.jsonl'), 'linked.jsonl', opts(root));
    assert.equal(inside?.feedback?.total, 1);
    const noRoot = await readFeedback(path.join(root, 'feedback_record.jsonl'), 'feedback_record.jsonl', opts());
    assert.equal(noRoot?.feedback?.total, 1);
  });

  it('a read that fails part-way keeps what was read, names the failure and closes the file', async () => {
    const dir = await makeTempDir('feedback-pins-');
    const abs = path.join(dir, 'feedback_record.jsonl');
    await fs.writeFile(abs, [ok('a'), ok('b')].join(''));
    let closed = false;
    const realOpen = fs.open;
    fs.open = (async (...args: Parameters<typeof fs.open>) => {
      const handle = await realOpen(...args);
      if (args[0] !== abs) return handle;
      return {
        stat: () => handle.stat(),
        close: () => { closed = true; return handle.close(); },
        createReadStream: () => (async function* () {
          yield Buffer.from(ok('a'));
          throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
        })(),
      };
    }) as unknown as typeof fs.open;
    let r: Awaited<ReturnType<typeof readFeedback>>;
    try {
      r = await readFeedback(abs, 'feedback_record.jsonl', opts());
    } finally {
      fs.open = realOpen;
    }
    assert.ok(r && r.feedback);
    assert.deepEqual(commandsOf(r.feedback.kept), ['a']);
    assert.deepEqual(r.diagnostics, [{ file: 'feedback_record.jsonl', message: 'cannot be read: EIO: i/o error, read' }]);
    assert.ok(closed, 'the file is closed');
  });

  it('leaves no descriptor open on the log, with blocking file access too', async function () {
    if (!existsSync('/proc/self/fd')) this.skip();
    const dir = await makeTempDir('feedback-pins-');
    const abs = path.join(dir, 'feedback_record.jsonl');
    await fs.writeFile(abs, [ok('a'), ok('b')].join(''));
    const openOnLog = async () => {
      const targets = await Promise.all((await fs.readdir('/proc/self/fd')).map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      const real = await fs.realpath(abs);
      return targets.filter((t) => t === real).length;
    };
    for (const blocking of [false, true]) {
      useBlockingFileAccess(blocking);
      try {
        assert.equal((await readFeedback(abs, 'feedback_record.jsonl', opts()))?.feedback?.total, 2);
      } finally {
        useBlockingFileAccess(false);
      }
      assert.equal(await openOnLog(), 0, blocking ? 'blocking' : 'non-blocking');
    }
  });
});
