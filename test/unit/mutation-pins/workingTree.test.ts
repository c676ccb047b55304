import * as assert from 'node:assert/strict';
import { core } from './findingCore';
import type { StatusEntry } from '../../../src/core/gitPort';
import { checkWorkingTree } from '../../../src/core/clean/workingTree';
import { cleanFacts } from '../helpers/workbenchSnapshot';

const entry = (path: string, kind: StatusEntry['kind'] = 'modified'): StatusEntry => ({ path, kind, staged: false });

describe('clean state: the working-tree check', () => {
  it('passes on a clean tree, saying how many stashes there are', () => {
    assert.deepEqual(checkWorkingTree({ facts: cleanFacts(), ownPaths: [] }), {
      check: 'working-tree', title: 'Working tree', passed: true, summary: 'Everything is committed.', findings: [],
    });
    const stashed = checkWorkingTree({ facts: cleanFacts({ stashes: [{ ref: 'stash@{0}', message: 'On main: spike' }] }), ownPaths: [] });
    assert.equal(stashed.passed, true);
    assert.equal(stashed.summary, 'Everything is committed (1 stashed).');
  });

  for (const [operation, fix] of [
    ['merge', 'Finish the merge (`git commit`) or abort it (`git merge --abort`).'],
    ['rebase', 'Finish the rebase (`git rebase --continue`) or abort it (`git rebase --abort`).'],
    ['cherry-pick', 'Finish the cherry-pick (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`).'],
    ['revert', 'Finish the revert (`git revert --continue`) or abort it (`git revert --abort`).'],
    ['bisect', 'End the bisect with `git bisect reset`.'],
  ] as const) {
    it(`a ${operation} half done is a finding with the command that ends it`, () => {
      const r = checkWorkingTree({ facts: cleanFacts({ operation }), ownPaths: [] });
      assert.equal(r.passed, false);
      assert.deepEqual(core(r.findings), [{ check: 'working-tree', detail: `A ${operation} is in progress.`, fix }]);
      assert.equal(r.summary, `A ${operation} is in progress.`);
    });
  }

  it('an operation it does not know still gets a generic fix', () => {
    const r = checkWorkingTree({ facts: cleanFacts({ operation: 'am' as never }), ownPaths: [] });
    assert.equal(r.findings[0]?.fix, 'Finish or abort the operation in progress.');
  });

  it('counts uncommitted changes and untracked files apart, singular and plural, with their paths', () => {
    const one = checkWorkingTree({ facts: cleanFacts({ status: [entry('a.ts'), entry('n.txt', 'untracked')] }), ownPaths: [] });
    assert.deepEqual(core(one.findings), [
      { check: 'working-tree', detail: '1 uncommitted change: a.ts.', paths: ['a.ts'], fix: 'Commit the changes, or stash them with a message: `git stash push -m "<why>"`.' },
      { check: 'working-tree', detail: '1 untracked file: n.txt.', paths: ['n.txt'], fix: 'Commit them, delete them, or add them to .gitignore.' },
    ]);
    assert.equal(one.summary, '1 uncommitted change: a.ts.');
    const many = checkWorkingTree({
      facts: cleanFacts({ status: [entry('a.ts', 'added'), entry('b.ts', 'deleted'), entry('c.ts', 'renamed'), entry('x', 'untracked'), entry('y', 'untracked')] }),
      ownPaths: [],
    });
    assert.deepEqual(many.findings.map((f) => [f.detail, f.paths]), [
      ['3 uncommitted changes: a.ts, b.ts, c.ts.', ['a.ts', 'b.ts', 'c.ts']],
      ['2 untracked files: x, y.', ['x', 'y']],
    ]);
  });

  it("leaves the tool's own outputs out", () => {
    const r = checkWorkingTree({
      facts: cleanFacts({ status: [entry('outputs/handoff/handoff.json', 'untracked'), entry('outputs/handoff/x/y.md'), entry('src/a.ts')] }),
      ownPaths: ['outputs/handoff'],
    });
    assert.deepEqual(r.findings.map((f) => f.detail), ['1 uncommitted change: src/a.ts.']);
    const onlyOwn = checkWorkingTree({ facts: cleanFacts({ status: [entry('context_usage.json', 'untracked')] }), ownPaths: ['context_usage.json'] });
    assert.equal(onlyOwn.passed, true);
  });

  it('flags stashes without a message on this branch, not named ones or other branches', () => {
    const stashes = [
      { ref: 'stash@{0}', message: 'WIP on main: 1234567 refund' },
      { ref: 'stash@{1}', message: 'On main: spike for later' },
      { ref: 'stash@{2}', message: 'WIP on other: 89abcde x' },
      { ref: 'stash@{3}', message: 'WIP on main: 7654321 y' },
    ];
    const r = checkWorkingTree({ facts: cleanFacts({ stashes }), ownPaths: [] });
    assert.deepEqual(core(r.findings), [{
      check: 'working-tree',
      detail: '2 stashes on main without a message (stash@{0}, stash@{3}).',
      fix: 'Pop it and stash again with a message: `git stash pop && git stash push -m "<why>"`.',
    }]);
    const one = checkWorkingTree({ facts: cleanFacts({ stashes: stashes.slice(0, 1) }), ownPaths: [] });
    assert.equal(one.findings[0]?.detail, '1 stash on main without a message (stash@{0}).');
    const detached = checkWorkingTree({ facts: cleanFacts({ branch: null, stashes: [{ ref: 'stash@{0}', message: 'WIP on null: x' }] }), ownPaths: [] });
    assert.equal(detached.passed, true);
  });

  it('reports findings in order: operation, changes, untracked, stashes; the summary is the first', () => {
    const r = checkWorkingTree({
      facts: cleanFacts({ operation: 'merge', status: [entry('u', 'untracked'), entry('m')], stashes: [{ ref: 'stash@{0}', message: 'WIP on main: x' }] }),
      ownPaths: [],
    });
    assert.deepEqual(r.findings.map((f) => f.detail), [
      'A merge is in progress.', '1 uncommitted change: m.', '1 untracked file: u.', '1 stash on main without a message (stash@{0}).',
    ]);
    assert.equal(r.summary, 'A merge is in progress.');
  });
});
