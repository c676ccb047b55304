import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import type { Freshness } from '../../../src/core/registry/freshness';
import { currentPacket } from '../../../src/core/workflow/freshness';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { readWorkbenchState } from '../../../src/core/workflow/state';
import { createGitClient } from '../../../src/git/gitClient';
import { parseSettings } from '../../../src/ui/settings';
import { loadFolderState } from '../../../src/ui/state/load';
import type { LoadInput } from '../../../src/ui/state/ports';
import { makeTempDir } from '../helpers/fixtures';
import { commitSource, handoff, workbenchRepo } from '../helpers/workbenchRepo';

function uiInput(dir: string): LoadInput {
  return {
    folder: { uri: { fsPath: dir }, name: path.basename(dir), index: 0 } as unknown as LoadInput['folder'],
    settings: parseSettings(() => undefined),
    trusted: true,
    context: { result: { known: false, reason: 'none' }, candidates: [], session: null },
  };
}

/** The freshness of the folder's current packet as `prompt`/`show`, `status`, `list` and the views see it. */
async function everyReading(dir: string): Promise<{ prompt: Freshness; status: Freshness; list: Freshness; views: Freshness }> {
  const current = await currentPacket(dir, DEFAULT_OPTIONS, createGitClient(dir));
  const state = await readWorkbenchState(dir, DEFAULT_OPTIONS, createGitClient(dir));
  const ui = await loadFolderState(uiInput(dir), { git: createGitClient, budget: () => null });
  const listed = handoff(['list', '--json', '--dir', dir]);
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as { dir: string; freshness: Freshness }[];
  const id = current.current?.stored.dir;
  const pick = <T extends { dir: string; freshness: Freshness }>(xs: readonly T[]): Freshness => {
    const found = xs.find((x) => x.dir === id);
    assert.ok(found, `packet ${id} missing`);
    return found.freshness;
  };
  assert.ok(current.current);
  return { prompt: current.current.freshness, status: pick(state.packets), list: pick(rows), views: pick(ui.packets) };
}

function assertOneAnswer(r: Awaited<ReturnType<typeof everyReading>>): Freshness {
  assert.deepEqual(r.status, r.prompt, 'status agrees with prompt/show');
  assert.deepEqual(r.list, r.prompt, 'list agrees with prompt/show');
  assert.deepEqual(r.views, r.prompt, 'the views agree with prompt/show');
  return r.prompt;
}

describe('freshness: one rule for prompt, status, list and the views', function () {
  this.timeout(120_000);

  it('a packet on another worktree: fresh there until that worktree moves; stale here, for the same reasons everywhere', async () => {
    const main = workbenchRepo();
    const wt = path.join(await makeTempDir('handoff-wt-'), 'other');
    try {
      main.git('worktree', 'add', '-q', '-b', 'feat/other', wt);
      const state = JSON.parse(await fs.readFile(path.join(wt, 'agent_state.json'), 'utf8')) as Record<string, unknown>;
      await fs.writeFile(path.join(wt, 'agent_state.json'), JSON.stringify({ ...state, branch: 'feat/other' }));
      main.git('-C', wt, 'commit', '-q', '-am', 'other branch');
      const made = await generateHandoff({ workspaceDir: wt, options: DEFAULT_OPTIONS, gitClient: createGitClient(wt) });
      assert.equal(made.kind, 'written', made.kind === 'refused' ? made.reason : '');
      assert.equal(made.kind === 'written' && made.packet.branch, 'feat/other');

      assert.deepEqual(assertOneAnswer(await everyReading(wt)), { stale: false, reasons: [] });
      commitSource(main, 'src/refund.py', 'def refund(amount):\n    return amount\n', 'a commit in the main worktree');
      assert.equal(assertOneAnswer(await everyReading(wt)).stale, false, "another worktree's commit does not move this HEAD");

      await fs.writeFile(path.join(wt, 'notes.txt'), 'x\n');
      main.git('-C', wt, 'add', 'notes.txt');
      main.git('-C', wt, 'commit', '-q', '-m', 'a commit in this worktree');
      const moved = assertOneAnswer(await everyReading(wt));
      assert.equal(moved.commitsBehind, 1);
      assert.match(moved.reasons[0] ?? '', /^HEAD moved 1 commit since the packet/);

      // A superseded packet keeps the same reasons (its commit count included) in status and the views.
      const again = await generateHandoff({ workspaceDir: wt, options: DEFAULT_OPTIONS, gitClient: createGitClient(wt) });
      assert.equal(again.kind, 'written');
      const firstDir = made.kind === 'written' ? made.packetDir : '';
      const status = (await readWorkbenchState(wt, DEFAULT_OPTIONS, createGitClient(wt))).packets.find((p) => p.dir === firstDir);
      const views = (await loadFolderState(uiInput(wt), { git: createGitClient, budget: () => null })).packets.find((p) => p.dir === firstDir);
      assert.equal(status?.packet.status, 'superseded');
      assert.deepEqual(views?.freshness, status?.freshness);
      assert.equal(views?.freshness.commitsBehind, 1);

      // The worktree's active packet read from the main worktree: another branch.
      const activeDir = again.kind === 'written' ? again.packetDir : '';
      await fs.cp(activeDir, path.join(main.dir, 'outputs/handoff', path.basename(activeDir)), { recursive: true });
      const here = assertOneAnswer(await everyReading(main.dir));
      assert.equal(here.stale, true);
      assert.ok(here.reasons.includes('The branch is feat/refund, but the packet was made on feat/other.'), here.reasons.join(' | '));
    } finally {
      main.git('worktree', 'remove', '--force', wt);
      main.remove();
      await fs.rm(path.dirname(wt), { recursive: true, force: true });
    }
  });
});
