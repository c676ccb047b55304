import * as assert from 'node:assert/strict';
import type { FeedbackRecord } from '../../../src/core/artifacts/schemas';
import type { IndexedRecord } from '../../../src/core/artifacts/snapshot';
import { commandsRun, failedAttempts, withMayHaveChanged } from '../../../src/core/packet/commands';
import { EXCERPT_MAX } from '../../../src/core/packet/excerpt';
import type { ChangedFile, FailedAttempt } from '../../../src/core/packet/schema';

const kept = (...records: FeedbackRecord[]): IndexedRecord[] => records.map((record, index) => ({ index, record }));
const attempt = (record: FeedbackRecord): FailedAttempt => {
  const [f] = failedAttempts(kept(record));
  assert.ok(f, 'the record is a failed attempt');
  return f;
};
const excerptOf = (record: FeedbackRecord): string => attempt(record).excerpt;
/** `n` distinct plain lines of 19 characters: 20 with the line break. */
const lines = (tag: string, n: number): string => Array.from({ length: n }, (_, i) => `${tag} line ${String(i).padStart(2, '0')} `.padEnd(19, '.')).join('\n');
const changed = (...paths: string[]): ChangedFile[] => paths.map((path) => ({ path, kind: 'modified' as const }));
/** The changed files an uncertain run of `command` (with `output`) is said to have touched, named ones first. */
const mayHaveChanged = (command: string, paths: string[], output = ''): string[] | undefined =>
  withMayHaveChanged(failedAttempts(kept({ command, exit_code: null, stdout_tail: output })), changed(...paths))[0]!.may_have_changed;

describe('commands in the packet: notes, excerpts and what an unfinished command may have changed', () => {
  it('an agent note is kept trimmed, and a blank one is no note', () => {
    const runs = commandsRun(kept({ command: 'a', exit_code: 0, agent_note: '  cache warmed  ' }, { command: 'b', exit_code: 0, agent_note: '   ' }, { command: 'c', exit_code: 0 }));
    assert.deepEqual(runs.map((r) => r.note), ['cache warmed', null, null]);
    assert.equal(attempt({ command: 'a', exit_code: 1, agent_note: ' flaky? ' }).note, 'flaky?');
    assert.equal(attempt({ command: 'a', exit_code: 1, agent_note: ' \n ' }).note, null);
  });

  describe('a plain failure', () => {
    it('joins the error, stderr and stdout line by line', () => {
      assert.equal(excerptOf({ command: 'make', exit_code: 2, error: 'make: *** [all] Error 2', stderr_tail: 'cc: error: no input files' }), 'make: *** [all] Error 2\ncc: error: no input files');
      assert.equal(excerptOf({ command: 'x', exit_code: 1, stderr_tail: 'first step', stdout_tail: 'second step' }), 'first step\nsecond step');
    });

    it('without output says so, with the exit code', () => {
      assert.equal(excerptOf({ command: 'x', exit_code: 3 }), 'exit 3 with no output recorded');
      assert.equal(excerptOf({ command: 'x', exit_code: 3, stdout_tail: ' \n ', stderr_tail: '' }), 'exit 3 with no output recorded');
      assert.equal(excerptOf({ command: 'x', exit_code: 3, error: null, stderr_tail: null, stdout_tail: null }), 'exit 3 with no output recorded');
      assert.equal(excerptOf({ command: 'x', exit_code: 3, error: null, stderr_tail: 'halted', stdout_tail: null }), 'halted');
    });

    it('is certain, and has no list of files it may have changed', () => {
      const [f] = withMayHaveChanged(failedAttempts(kept({ command: 'pytest a.py', exit_code: 1, stdout_tail: '1 failed' })), changed('a.py'));
      assert.equal(f!.uncertain, false);
      assert.ok(!('may_have_changed' in f!));
    });
  });

  describe('an unfinished command', () => {
    it('gives the first line of its error as the reason, else why it stopped', () => {
      assert.match(excerptOf({ command: 'x', exit_code: null, error: '\n  timeout after 5s\nmore' }), /^timeout after 5s; no partial output recorded$/);
      assert.equal(excerptOf({ command: 'x', exit_code: 137 }), 'stopped by a signal (exit 137); no partial output recorded');
      assert.equal(excerptOf({ command: 'x', exit_code: null }), 'did not complete; no partial output recorded');
      assert.equal(excerptOf({ command: 'x', exit_code: null, stdout_tail: '  ', stderr_tail: '\n' }), 'did not complete; no partial output recorded');
    });

    it('keeps the tail of each stream, stdout then stderr, one per line', () => {
      assert.equal(excerptOf({ command: 'x', exit_code: 143, stdout_tail: 'seeding', stderr_tail: 'Terminated' }), 'stopped by a signal (exit 143)\npartial output:\nseeding\nTerminated');
      // A stream of nothing but separators leaves no line of its own.
      assert.equal(excerptOf({ command: 'x', exit_code: null, stdout_tail: 'seeding', stderr_tail: '==========' }), 'did not complete\npartial output:\nseeding');
      assert.equal(excerptOf({ command: 'x', exit_code: null, stdout_tail: '----------' }), 'did not complete; no partial output recorded');
    });

    it('fills, but never passes, the excerpt limit: one stream alone, or two sharing it', () => {
      for (const record of [
        { command: 'x', exit_code: null, stdout_tail: lines('out', 40) },
        { command: 'x', exit_code: null, stdout_tail: lines('out', 40), stderr_tail: ' \n ' },
        { command: 'x', exit_code: null, stdout_tail: lines('out', 40), stderr_tail: lines('err', 40) },
      ]) {
        const e = excerptOf(record);
        assert.ok(e.length <= EXCERPT_MAX && e.length > EXCERPT_MAX - 20, `${e.length}: ${e}`);
      }
      const both = excerptOf({ command: 'x', exit_code: null, stdout_tail: lines('out', 40), stderr_tail: lines('err', 40) });
      assert.match(both, /\nout line 39 \.+\nerr line 31 [^]*err line 39 \.+$/);
    });
  });

  describe('what an unfinished command may have changed', () => {
    // Issue 20 item 6: only the files it names, and the files edited after it before the next command.
    it('the files its command or output names, by path, name or distinctive stem; never every changed file', () => {
      assert.deepEqual(mayHaveChanged('python tools/fix.py --out data/fixed.json', ['a/one.txt', 'data/fixed.json', 'tools/fix.py']), ['data/fixed.json']);
      assert.deepEqual(mayHaveChanged('run fix.py', ['a/one.txt', 'tools/fix.py']), ['tools/fix.py']);
      assert.deepEqual(mayHaveChanged('run', ['a/one.txt', 'src/refund.test.ts'], 'checking refund.test'), ['src/refund.test.ts']);
      assert.deepEqual(mayHaveChanged('make seed', ['a/one.txt', 'db/seed.sql']), ['db/seed.sql']);
    });

    it('never the script a command ran, and nothing for a read-only command (issue 33)', () => {
      assert.deepEqual(mayHaveChanged('python tools/fix.py', ['a/one.txt', 'tools/fix.py']), []);
      assert.deepEqual(mayHaveChanged('bash scripts/export-session.sh .', ['scripts/export-session.sh', 'session.jsonl']), []);
      // An unfinished read-only command is no uncertain work at all: it changed nothing.
      assert.deepEqual(failedAttempts(kept({ command: "sed -n '1,220p' src/app.ts", exit_code: null })), []);
      assert.deepEqual(failedAttempts(kept({ command: 'cat src/app.ts | head -50', exit_code: null })), []);
      assert.deepEqual(withMayHaveChanged([{ index: 0, command: 'cat src/app.ts', outcome: 'error', exit_code: null, note: null, excerpt: 'x', uncertain: true }], changed('src/app.ts'))[0]!.may_have_changed, []);
    });

    it('a stem shorter than four characters, or a file nobody named, is not listed', () => {
      assert.deepEqual(mayHaveChanged('run a b', ['db/z.txt', 'db/a.py']), []);
      assert.deepEqual(mayHaveChanged('run fix_py', ['a/one.txt', 'tools/fix.py']), []);
      assert.deepEqual(mayHaveChanged('make all', ['a/one.txt', 'Makefile', 'src/refund.ts']), []);
    });

    it('adds the files edited after it and before the next command, named ones first, no duplicates', () => {
      const f = failedAttempts(kept({ command: 'python tools/fix.py', exit_code: null }));
      const edited = { [f[0]!.index]: ['db/z.txt', 'tools/fix.py'], [f[0]!.index + 1]: ['late.txt'] };
      assert.deepEqual(withMayHaveChanged(f, changed('a/one.txt', 'db/z.txt', 'tools/fix.py', 'late.txt'), edited)[0]!.may_have_changed, ['db/z.txt', 'tools/fix.py']);
    });

    it('lists at most eight files', () => {
      const paths = Array.from({ length: 10 }, (_, i) => `src/f${i}.ts`);
      assert.deepEqual(mayHaveChanged(`build ${paths.join(' ')}`, paths), paths.slice(0, 8));
      assert.deepEqual(mayHaveChanged('build src/f9.ts', paths), ['src/f9.ts']);
    });
  });
});
