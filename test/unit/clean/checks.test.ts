import * as assert from 'node:assert/strict';
import { checkBranch } from '../../../src/core/clean/branchCheck';
import { evaluateClean } from '../../../src/core/clean/evaluate';
import { checkFeatureBoard } from '../../../src/core/clean/featureBoard';
import type { CleanInputs } from '../../../src/core/clean/inputs';
import { checkTempArtifacts } from '../../../src/core/clean/tempArtifacts';
import { checkTests } from '../../../src/core/clean/testsCheck';
import { checkWorkingTree } from '../../../src/core/clean/workingTree';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { cleanFacts, emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const own = ['outputs/handoff', 'context_usage.json'];

function inputs(over: Partial<CleanInputs> = {}): CleanInputs {
  return { facts: cleanFacts(), addedLines: [], files: [], snapshot: emptySnapshot(), options: DEFAULT_OPTIONS, ownPaths: own, ...over };
}

describe('clean-state checks (pure)', () => {
  describe('working tree', () => {
    it('passes when clean, ignoring the tool outputs, with stashes that have a message', () => {
      const r = checkWorkingTree({
        facts: cleanFacts({
          status: [
            { path: 'outputs/handoff/s1/handoff.json', kind: 'untracked', staged: false },
            { path: 'context_usage.json', kind: 'modified', staged: false },
          ],
          stashes: [{ ref: 'stash@{0}', message: 'On main: half-done refactor' }],
        }),
        ownPaths: own,
      });
      assert.equal(r.passed, true);
      assert.match(r.summary, /committed/);
    });
    it('fails on uncommitted, untracked, an anonymous stash and an operation in progress', () => {
      const r = checkWorkingTree({
        facts: cleanFacts({
          status: [
            { path: 'src/a.ts', kind: 'modified', staged: false },
            { path: 'notes.tmp', kind: 'untracked', staged: false },
          ],
          operation: 'rebase',
          stashes: [{ ref: 'stash@{0}', message: 'WIP on main: abc123 subject' }],
        }),
        ownPaths: own,
      });
      assert.equal(r.passed, false);
      assert.deepEqual(r.findings.map((f) => f.paths ?? []), [[], ['src/a.ts'], ['notes.tmp'], []]);
      assert.match(r.findings[0]?.fix ?? '', /rebase --abort/);
    });
  });

  it('caps the paths a finding carries but counts them all', () => {
    const status = Array.from({ length: 150 }, (_, i) => ({ path: `gen/f${i}.js`, kind: 'untracked' as const, staged: false }));
    const r = checkWorkingTree({ facts: cleanFacts({ status }), ownPaths: own });
    assert.equal(r.findings[0]?.paths?.length, 100);
    assert.match(r.findings[0]?.detail ?? '', /^150 untracked files: .* and 145 more\.$/);
  });

  describe('temp artifacts', () => {
    it('flags temp files and debug prints and commented-out blocks in added lines only', () => {
      const r = checkTempArtifacts(inputs({
        files: ['src/a.ts', 'notes.tmp', 'deep/x/file.orig', 'scratch/try.py', 'outputs/handoff/.handoff.json.1.tmp'],
        addedLines: [
          { path: 'src/a.ts', line: 3, text: '  console.log(order);' },
          { path: 'app.py', line: 9, text: 'print(total)' },
          { path: 'README.md', line: 2, text: 'call console.log(x) to debug' },
          { path: 'src/b.ts', line: 10, text: '// const x = compute();' },
          { path: 'src/b.ts', line: 11, text: '// if (x > 1) {' },
          { path: 'src/b.ts', line: 12, text: '//   return x;' },
          { path: 'src/c.py', line: 1, text: '# This module explains' },
          { path: 'src/c.py', line: 2, text: '# why refunds round down' },
          { path: 'src/c.py', line: 3, text: '# and nothing else' },
        ],
      }));
      assert.equal(r.passed, false);
      assert.deepEqual(r.findings[0]?.paths, ['deep/x/file.orig', 'notes.tmp', 'scratch/try.py']);
      assert.deepEqual(r.findings[1]?.paths, ['src/a.ts', 'app.py']);
      assert.match(r.findings[1]?.detail ?? '', /src\/a\.ts:3/);
      assert.deepEqual(r.findings[2]?.paths, ['src/b.ts']);
      assert.equal(r.findings.length, 3);
    });
    it('passes with no temp files and clean added lines, and reports an invalid pattern', () => {
      const r = checkTempArtifacts(inputs({
        files: ['src/a.ts'],
        addedLines: [{ path: 'src/a.ts', line: 1, text: 'export const total = 1;' }],
        options: { tempGlobs: DEFAULT_OPTIONS.tempGlobs, debugPatterns: ['console\\.log\\(', '(unclosed'] },
      }));
      assert.equal(r.passed, true);
      assert.deepEqual(r.invalidPatterns, ['(unclosed']);
      assert.match(r.summary, /1 added line/);
    });
  });

  describe('tests, green beside an older failure', () => {
    it('says the check is green because the latest run passed while the next action names the newest failure', () => {
      const r = checkTests(snapshotWith({
        feedback: [
          { command: ['pytest', '-k', 'partial'], exit_code: 1 },
          { command: 'ruff check .', exit_code: 0 },
          { command: 'pytest tests/test_refund.py', exit_code: 0 },
        ],
      }));
      assert.equal(r.passed, true);
      assert.match(r.summary, /^The latest test run passed: `pytest tests\/test_refund\.py` \(feedback_record\.jsonl line 3\)\./);
      assert.match(r.summary, /Green because the latest run passed; the newest failure, `pytest -k partial` \(line 1\), is still named as the next action\./);
      assert.match(r.note ?? '', /^Green because the latest run passed/, 'a view can show the note apart');
    });

    it('says nothing more when the failure was fixed, is not the next action, or came after the green run', () => {
      const fixed = checkTests(snapshotWith({ feedback: [{ command: 'pytest -k partial', exit_code: 1 }, { command: 'pytest -k partial', exit_code: 0 }] }));
      assert.doesNotMatch(fixed.summary, /newest failure/);
      const otherNext = checkTests(snapshotWith({
        agentState: { next_action: 'Write the migration for refunds' },
        feedback: [{ command: 'pytest -k partial', exit_code: 1 }, { command: 'pytest', exit_code: 0 }],
      }));
      assert.doesNotMatch(otherNext.summary, /newest failure/);
      const named = checkTests(snapshotWith({
        agentState: { next_action: 'Fix pytest -k partial (float rounding)' },
        feedback: [{ command: 'pytest -k partial', exit_code: 1 }, { command: 'pytest', exit_code: 0 }],
      }));
      assert.match(named.summary, /newest failure, `pytest -k partial`/);
      const after = checkTests(snapshotWith({ feedback: [{ command: 'pytest -k partial', exit_code: 1 }, { command: 'pytest', exit_code: 0 }, { command: 'curl x', exit_code: 7 }] }));
      assert.doesNotMatch(after.summary, /newest failure/);
    });
  });

  describe('tests', () => {
    const red = { command: ['pytest', 'tests/test_refund.py::test_partial'], exit_code: 1 };
    it('passes when the newest test run is green', () => {
      const r = checkTests(snapshotWith({ feedback: [red, { command: 'pytest tests/test_refund.py', exit_code: 0 }] }));
      assert.equal(r.passed, true);
      assert.match(r.summary, /passed/);
    });
    it('passes when red and named in open_risks by its test file', () => {
      const r = checkTests(snapshotWith({
        feedback: [red],
        agentState: { open_risks: [{ id: 'r1', detail: 'tests/test_refund.py still fails on rounding' }] },
      }));
      assert.equal(r.passed, true);
      assert.match(r.summary, /open risks name it/);
    });
    it('fails when red and not named, and when a run timed out unnamed', () => {
      const r = checkTests(snapshotWith({ feedback: [red], agentState: { open_risks: ['gateway flaky'] } }));
      assert.equal(r.passed, false);
      assert.match(r.findings[0]?.detail ?? '', /exit 1.*pytest tests\/test_refund.py::test_partial/);
      const t = checkTests(snapshotWith({ feedback: [{ command: 'go test ./...', exit_code: null, error: 'timeout after 30 s' }] }));
      assert.equal(t.passed, false);
      assert.match(t.summary, /did not finish \(timeout after 30 s\)/);
    });
    it('is unknown (neutral, no finding) when no test run is recorded anywhere, and says how to get one', () => {
      const r = checkTests(snapshotWith({ feedback: [{ command: 'ls', exit_code: 0 }] }));
      assert.equal(r.unknown, true);
      assert.equal(r.passed, true);
      assert.deepEqual(r.findings, []);
      // Says why the recorded command did not count, so a custom test script is understood.
      assert.match(r.summary, /none of the 1 command in feedback_record\.jsonl looks like a test run \(pytest, npm test/);
      assert.match(r.summary, /handoff record -- <test command>/);
      const none = checkTests(emptySnapshot());
      assert.equal(none.unknown, true);
      assert.match(none.summary, /^Unknown: no test run is recorded/);
      // A recorded run is never unknown.
      assert.equal(checkTests(snapshotWith({ feedback: [{ command: 'npm test', exit_code: 1 }] })).unknown, undefined);
    });
  });

  describe('feature board', () => {
    const features = [
      { id: 'T-1', status: 'done', done_when: 'pytest tests/test_a.py' },
      { id: 'T-2', status: 'in_progress' },
    ];
    it('passes when one feature is in progress and active agrees', () => {
      const r = checkFeatureBoard(snapshotWith({ featureList: { active: 'T-2', features }, feedback: [{ command: ['pytest', 'tests/test_a.py'], exit_code: 0 }] }));
      assert.equal(r.passed, true);
      assert.match(r.summary, /T-2 in progress/);
      assert.equal(checkFeatureBoard(emptySnapshot()).passed, true);
    });
    it('fails on two in_progress features', () => {
      const r = checkFeatureBoard(snapshotWith({ featureList: { active: 'T-2', features: [...features, { id: 'T-3', status: 'in_progress' }] } }));
      assert.equal(r.passed, false);
      assert.match(r.findings[0]?.detail ?? '', /2 features are in progress.*T-2, T-3/);
    });
    it('fails when active disagrees, is missing, or a done feature last failed its done_when', () => {
      assert.match(checkFeatureBoard(snapshotWith({ featureList: { active: 'T-1', features } })).summary, /T-1 is done while T-2 is in progress/);
      assert.match(checkFeatureBoard(snapshotWith({ featureList: { active: 'T-9', features } })).summary, /no feature has that id/);
      assert.match(checkFeatureBoard(snapshotWith({ featureList: { active: null, features } })).summary, /no `active`/);
      const r = checkFeatureBoard(snapshotWith({ featureList: { active: 'T-2', features }, feedback: [{ command: ['pytest', 'tests/test_a.py'], exit_code: 2 }] }));
      assert.equal(r.passed, false);
      assert.match(r.findings[0]?.detail ?? '', /T-1 is done, but .* last failed with exit 2/);
    });
  });

  describe('branch', () => {
    it('passes on the expected branch', () => {
      const r = checkBranch({ facts: cleanFacts({ branch: 'feat/x' }), snapshot: snapshotWith({ agentState: { branch: 'feat/x' } }) });
      assert.equal(r.passed, true);
      assert.match(r.summary, /On feat\/x, as agent_state.json expects/);
    });
    it('fails on a detached HEAD and on a branch other than agent_state or the active packet', () => {
      assert.equal(checkBranch({ facts: cleanFacts({ branch: null, detached: true }), snapshot: emptySnapshot() }).passed, false);
      const r = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: snapshotWith({ agentState: { branch: 'feat/x' } }) });
      assert.match(r.findings[0]?.detail ?? '', /On branch main, but agent_state.json expects feat\/x/);
      const p = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: emptySnapshot(), activePacketBranch: 'feat/y' });
      assert.match(p.summary, /active handoff packet expects feat\/y/);
    });
  });

  it('evaluateClean gathers all five in order and is clean only with no findings', () => {
    const unknown = evaluateClean(inputs());
    assert.deepEqual(unknown.checks.map((c) => c.check), ['working-tree', 'temp-artifacts', 'tests', 'feature-board', 'branch']);
    assert.equal(unknown.clean, true); // no test run recorded: unknown, which is not dirt
    const dirty = evaluateClean(inputs({ snapshot: snapshotWith({ feedback: [{ command: 'npm test', exit_code: 1 }] }) }));
    assert.equal(dirty.clean, false);
    const clean = evaluateClean(inputs({ snapshot: snapshotWith({ feedback: [{ command: 'npm test', exit_code: 0 }] }) }));
    assert.equal(clean.clean, true);
    assert.deepEqual(clean.findings, []);
    assert.ok(clean.checks.every((c) => c.summary.length > 0));
  });
});
