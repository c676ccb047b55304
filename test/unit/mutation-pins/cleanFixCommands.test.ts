import * as assert from 'node:assert/strict';
import type { SessionSummary, WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { checkBranch } from '../../../src/core/clean/branchCheck';
import { testTargets } from '../../../src/core/clean/command';
import { fixOffer } from '../../../src/core/clean/fixOffer';
import { globMatcher, globToRegExp, isUnder } from '../../../src/core/clean/glob';
import { checkTempArtifacts } from '../../../src/core/clean/tempArtifacts';
import type { CleanFinding } from '../../../src/core/clean/types';
import { checkWorkingTree } from '../../../src/core/clean/workingTree';
import type { AddedLine, StatusEntry } from '../../../src/core/gitPort';
import { cleanFacts, emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

/** What Apply Fix offers for the only finding of a check. */
function offerOf(findings: readonly CleanFinding[]): ReturnType<typeof fixOffer> {
  assert.equal(findings.length, 1);
  return fixOffer(findings[0]!);
}
const run = (...commands: string[]) => ({ kind: 'commands', commands: commands.map((command) => ({ command, how: 'run' })) });

describe('clean state: what Apply Fix offers for working-tree findings', () => {
  for (const [operation, commands] of [
    ['merge', ['git commit', 'git merge --abort']],
    ['rebase', ['git rebase --continue', 'git rebase --abort']],
    ['cherry-pick', ['git cherry-pick --continue', 'git cherry-pick --abort']],
    ['revert', ['git revert --continue', 'git revert --abort']],
    ['bisect', ['git bisect reset']],
  ] as const) {
    it(`a ${operation} half done offers to run the commands that end it`, () => {
      assert.deepEqual(offerOf(checkWorkingTree({ facts: cleanFacts({ operation }), ownPaths: [] }).findings), run(...commands));
    });
  }

  it('uncommitted changes offer a stash with a message to type in; untracked files only advice', () => {
    const entry = (path: string, kind: StatusEntry['kind']): StatusEntry => ({ path, kind, staged: false });
    const changed = checkWorkingTree({ facts: cleanFacts({ status: [entry('a.ts', 'modified')] }), ownPaths: [] });
    assert.deepEqual(offerOf(changed.findings), { kind: 'commands', commands: [{ command: 'git stash push -m "<why>"', how: 'type' }] });
    const untracked = checkWorkingTree({ facts: cleanFacts({ status: [entry('n.txt', 'untracked')] }), ownPaths: [] });
    assert.deepEqual(offerOf(untracked.findings), { kind: 'advice', text: 'Commit them, delete them, or add them to .gitignore.' });
  });
});

const session: SessionSummary = {
  agent: 'claude-code', sessionId: '7f3e2a91', label: 'claude:7f3e2a91', displayName: 'Claude Code session 7f3e2a91', file: 's.jsonl',
  firstUserRequest: null, latestUserRequest: null, lastAssistantMessage: null, rejectedCount: 0,
};
/** agent_state says `branch`, and `origin` says where that came from (the merge records it). */
function branchFrom(branch: string, origin: string): WorkbenchSnapshot {
  return { ...snapshotWith({ agentState: { branch } }), session, origins: { branch: origin } };
}

describe('clean state: the branch check, its sources and its fix commands', () => {
  it('a branch the agent session worked on is named as the session\'s', () => {
    const r = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: branchFrom('feat/refund', 'claude:7f3e2a91') });
    assert.equal(r.passed, false);
    assert.deepEqual(r.findings.map((f) => [f.detail, f.fix]), [[
      'On branch main, but the Claude Code session 7f3e2a91 expects feat/refund.',
      'Switch to feat/refund (`git switch feat/refund`), the branch the agent worked on.',
    ]]);
    assert.deepEqual(offerOf(r.findings), run('git switch feat/refund'));
    const there = checkBranch({ facts: cleanFacts({ branch: 'feat/refund' }), snapshot: branchFrom('feat/refund', 'claude:7f3e2a91') });
    assert.equal(there.summary, 'On feat/refund, as the Claude Code session 7f3e2a91 expects.');
  });

  it('with a session beside it, a branch agent_state.json set itself stays agent_state.json\'s', () => {
    const r = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: branchFrom('feat', 'agent_state.json') });
    assert.deepEqual(r.findings.map((f) => [f.detail, f.fix]), [[
      'On branch main, but agent_state.json expects feat.', 'Switch to feat (`git switch feat`), or update agent_state.json `branch`.',
    ]]);
  });

  it('an empty agent_state branch is not the session\'s: the active packet decides', () => {
    const r = checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: branchFrom('', 'claude:7f3e2a91'), activePacketBranch: 'feat' });
    assert.equal(r.findings[0]?.detail, 'On branch main, but the active handoff packet expects feat.');
  });

  it('a detached HEAD offers a branch to type in, or the expected branch to run', () => {
    const detached = cleanFacts({ detached: true, branch: null });
    assert.deepEqual(offerOf(checkBranch({ facts: detached, snapshot: emptySnapshot() }).findings), {
      kind: 'commands', commands: [{ command: 'git switch <branch>', how: 'type' }, { command: 'git switch -c <new-branch>', how: 'type' }],
    });
    const back = checkBranch({ facts: detached, snapshot: snapshotWith({ agentState: { branch: 'feat' } }) });
    assert.deepEqual(offerOf(back.findings), run('git switch feat'));
  });
});

const added = (path: string, text: string, line = 1): AddedLine => ({ path, line, text });
const noTemp = { tempGlobs: [], debugPatterns: ['console\\.log\\(', '\\bprint\\('] };
const prints = (...lines: AddedLine[]) => checkTempArtifacts({ files: [], ownPaths: [], options: noTemp, addedLines: lines });

describe('clean state: prints in the temp-artifacts check', () => {
  it('prints that may be output are a doubtful finding that does not fail the check', () => {
    const r = prints(added('src/report.py', 'print("Total:", total)', 4), added('src/report.py', 'print("Count:", n)', 9), added('src/cli_help.py', 'print("usage: refund ID")', 2));
    assert.equal(r.passed, true);
    const detail = '3 prints added this session that may be debugging or may be meant as output: src/report.py:4, src/report.py:9, src/cli_help.py:2 (`print("Total:", total)`).';
    assert.deepEqual(r.findings.map(({ detail, paths, fix, severity }) => ({ detail, paths, fix, severity })), [{
      detail, paths: ['src/report.py', 'src/cli_help.py'], fix: "Remove them if they were for debugging; keep them if they are the program's output.", severity: 'warn',
    }]);
    assert.equal(r.summary, detail);
    const one = prints(added('src/report.py', 'print("Total:", total)', 4));
    assert.equal(one.findings[0]?.detail, '1 print added this session that may be debugging or may be meant as output: src/report.py:4 (`print("Total:", total)`).');
  });

  it('quotes a print holding backticks in a longer fence, padded only when a backtick is at an end', () => {
    const quote = (text: string) => prints(added('src/a.ts', text)).findings[0]!.detail.replace(/^.*src\/a\.ts:1 \((.*)\)\.$/, '$1');
    assert.equal(quote('console.log(`x`)'), '``console.log(`x`)``');
    assert.equal(quote('console.log(``)'), '```console.log(``)```');
    assert.equal(quote('console.log(`'), '`` console.log(` ``');
    assert.equal(quote('console.log(x)'), '`console.log(x)`');
  });
});

describe('clean state: glob and path edges', () => {
  it('a glob without a slash matches whole file names, not their ends', () => {
    assert.ok(globToRegExp('build').test('out/build'));
    assert.ok(!globToRegExp('build').test('rebuild'));
    assert.ok(!globToRegExp('build').test('src/rebuild'));
  });

  it('`**` inside a name spans folders but does not swallow the slash after it', () => {
    assert.ok(globToRegExp('foo**/x').test('foo/a/x'));
    assert.ok(!globToRegExp('foo**/x').test('foox'));
  });

  it('blank globs in the settings match nothing, not even a folder git lists as untracked', () => {
    const m = globMatcher(['', '  ', '*.bak']);
    assert.ok(!m('build/'));
    assert.ok(!m('  '));
    assert.ok(!m('src/  '));
    assert.ok(m('x.bak'));
  });

  it('a folder setting with several trailing slashes still holds its files', () => {
    assert.ok(isUnder('out/handoff/a.json', 'out/handoff//'));
  });
});

describe('clean state: test targets of a command', () => {
  it('strips only a trailing line number and only quotes around the word', () => {
    assert.deepEqual(testTargets('pytest tests/v2:1/test_api.py'), ['tests/v2:1/test_api.py']);
    assert.deepEqual(testTargets(`pytest "tests/test_o'brien.py"`), [`tests/test_o'brien.py`]);
  });
});
