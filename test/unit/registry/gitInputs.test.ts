import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { computeGitInput, mergeChangedFiles } from '../../../src/core/workflow/gitInputs';
import { inspectWorkbench, ownPathsOf } from '../../../src/core/workflow/inspect';
import { readWorkbenchState } from '../../../src/core/workflow/state';
import { rewritePacket } from '../../../src/core/registry/registry';
import { createGitClient } from '../../../src/git/gitClient';
import { makeRepo, type TempRepo } from '../helpers/gitRepo';
import { buildTestPacket } from '../helpers/packetBuilder';

describe('packet git fields', () => {
  const repos: TempRepo[] = [];
  after(() => repos.forEach((r) => r.remove()));

  it('merges committed, uncommitted and touched files, sorted, the base kind winning except deletions', () => {
    const merged = mergeChangedFiles(
      [{ path: 'b.ts', kind: 'added', staged: true }, { path: 'n.ts', kind: 'renamed', from: 'o.ts', staged: true }],
      [{ path: 'b.ts', kind: 'modified', staged: false }, { path: 'a.ts', kind: 'deleted', staged: false }, { path: 'z.tmp', kind: 'untracked', staged: false }],
      ['docs/x.md', 'b.ts'],
    );
    assert.deepEqual(merged, [
      { path: 'a.ts', kind: 'deleted' },
      { path: 'b.ts', kind: 'added' },
      { path: 'docs/x.md', kind: 'touched' },
      { path: 'n.ts', kind: 'renamed', from: 'o.ts' },
      { path: 'z.tmp', kind: 'untracked' },
    ]);
  });

  it('computes changed files since the merge-base and the last known good commit rules', async () => {
    const r = makeRepo({ files: { 'a.txt': 'a\n', 'gone.txt': 'g\n' } });
    repos.push(r);
    r.git('checkout', '-q', '-b', 'feat');
    r.write('new.txt', 'n\n');
    r.git('rm', '-q', 'gone.txt');
    r.write('agent_state.json', JSON.stringify({ touched_files: ['a.txt', '../outside.txt', 'docs/plan.md'], active_task_id: 'T-1' }));
    r.write('feedback_record.jsonl', `${JSON.stringify({ command: 'npm test', exit_code: 0 })}\n`);
    r.commit('work');
    r.write('wip.txt', 'w\n');
    r.write('outputs/handoff/x/handoff.json', '{}');
    const git = createGitClient(r.dir);
    const insp = await inspectWorkbench(r.dir, DEFAULT_OPTIONS, git);
    assert.ok(insp.git.ok);
    assert.equal(insp.git.baseSource, 'merge-base');
    const args = {
      git, facts: insp.git.facts, base: insp.git.base, snapshot: insp.snapshot, workbenchDir: insp.workbenchDir,
      ownPaths: ownPathsOf(insp.git.facts.root, insp.workbenchDir, insp.outputDir), previous: null,
    };
    const dirty = await computeGitInput({ ...args, clean: false });
    assert.deepEqual(dirty.changedFiles.map((c) => `${c.kind}:${c.path}`), [
      'touched:a.txt', 'added:agent_state.json', 'touched:docs/plan.md', 'added:feedback_record.jsonl', 'deleted:gone.txt', 'added:new.txt', 'untracked:wip.txt',
    ]);
    assert.equal(dirty.branch, 'feat');
    assert.equal(dirty.headCommit, r.head());
    assert.equal(dirty.repo, path.basename(r.dir));
    assert.ok(dirty.headTime && !Number.isNaN(Date.parse(dirty.headTime)));
    assert.equal(dirty.lastKnownGoodCommit, null);
    assert.match(dirty.lkgUnknownReason ?? '', /not clean/);
    const clean = await computeGitInput({ ...args, clean: true });
    assert.equal(clean.lastKnownGoodCommit, r.head(), 'clean and green: HEAD');
    const prev = await computeGitInput({ ...args, clean: false, previous: buildTestPacket({ last_known_good_commit: 'c0ffee' }) });
    assert.equal(prev.lastKnownGoodCommit, 'c0ffee');
    assert.equal(prev.lkgUnknownReason, undefined);
  });

  it('readWorkbenchState uses the previous packet as session base and reports it stale after a commit', async () => {
    const r = makeRepo({ files: { 'a.txt': 'a\n', 'agent_state.json': JSON.stringify({ active_task_id: 'T-1' }) } });
    repos.push(r);
    const out = path.join(r.dir, 'outputs/handoff');
    const packet = buildTestPacket({ packet_id: 'p1', branch: 'main', topic: 'T-1', head_commit: r.head(), inputs: [] });
    await rewritePacket(path.join(out, 'p1'), packet, {});
    const git = createGitClient(r.dir);
    let state = await readWorkbenchState(r.dir, DEFAULT_OPTIONS, git);
    assert.equal(state.active?.packet.packet_id, 'p1');
    assert.ok(state.clean);
    // agent_state.json appeared after the packet (its inputs are empty): stale for that reason only.
    assert.deepEqual(state.active?.freshness.reasons, ['An input changed after the packet: agent_state.json (new).']);
    r.write('b.txt', 'b\n');
    r.commit('one');
    r.write('c.txt', 'c\n');
    r.commit('two');
    state = await readWorkbenchState(r.dir, DEFAULT_OPTIONS, git);
    assert.equal(state.active?.freshness.commitsBehind, 2);
    assert.match(state.active?.freshness.reasons[0] ?? '', /HEAD moved 2 commits/);
    const insp = await inspectWorkbench(r.dir, DEFAULT_OPTIONS, git);
    assert.ok(insp.git.ok && insp.git.baseSource === 'previous-packet' && insp.git.base === packet.head_commit);
    await fs.rm(path.join(r.dir, '.git'), { recursive: true, force: true });
    state = await readWorkbenchState(r.dir, DEFAULT_OPTIONS, createGitClient(r.dir));
    assert.ok(!state.git.ok && state.git.error.code === 'not-a-repository');
    assert.equal(state.clean, null);
    assert.equal(state.packets.length, 1);
  });
});
