import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GitError } from '../../../src/core/gitPort';
import { createGitClient } from '../../../src/git/gitClient';
import { makeRepo, type TempRepo } from '../helpers/gitRepo';

async function rejectsWith(p: Promise<unknown>, code: string): Promise<GitError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof GitError, `expected GitError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail('expected a rejection');
}

describe('createGitClient on real repositories', () => {
  const repos: TempRepo[] = [];
  const repo = (opts?: Parameters<typeof makeRepo>[0]): TempRepo => {
    const r = makeRepo(opts);
    repos.push(r);
    return r;
  };
  after(() => repos.forEach((r) => r.remove()));

  it('reports branch, HEAD, upstream, renames, untracked and odd paths, never ignored files', async () => {
    const r = repo({ files: { 'a.txt': 'a\n', 'old.txt': 'same content here\n', '.gitignore': 'debug.log\n' } });
    r.git('branch', 'up');
    r.git('branch', '--set-upstream-to=up');
    r.git('mv', 'old.txt', 'renamed.txt');
    r.write('a.txt', 'changed\n');
    r.write('notes.tmp', 'x');
    r.write('debug.log', 'ignored');
    r.write('dir with space/odd "name".txt', 'x');
    const facts = await createGitClient(r.dir).facts();
    assert.equal(facts.branch, 'main');
    assert.equal(facts.head, r.head());
    assert.equal(facts.detached, false);
    assert.equal(facts.upstream, 'up');
    assert.equal(facts.operation, null);
    const byPath = Object.fromEntries(facts.status.map((e) => [e.path, e]));
    assert.equal(byPath['a.txt']?.kind, 'modified');
    assert.equal(byPath['renamed.txt']?.kind, 'renamed');
    assert.equal(byPath['renamed.txt']?.from, 'old.txt');
    assert.equal(byPath['notes.tmp']?.kind, 'untracked');
    assert.equal(byPath['dir with space/odd "name".txt']?.kind, 'untracked');
    assert.equal(byPath['debug.log'], undefined);
  });

  it('works from a subdirectory with root-relative paths', async () => {
    const r = repo({ files: { 'sub/a.txt': 'a\n' } });
    r.write('sub/b.txt', 'b');
    const facts = await createGitClient(path.join(r.dir, 'sub')).facts();
    assert.deepEqual(facts.status.map((e) => e.path), ['sub/b.txt']);
    assert.ok(path.isAbsolute(facts.root));
  });

  it('sees a detached HEAD, a stash with its message and a merge in progress', async () => {
    const r = repo({ files: { 'f.txt': 'base\n' } });
    r.write('f.txt', 'stashed\n');
    r.git('stash', 'push', '-m', 'half-done refactor');
    let facts = await createGitClient(r.dir).facts();
    assert.equal(facts.stashes.length, 1);
    assert.match(facts.stashes[0]?.message ?? '', /half-done refactor/);
    assert.deepEqual(facts.status, []);

    r.git('checkout', '-q', '-b', 'other');
    r.write('f.txt', 'other\n');
    r.commit('other');
    r.git('checkout', '-q', 'main');
    r.write('f.txt', 'main\n');
    r.commit('main');
    assert.throws(() => r.git('merge', 'other'));
    facts = await createGitClient(r.dir).facts();
    assert.equal(facts.operation, 'merge');
    r.git('merge', '--abort');

    r.git('checkout', '-q', '--detach', 'HEAD');
    facts = await createGitClient(r.dir).facts();
    assert.equal(facts.detached, true);
    assert.equal(facts.branch, null);
    assert.equal(facts.operation, null);
  });

  it('sees a cherry-pick, a revert and a bisect in progress', async () => {
    const r = repo({ files: { 'f.txt': 'base\n' } });
    r.git('checkout', '-q', '-b', 'side');
    r.write('f.txt', 'side\n');
    const side = r.commit('side');
    r.git('checkout', '-q', 'main');
    r.write('f.txt', 'main\n');
    const main = r.commit('main');
    assert.throws(() => r.git('cherry-pick', side));
    assert.equal((await createGitClient(r.dir).facts()).operation, 'cherry-pick');
    r.git('cherry-pick', '--abort');
    r.write('f.txt', 'later\n');
    r.commit('later');
    assert.throws(() => r.git('revert', '--no-edit', main));
    assert.equal((await createGitClient(r.dir).facts()).operation, 'revert');
    r.git('revert', '--abort');
    r.git('bisect', 'start');
    assert.equal((await createGitClient(r.dir).facts()).operation, 'bisect');
    r.git('bisect', 'reset');
    assert.equal((await createGitClient(r.dir).facts()).operation, null);
  });

  it('lists the lines a range adds, committed, uncommitted and untracked, not those of the base', async () => {
    const r = repo({ files: { 'app.js': 'console.log("base");\n' } });
    const base = r.head();
    r.write('app.js', 'console.log("base");\nconst a = 1;\n');
    r.commit('add a');
    r.write('app.js', 'console.log("base");\nconst a = 1;\nconsole.log(a);\n');
    r.write('new.py', 'x = 1\nprint(x)\n');
    const git = createGitClient(r.dir);
    const lines = await git.addedLines(base);
    assert.deepEqual(
      lines.map((l) => `${l.path}:${l.line}:${l.text}`),
      ['app.js:2:const a = 1;', 'app.js:3:console.log(a);', 'new.py:1:x = 1', 'new.py:2:print(x)'],
    );
    const sinceHead = await git.addedLines(null);
    assert.ok(!sinceHead.some((l) => l.text === 'const a = 1;'), 'null base means uncommitted only');
    assert.ok(sinceHead.some((l) => l.text === 'console.log(a);'));
  });

  it('handles a repository with no commits', async () => {
    const r = repo();
    r.write('a.js', 'debugger;\n');
    const git = createGitClient(r.dir);
    const facts = await git.facts();
    assert.equal(facts.head, null);
    assert.equal(facts.branch, 'main', 'the unborn branch is named');
    assert.equal(facts.detached, false);
    assert.equal(facts.status[0]?.kind, 'untracked');
    assert.equal(await git.sessionBase(), null);
    assert.equal(await git.commitTime('HEAD'), null);
    assert.ok((await git.addedLines(null)).some((l) => l.text === 'debugger;'));
    assert.deepEqual(await git.listFiles(), ['a.js']);
  });

  it('computes the session base, changes since it, commit counts and times', async () => {
    const r = repo({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
    const fork = r.head();
    r.git('checkout', '-q', '-b', 'feat');
    r.write('c.txt', 'c\n');
    r.git('rm', '-q', 'b.txt');
    r.commit('one');
    r.write('a.txt', 'a2\n');
    r.commit('two');
    r.git('checkout', '-q', 'main');
    r.write('m.txt', 'main moves on\n');
    r.commit('main moves');
    r.git('checkout', '-q', 'feat');
    const git = createGitClient(r.dir);
    assert.equal(await git.sessionBase(), fork);
    const changed = await git.changedSince(fork);
    assert.deepEqual(changed.map((e) => `${e.kind}:${e.path}`).sort(), ['added:c.txt', 'deleted:b.txt', 'modified:a.txt']);
    assert.equal(await git.commitsBetween(fork, 'HEAD'), 2);
    assert.equal(await git.commitsBetween('0'.repeat(40), 'HEAD'), null);
    const t = await git.commitTime('HEAD');
    assert.ok(t !== null && Math.abs(t - Date.now() / 1000) < 600);
  });

  it('gives typed errors: not a repository, corrupt, git missing', async () => {
    const plain = mkdtempSync(path.join(os.tmpdir(), 'handoff-norepo-'));
    const e1 = await rejectsWith(createGitClient(plain).facts(), 'not-a-repository');
    assert.match(e1.message, /not inside a git repository/);
    assert.equal(e1.message.split('\n').length, 1);

    const r = repo({ files: { 'a.txt': 'a\n' } });
    writeFileSync(path.join(r.dir, '.git', 'HEAD'), 'garbage\n');
    await rejectsWith(createGitClient(r.dir).facts(), 'corrupt');
    // A folder that is gone is not a repository, even when a parent is one (never "corrupt").
    const gone = await rejectsWith(createGitClient(path.join(r.dir, 'no', 'such', 'dir')).facts(), 'not-a-repository');
    assert.match(gone.message, /does not exist/);

    const saved = process.env.PATH;
    process.env.PATH = plain;
    try {
      const e3 = await rejectsWith(createGitClient(repo({ files: { 'x': 'x' } }).dir).facts(), 'git-missing');
      assert.match(e3.message, /not installed or not on PATH/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
