import * as assert from 'node:assert/strict';
import { core } from './findingCore';
import { checkBranch } from '../../../src/core/clean/branchCheck';
import { checkFeatureBoard } from '../../../src/core/clean/featureBoard';
import { checkTempArtifacts } from '../../../src/core/clean/tempArtifacts';
import type { AddedLine } from '../../../src/core/gitPort';
import { cleanFacts, emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const SWITCH = 'Check out a branch (`git switch <branch>`, or `git switch -c <new-branch>` to keep these commits).';

describe('clean state: the branch check', () => {
  it('passes on the branch agent_state names, saying so', () => {
    const r = checkBranch({ facts: cleanFacts({ branch: 'feat' }), snapshot: snapshotWith({ agentState: { branch: 'feat' } }) });
    assert.deepEqual(r, { check: 'branch', title: 'Branch', passed: true, summary: 'On feat, as agent_state.json expects.', findings: [] });
  });

  it('without any expectation, names the branch, or the initial branch', () => {
    assert.equal(checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: emptySnapshot() }).summary, 'On main.');
    assert.equal(checkBranch({ facts: cleanFacts({ branch: null }), snapshot: emptySnapshot() }).summary, 'On the initial branch.');
  });

  it('another branch than agent_state expects is a finding that says how to fix either side', () => {
    const r = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: snapshotWith({ agentState: { branch: 'feat' } }), activePacketBranch: 'other' });
    assert.deepEqual(core(r.findings), [{
      check: 'branch', detail: 'On branch main, but agent_state.json expects feat.', fix: 'Switch to feat (`git switch feat`), or update agent_state.json `branch`.',
    }]);
    assert.equal(r.passed, false);
    assert.equal(r.summary, 'On branch main, but agent_state.json expects feat.');
  });

  it('falls back to the active packet branch when agent_state names none', () => {
    const r = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: snapshotWith({ agentState: { branch: '' } }), activePacketBranch: 'feat' });
    assert.deepEqual(core(r.findings), [{
      check: 'branch', detail: 'On branch main, but the active handoff packet expects feat.', fix: 'Switch to feat (`git switch feat`), or update the packet by generating a new one.',
    }]);
    const ok = checkBranch({ facts: cleanFacts({ branch: 'feat' }), snapshot: emptySnapshot(), activePacketBranch: 'feat' });
    assert.equal(ok.summary, 'On feat, as the active handoff packet expects.');
  });

  it('a detached HEAD is a finding with its short commit; with an expected branch the fix names it', () => {
    const plain = checkBranch({ facts: cleanFacts({ detached: true, branch: null, head: 'abcdef0123456789' }), snapshot: emptySnapshot() });
    assert.deepEqual(core(plain.findings), [{ check: 'branch', detail: 'HEAD is detached at abcdef0.', fix: SWITCH }]);
    const unknownHead = checkBranch({ facts: cleanFacts({ detached: true, branch: null, head: null }), snapshot: emptySnapshot() });
    assert.equal(unknownHead.findings[0]?.detail, 'HEAD is detached at an unknown commit.');
    const expected = checkBranch({ facts: cleanFacts({ detached: true, branch: null }), snapshot: snapshotWith({ agentState: { branch: 'feat' } }) });
    assert.deepEqual(expected.findings.map((f) => f.fix), ['Switch back to feat (`git switch feat`).']);
  });
});

const added = (path: string, text: string, line = 1): AddedLine => ({ path, line, text });
const options = { tempGlobs: ['**/*.tmp', 'scratch/**'], debugPatterns: ['console\\.log\\(', '(bad'] };

describe('clean state: the temp-artifacts check', () => {
  it('passes when nothing is left over, counting the added lines looked at', () => {
    const none = checkTempArtifacts({ files: ['src/a.ts'], addedLines: [], options, ownPaths: [] });
    assert.deepEqual({ ...none, invalidPatterns: undefined }, {
      check: 'temp-artifacts', title: 'Temp artifacts', passed: true, summary: 'No temp files, debug prints or commented-out code in 0 added lines.', findings: [], invalidPatterns: undefined,
    });
    const one = checkTempArtifacts({ files: [], addedLines: [added('src/a.ts', 'const a = 1;')], options, ownPaths: [] });
    assert.equal(one.summary, 'No temp files, debug prints or commented-out code in 1 added line.');
  });

  it('lists temporary files sorted, not the tool\'s own, singular and plural', () => {
    const r = checkTempArtifacts({ files: ['z.tmp', 'src/a.ts', 'scratch/x.py', 'out/handoff/h.tmp'], addedLines: [], options, ownPaths: ['out/handoff'] });
    assert.deepEqual(core(r.findings), [{
      check: 'temp-artifacts', detail: '2 temporary files: scratch/x.py, z.tmp.', paths: ['scratch/x.py', 'z.tmp'],
      fix: 'Delete them (or add them to .gitignore if they are meant to stay local).',
    }]);
    assert.equal(r.summary, '2 temporary files: scratch/x.py, z.tmp.');
    const one = checkTempArtifacts({ files: ['a.tmp'], addedLines: [], options, ownPaths: [] });
    assert.equal(one.findings[0]?.detail, '1 temporary file: a.tmp.');
  });

  it('names debug prints by place and quotes the first, cut at 60 characters; reports invalid patterns', () => {
    const long = `console.log(${'x'.repeat(80)})`;
    const r = checkTempArtifacts({
      files: [], ownPaths: ['gen'], options,
      addedLines: [added('src/a.ts', `  ${long}`, 3), added('src/a.ts', 'console.log(2)', 9), added('src/b.ts', 'console.log(3)', 1), added('gen/c.ts', 'console.log(4)')],
    });
    assert.deepEqual(core(r.findings), [{
      check: 'temp-artifacts',
      detail: `3 debug prints added this session: src/a.ts:3, src/a.ts:9, src/b.ts:1 (\`${long.slice(0, 60)}\`).`,
      paths: ['src/a.ts', 'src/b.ts'],
      fix: 'Remove the debug prints (or turn them into real logging) and commit.',
    }]);
    assert.deepEqual(r.invalidPatterns, ['(bad']);
    const one = checkTempArtifacts({ files: [], ownPaths: [], options, addedLines: [added('a.js', 'console.log(1)')] });
    assert.match(one.findings[0]!.detail, /^1 debug print added this session: a\.js:1 /);
  });

  it('names commented-out code blocks added this session', () => {
    const block = (path: string, from: number) => [0, 1, 2].map((i) => added(path, `// const x${i} = compute(${i});`, from + i));
    const r = checkTempArtifacts({ files: [], ownPaths: [], options: { tempGlobs: [], debugPatterns: [] }, addedLines: [...block('src/a.ts', 10), ...block('src/a.ts', 40)] });
    assert.equal(r.findings.length, 1);
    assert.match(r.findings[0]!.detail, /^2 commented-out code blocks added this session: src\/a\.ts:10, src\/a\.ts:40\.$/);
    assert.deepEqual(r.findings[0]!.paths, ['src/a.ts']);
    assert.equal(r.findings[0]!.fix, 'Delete the commented-out code; git keeps the history.');
    const one = checkTempArtifacts({ files: [], ownPaths: [], options: { tempGlobs: [], debugPatterns: [] }, addedLines: block('b.ts', 1) });
    assert.match(one.findings[0]!.detail, /^1 commented-out code block added this session: b\.ts:1\.$/);
  });
});

const boardFile = 'feature_list.json';
function board(features: unknown[], active?: string | null, feedback?: Parameters<typeof snapshotWith>[0]['feedback']) {
  return snapshotWith({ featureList: { ...(active !== undefined ? { active } : {}), features }, ...(feedback ? { feedback } : {}) });
}
const f = (id: string, status: string, done_when?: string) => ({ id, status, ...(done_when ? { done_when } : {}) });

describe('clean state: the feature-board check', () => {
  it('passes without a board', () => {
    assert.deepEqual(checkFeatureBoard(emptySnapshot()), { check: 'feature-board', title: 'Feature board', passed: true, summary: 'No feature board (feature_list.json) to check.', findings: [] });
  });

  it('passes a board that agrees with itself, saying what is in progress and how many are done', () => {
    const r = checkFeatureBoard(board([f('F-1', 'done'), f('F-2', 'in_progress'), f('F-3', 'done')], 'F-2'));
    assert.deepEqual(r, { check: 'feature-board', title: 'Feature board', passed: true, summary: 'The board agrees with itself: F-2 in progress, 2 done.', findings: [] });
    assert.equal(checkFeatureBoard(board([f('F-1', 'todo')])).summary, 'The board agrees with itself: nothing in progress, 0 done.');
    assert.equal(checkFeatureBoard(board([f('F-1', 'todo')], 'F-1')).passed, true);
  });

  it('more than one feature in progress is a finding naming them', () => {
    const r = checkFeatureBoard(board([f('A', 'in_progress'), f('B', 'in_progress')], 'A'));
    assert.deepEqual(core(r.findings), [{
      check: 'feature-board', detail: '2 features are in progress in feature_list.json (A, B); at most one may be.', paths: [boardFile],
      fix: 'Finish or pause all but one of A, B (status todo, blocked or done).',
    }]);
    assert.equal(r.summary, r.findings[0]!.detail);
  });

  it('an active id that is not on the board is a finding; the fix suggests the one in progress', () => {
    const one = checkFeatureBoard(board([f('A', 'in_progress')], 'Z'));
    assert.deepEqual(core(one.findings), [{
      check: 'feature-board', detail: 'feature_list.json says `active` is Z, but no feature has that id.', paths: [boardFile],
      fix: 'Set `active` to the feature being worked on (A), or add Z to the board.',
    }]);
    const none = checkFeatureBoard(board([f('A', 'todo')], 'Z'));
    assert.equal(none.findings[0]?.fix, 'Set `active` to the feature being worked on, or add Z to the board.');
  });

  it('an active feature that is done, or not the one in progress, is a finding', () => {
    const done = checkFeatureBoard(board([f('A', 'done')], 'A'));
    assert.deepEqual(core(done.findings), [{
      check: 'feature-board', detail: 'feature_list.json says `active` is A, but A is done.', paths: [boardFile], fix: 'Set `active` to the feature being worked on, or null.',
    }]);
    const other = checkFeatureBoard(board([f('A', 'todo'), f('B', 'in_progress')], 'A'));
    assert.deepEqual(other.findings.map((x) => [x.detail, x.fix]), [['feature_list.json says `active` is A, but A is todo while B is in progress.', 'Set `active` to B.']]);
    const blocked = checkFeatureBoard(board([f('A', 'blocked')], 'A'));
    assert.equal(blocked.passed, true);
  });

  it('no active feature while one is in progress is a finding', () => {
    for (const active of [undefined, null]) {
      const r = checkFeatureBoard(board([f('A', 'in_progress')], active));
      assert.deepEqual(core(r.findings), [{ check: 'feature-board', detail: 'feature_list.json has no `active` feature, but A is in progress.', paths: [boardFile], fix: 'Set `active` to A.' }]);
    }
  });

  it("a done feature whose done_when last failed or did not finish is a finding with the log's line", () => {
    const r = checkFeatureBoard(board(
      [f('A', 'done', 'npm  test'), f('B', 'done', 'make check'), f('C', 'done', 'ok cmd'), f('D', 'in_progress', 'npm test'), f('E', 'done')],
      'D',
      [{ command: 'ok cmd', exit_code: 0 }, { command: ['npm', 'test'], exit_code: 2 }, { command: 'make check', exit_code: null }],
    ));
    assert.deepEqual(core(r.findings), [
      {
        check: 'feature-board', detail: 'A is done, but its done_when command `npm test` last failed with exit 2 (feedback_record.jsonl line 2).', paths: [boardFile],
        fix: 'Re-run `npm test` until it passes, or set A back to in_progress.',
      },
      {
        check: 'feature-board', detail: 'B is done, but its done_when command `make check` last did not finish (feedback_record.jsonl line 3).', paths: [boardFile],
        fix: 'Re-run `make check` until it passes, or set B back to in_progress.',
      },
    ]);
  });
});
