import * as assert from 'node:assert/strict';
import { isCompoundCommand, namedCommand, stepForFailure } from '../../../src/core/packet/failureStep';
import type { FailedAttempt } from '../../../src/core/packet/schema';

const failed = (over: Partial<FailedAttempt> = {}): FailedAttempt => ({
  index: 3, command: 'pytest tests/test_refund.py', outcome: 'failed', exit_code: 1, note: null,
  excerpt: 'FAILED test_partial', uncertain: false, ...over,
});

const uncertain = (over: Partial<FailedAttempt> = {}): FailedAttempt =>
  failed({ command: 'python scripts/migrate.py', outcome: 'timeout', exit_code: null, excerpt: 'timeout after 120.0s\npartial output:\napplying 0008', uncertain: true, ...over });

/** The part of an inspection step that quotes where the output stopped ('' when it quotes nothing). */
const stoppedAt = (step: string): string => /; its output stopped at "(.*)"\. It /.exec(step)?.[1] ?? '';

describe('the next step derived from a failed command', () => {
  describe('a plain failure: fix the cause, then run it again', () => {
    it('a simple command is named in a code span, with its exit code and the first line of its excerpt', () => {
      assert.equal(stepForFailure(failed({ excerpt: 'FAILED test_partial\nE assert 1999.99 == 2000' })),
        'Fix the cause and re-run `pytest tests/test_refund.py` (it failed with exit 1: FAILED test_partial).');
    });

    it('an unknown exit code is said to be unknown', () => {
      assert.equal(stepForFailure(failed({ exit_code: null })), 'Fix the cause and re-run `pytest tests/test_refund.py` (it failed with exit unknown: FAILED test_partial).');
    });

    it('the first line is the first non-blank one, trimmed', () => {
      assert.match(stepForFailure(failed({ excerpt: '\n   \n    FAILED test_partial   \nE assert' })), /\(it failed with exit 1: FAILED test_partial\)\.$/);
    });

    it('a first line longer than 160 characters is cut at 160', () => {
      const long = `E ${'x'.repeat(300)}`;
      const step = stepForFailure(failed({ excerpt: long }));
      assert.ok(step.includes(`exit 1: ${long.slice(0, 160)})`), step);
    });

    it('backticks of the output become single quotes (a run of them one quote): no code span comes from output', () => {
      const step = stepForFailure(failed({ excerpt: "assertion `left == right` failed; see ``cargo test``" }));
      assert.ok(step.endsWith("exit 1: assertion 'left == right' failed; see 'cargo test')."), step);
    });

    it('a compound command is named as a record entry and never offered to run as it is', () => {
      const step = stepForFailure(failed({ command: 'npm ci && npm test', exit_code: 2, excerpt: 'npm error Missing script' }));
      assert.equal(step, 'Fix the cause of failed attempt #3 (a compound shell command, kept as data in the record) (exit 2: npm error Missing script), then run the commands it chains one at a time; do not run the recorded line as it is.');
    });
  });

  describe('an uncertain outcome: inspect first, never run it again from the start', () => {
    const how = (f: FailedAttempt): string => /\. It (.*) and may have partly applied/.exec(stepForFailure(f))?.[1] ?? '';

    it('says how it ended: timed out, did not complete, or was stopped with its exit code', () => {
      assert.equal(how(uncertain({ outcome: 'timeout' })), 'timed out');
      assert.equal(how(uncertain({ outcome: 'error' })), 'did not complete');
      assert.equal(how(uncertain({ outcome: 'failed', exit_code: 137 })), 'was stopped (exit 137)');
      assert.equal(how(uncertain({ outcome: 'failed', exit_code: null })), 'was stopped (exit unknown)');
    });

    it('the whole step: what may have changed, where the output stopped, and to finish only what is missing', () => {
      assert.equal(stepForFailure(uncertain({ may_have_changed: ['db/schema.sql'] })),
        'Inspect what `python scripts/migrate.py` may have changed before anything else: the files it may have changed (db/schema.sql); ' +
        'its output stopped at "applying 0008". It timed out and may have partly applied: finish only the steps that are missing instead of running it again from the start.');
    });

    it('names at most four files it may have changed, with an ellipsis only when there are more', () => {
      const files = (f: FailedAttempt): string => /before anything else: (.*?)(; its output|\. It )/.exec(stepForFailure(f))?.[1] ?? '';
      assert.equal(files(uncertain({ may_have_changed: ['a.py', 'b.py', 'c.py', 'd.py'] })), 'the files it may have changed (a.py, b.py, c.py, d.py)');
      assert.equal(files(uncertain({ may_have_changed: ['a.py', 'b.py', 'c.py', 'd.py', 'e.py'] })), 'the files it may have changed (a.py, b.py, c.py, d.py, …)');
      assert.equal(files(uncertain({ may_have_changed: [] })), 'the working tree and whatever it writes to');
      assert.equal(files(uncertain({})), 'the working tree and whatever it writes to');
    });

    it('quotes the last non-blank line of the partial output, trimmed and cut at 120 characters', () => {
      assert.equal(stoppedAt(stepForFailure(uncertain({ excerpt: 'timeout after 120.0s\npartial output:\napplying 0007\n    Continue? [y/N]   \n\n' }))), 'Continue? [y/N]');
      const long = 'y'.repeat(200);
      assert.equal(stoppedAt(stepForFailure(uncertain({ excerpt: `timed out\npartial output:\n${long}` }))), long.slice(0, 120));
      assert.equal(stoppedAt(stepForFailure(uncertain({ excerpt: 'timed out\npartial output:\n``rm -rf build``' }))), "'rm -rf build'");
    });

    it('quotes nothing when there is no partial output: only a reason line, or an empty header', () => {
      for (const excerpt of ['timeout after 120.0s; no partial output recorded', 'timeout after 120.0s\npartial output:', 'timed out\nPartial output (stdout):', 'timed out\npartial output:\n\n']) {
        const step = stepForFailure(uncertain({ excerpt }));
        assert.ok(!step.includes('stopped at'), `${excerpt} → ${step}`);
        assert.match(step, /before anything else: the working tree and whatever it writes to\. It timed out/);
      }
    });

    it('the reason line is never taken for output, even when it is empty', () => {
      assert.equal(stoppedAt(stepForFailure(uncertain({ excerpt: '\npartial output:\nwrote 10 rows' }))), 'wrote 10 rows');
    });

    it('only the header line is dropped: output that mentions "partial output" is quoted as it is', () => {
      assert.equal(stoppedAt(stepForFailure(uncertain({ excerpt: 'timed out\npartial output:\nflushing partial output to disk' }))), 'flushing partial output to disk');
      assert.equal(stoppedAt(stepForFailure(uncertain({ excerpt: 'timed out\nflushing partial output to disk' }))), 'flushing partial output to disk');
    });
  });

  it('compound commands: chained, piped, or with a substitution', () => {
    for (const c of ['a; b', 'a && b', 'a || b', 'a | b', 'echo $(date)', 'echo `date`', 'a\nb']) assert.ok(isCompoundCommand(c), c);
    assert.ok(!isCompoundCommand('pytest -k "refund and partial"'));
    assert.equal(namedCommand(failed({ command: 'make test' })), '`make test`');
  });
});
