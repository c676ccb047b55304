import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { inspectWorkbench } from '../../../src/core/workflow/inspect';
import { createGitClient } from '../../../src/git/gitClient';
import { makeTempDir } from '../helpers/fixtures';
import { workbenchRepo } from '../helpers/workbenchRepo';

/** The git commands run while `fn` runs, from git's own trace (one line per command). */
async function gitCommands(fn: () => Promise<unknown>): Promise<string[]> {
  const trace = path.join(await makeTempDir('handoff-trace-'), 'trace.log');
  const before = process.env['GIT_TRACE'];
  process.env['GIT_TRACE'] = trace;
  try {
    await fn();
  } finally {
    if (before === undefined) delete process.env['GIT_TRACE'];
    else process.env['GIT_TRACE'] = before;
  }
  const text = await fs.readFile(trace, 'utf8').catch(() => '');
  await fs.rm(path.dirname(trace), { recursive: true, force: true });
  return text.split('\n').map((l) => /trace: built-in: git (.*)$/.exec(l)?.[1]).filter((c): c is string => !!c);
}

describe('one inspection asks git once for the status and HEAD', () => {
  it('runs one status (with untracked files), lists no untracked files again and resolves HEAD no further', async () => {
    const r = workbenchRepo();
    try {
      r.write('scratch/notes.tmp', 'debugger;\n');
      let found: Awaited<ReturnType<typeof inspectWorkbench>> | null = null;
      const cmds = await gitCommands(async () => {
        found = await inspectWorkbench(r.dir, DEFAULT_OPTIONS, createGitClient(r.dir));
      });
      assert.equal(cmds.filter((c) => c.startsWith('status')).length, 1, cmds.join('\n'));
      assert.ok(cmds.find((c) => c.startsWith('status'))?.includes('--untracked-files=all'));
      assert.deepEqual(cmds.filter((c) => c.startsWith('ls-files') && c.includes('--others')), [], 'untracked files come from the status');
      assert.deepEqual(cmds.filter((c) => c.startsWith('rev-parse') && /\bHEAD\b/.test(c)), [], 'HEAD comes from the status');
      // The untracked file still reaches both checks that need it.
      const clean = (found as Awaited<ReturnType<typeof inspectWorkbench>> | null)?.clean;
      const temp = clean?.checks.find((c) => c.check === 'temp-artifacts');
      assert.equal(temp?.passed, false);
      assert.ok(temp?.findings.some((f) => f.paths?.includes('scratch/notes.tmp')));
    } finally {
      r.remove();
    }
  });
});

describe('GitClient.head', () => {
  it('answers HEAD and the branch like facts() does: on a branch, detached, and before the first commit', async () => {
    const r = workbenchRepo();
    try {
      const git = createGitClient(r.dir);
      const pick = (f: { head: string | null; branch: string | null }) => ({ head: f.head, branch: f.branch });
      assert.deepEqual(await git.head(), { head: r.head(), branch: 'feat/refund' });
      assert.deepEqual(await git.head(), pick(await git.facts()));
      r.git('checkout', '-q', '--detach');
      assert.deepEqual(await git.head(), { head: r.head(), branch: null });
      r.git('checkout', '-q', '--orphan', 'fresh');
      assert.deepEqual(await git.head(), { head: null, branch: 'fresh' });
      assert.deepEqual(await git.head(), pick(await git.facts()));
    } finally {
      r.remove();
    }
  });
});
