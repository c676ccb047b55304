import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runCleanCheck, type CleanCheckRun } from '../../../src/core/workflow/check';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { createGitClient } from '../../../src/git/gitClient';
import { makeRepo, tempRepos, type TempRepo } from '../helpers/gitRepo';

/** A committed, clean workbench on branch feat/x, forked from main. */
function cleanWorkbench(): TempRepo {
  const r = makeRepo({
    files: {
      '.gitignore': 'debug.log\n',
      'src/app.js': 'console.log("from the base");\n',
      'agent_state.json': JSON.stringify({ schema_version: 1, branch: 'feat/x', active_task_id: 'T-1', touched_files: [], next_action: 'ship it' }),
      'feature_list.json': JSON.stringify({ active: 'T-1', features: [{ id: 'T-1', status: 'in_progress' }, { id: 'T-2', status: 'todo' }] }),
      'feedback_record.jsonl': `${JSON.stringify({ command: ['npm', 'test'], exit_code: 0 })}\n`,
    },
  });
  r.git('checkout', '-q', '-b', 'feat/x');
  return r;
}

const run = (r: TempRepo): Promise<CleanCheckRun> => runCleanCheck(r.dir, DEFAULT_OPTIONS, createGitClient(r.dir));

function failing(res: CleanCheckRun): string[] {
  assert.ok(res.ok, 'git should be available');
  return res.report.checks.filter((c) => !c.passed).map((c) => c.check);
}

describe('runCleanCheck on real repositories', () => {
  const make = tempRepos(cleanWorkbench);

  it('is clean, writes [] to clean_state.json, and its own outputs never make it dirty', async () => {
    const r = make();
    r.write('debug.log', 'ignored noise');
    r.write('context_usage.json', '{}');
    r.write('outputs/handoff/s1/handoff.json', '{}');
    r.git('stash', 'list');
    const res = await run(r);
    assert.deepEqual(failing(res), []);
    assert.ok(res.ok);
    assert.equal(res.report.clean, true);
    assert.equal(await fs.readFile(path.join(r.dir, 'outputs/handoff/clean_state.json'), 'utf8'), '[]\n');
    // Running again (now clean_state.json exists) is still clean.
    assert.deepEqual(failing(await run(r)), []);
  });

  it('a stash with a message is clean', async () => {
    const r = make();
    r.write('src/app.js', 'console.log("from the base");\nexport const later = 1;\n');
    r.git('stash', 'push', '-m', 'refund rounding, not ready');
    assert.deepEqual(failing(await run(r)), []);
  });

  it('flags an untracked notes.tmp (working tree + temp artifacts), and writes the findings', async () => {
    const r = make();
    r.write('notes.tmp', 'scratch');
    const res = await run(r);
    assert.deepEqual(failing(res), ['working-tree', 'temp-artifacts']);
    const written = JSON.parse(await fs.readFile(path.join(r.dir, 'outputs/handoff/clean_state.json'), 'utf8')) as { check: string; paths?: string[] }[];
    assert.deepEqual(written.map((f) => [f.check, f.paths]), [['working-tree', ['notes.tmp']], ['temp-artifacts', ['notes.tmp']]]);
  });

  it('flags console.log and print( added on the branch, not the one already in the base', async () => {
    const r = make();
    r.write('src/app.js', 'console.log("from the base");\nconsole.log("session debug");\n');
    r.write('tools/run.py', 'def main():\n    print("here")\n');
    r.commit('session work');
    const res = await run(r);
    assert.deepEqual(failing(res), ['temp-artifacts']);
    assert.ok(res.ok);
    const finding = res.report.findings[0];
    assert.deepEqual(finding?.paths, ['src/app.js', 'tools/run.py']);
    assert.match(finding?.detail ?? '', /src\/app\.js:2/);
    assert.doesNotMatch(finding?.detail ?? '', /src\/app\.js:1/);
  });

  it('flags a detached HEAD and another branch than agent_state says', async () => {
    const r = make();
    r.git('checkout', '-q', '--detach');
    assert.deepEqual(failing(await run(r)), ['branch']);
    r.git('checkout', '-q', 'main');
    const res = await run(r);
    assert.ok(res.ok);
    assert.match(res.report.checks[4]?.summary ?? '', /On branch main, but agent_state.json expects feat\/x/);
  });

  it('flags a merge in progress', async () => {
    const r = make();
    r.write('src/app.js', 'feat\n');
    r.commit('feat side');
    r.git('checkout', '-q', '-b', 'feat/y', 'main');
    r.write('src/app.js', 'other\n');
    r.commit('other side');
    r.git('checkout', '-q', 'feat/x');
    assert.throws(() => r.git('merge', 'feat/y'));
    const res = await run(r);
    assert.ok(failing(res).includes('working-tree'));
    assert.ok(res.ok && res.report.findings.some((f) => /merge is in progress/.test(f.detail)));
  });

  it('flags two in_progress features and a red unnamed test run from the real files', async () => {
    const r = make();
    r.write('feature_list.json', JSON.stringify({ active: 'T-1', features: [{ id: 'T-1', status: 'in_progress' }, { id: 'T-2', status: 'in_progress' }] }));
    r.write('feedback_record.jsonl', `${JSON.stringify({ command: 'pytest tests/test_refund.py', exit_code: 1 })}\n`);
    r.commit('board and red test');
    assert.deepEqual(failing(await run(r)), ['tests', 'feature-board']);
    r.write('agent_state.json', JSON.stringify({ branch: 'feat/x', active_task_id: 'T-1', open_risks: ['tests/test_refund.py fails on rounding'] }));
    r.commit('name the red test');
    assert.deepEqual(failing(await run(r)), ['feature-board']);
  });

  it('outside a repository gives a typed error and writes nothing', async () => {
    const r = make();
    await fs.rm(path.join(r.dir, '.git'), { recursive: true, force: true });
    const res = await run(r);
    assert.ok(!res.ok);
    assert.equal(res.error.code, 'not-a-repository');
    await assert.rejects(fs.access(path.join(r.dir, 'outputs/handoff/clean_state.json')));
  });
});
