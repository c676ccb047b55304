import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { cacheFileOf, cachedWords, digestOf, gitDirsOf } from '../../../src/cli/commands/statuslineCache';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { createGitClient } from '../../../src/git/gitClient';
import { makeTempDir } from '../helpers/fixtures';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';

/** The statusline as Claude Code runs it (through `handoff`), at 40 % so the workbench words show. */
function statusline(dir: string): string {
  const input = JSON.stringify({ session_id: 's', cwd: dir, context_window: { context_window_size: 200_000, current_usage: { input_tokens: 80_000 } } });
  const r = handoff(['statusline'], { cwd: dir, input });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

describe('statusline cache: what freshness depends on', function () {
  this.timeout(120_000);

  it('finds the git dirs like `git rev-parse --git-dir / --git-common-dir`, in a linked worktree too', async () => {
    const r = workbenchRepo();
    const wt = path.join(await makeTempDir('handoff-wt-'), 'linked');
    try {
      r.git('worktree', 'add', '-q', '-b', 'feat/linked', wt);
      for (const dir of [r.dir, wt, path.join(r.dir, 'src')]) {
        const found = await gitDirsOf(dir);
        const cwd = (args: string[]) => path.resolve(dir, r.git('-C', dir, 'rev-parse', ...args));
        assert.deepEqual(found, { gitDir: cwd(['--git-dir']), commonDir: cwd(['--git-common-dir']) }, dir);
      }
      assert.equal(await gitDirsOf(path.parse(wt).root), null, 'outside any repository');
    } finally {
      r.git('worktree', 'remove', '--force', wt);
      r.remove();
      await fs.rm(path.dirname(wt), { recursive: true, force: true });
    }
  });

  it('keeps a digest of what it depends on, so many packet folders leave the cache file small; any packet rewritten in place still counts', async () => {
    const workspaceDir = await makeTempDir('handoff-slc-');
    const outputDir = path.join(workspaceDir, 'outputs', 'handoff');
    try {
      for (let i = 0; i < 300; i++) {
        await fs.mkdir(path.join(outputDir, `p${i}`), { recursive: true });
        await fs.writeFile(path.join(outputDir, `p${i}`, 'handoff.json'), `{"status":"superseded","n":${1000 + i}}\n`);
      }
      const dirs = { workspaceDir, workbenchDir: workspaceDir, outputDir };
      let computed = 0;
      const compute = async (): Promise<string[]> => [`words ${++computed}`];
      const now = Date.now();
      assert.deepEqual(await cachedWords(dirs, compute, now), ['words 1']);
      assert.deepEqual(await cachedWords(dirs, compute, now + 1), ['words 1'], 'nothing changed: the cached words');
      assert.ok((await fs.stat(cacheFileOf(workspaceDir))).size < 512, 'the cache file holds a digest, not a part per packet folder');
      // One packet among hundreds, rewritten in place to the same size (a status change, a scrub).
      const one = path.join(outputDir, 'p150', 'handoff.json');
      await fs.writeFile(one, '{"status":"archived"  ,"n":1150}\n');
      const later = new Date(now + 5_000);
      await fs.utimes(one, later, later);
      assert.deepEqual(await cachedWords(dirs, compute, now + 2), ['words 2'], 'a packet rewritten in place');
      await fs.mkdir(path.join(outputDir, 'p300'));
      await fs.writeFile(path.join(outputDir, 'p300', 'handoff.json'), '{}');
      assert.deepEqual(await cachedWords(dirs, compute, now + 3), ['words 3'], 'a new packet folder');
      assert.deepEqual(await cachedWords(dirs, compute, now + 4), ['words 3']);
    } finally {
      await fs.rm(cacheFileOf(workspaceDir), { force: true });
      await fs.rm(workspaceDir, { recursive: true, force: true });
    }
  });

  it('digests tell apart texts that differ in one character or only in length', () => {
    const base = 'p1:1700000000000.123/2048|p2:1700000000001.5/2049';
    const seen = new Set([digestOf(base), digestOf(`${base}|`), digestOf(base.replace('2048', '2049')), digestOf(''), digestOf('\u0000')]);
    assert.equal(seen.size, 5);
    assert.equal(digestOf(base), digestOf(`${base}`));
  });

  it('a commit within the cache TTL reads stale, in the main checkout and in a linked worktree', async () => {
    const r = workbenchRepo();
    const wt = path.join(await makeTempDir('handoff-wt-'), 'linked');
    try {
      r.git('worktree', 'add', '-q', '-b', 'feat/linked', wt);
      await fs.writeFile(path.join(wt, 'agent_state.json'), (await fs.readFile(path.join(wt, 'agent_state.json'), 'utf8')).replace('"feat/refund"', '"feat/linked"'));
      r.git('-C', wt, 'commit', '-q', '-am', 'linked branch');
      for (const dir of [r.dir, wt]) {
        const made = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS, gitClient: createGitClient(dir) });
        assert.equal(made.kind, 'written', made.kind === 'refused' ? made.reason : '');
        assert.equal(statusline(dir), 'ctx 40% · clean · handoff fresh', dir);
        // Neither the index nor HEAD's own file changes: only the branch ref moves.
        r.git('-C', dir, 'commit', '-q', '--allow-empty', '-m', 'moves HEAD');
        assert.equal(statusline(dir), 'ctx 40% · clean · handoff stale', `${dir}: a commit a moment after the cached answer`);
      }
    } finally {
      r.git('worktree', 'remove', '--force', wt);
      r.remove();
      await fs.rm(path.dirname(wt), { recursive: true, force: true });
    }
  });
});
