import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeAck } from '../../../src/core/acks';
import { createGitClient } from '../../../src/git/gitClient';
import { parseSettings } from '../../../src/ui/settings';
import { loadFolderState } from '../../../src/ui/state/load';
import type { LoadInput } from '../../../src/ui/state/ports';
import { fixturePath } from '../helpers/fixtures';
import { makeRepo } from '../helpers/gitRepo';
import type { TempRepo } from '../helpers/gitRepo';

/** A real repository on feat/upi-refund holding the refund workbench, committed, plus one stray edit. */
async function refundRepo(): Promise<TempRepo> {
  const repo = makeRepo({ branch: 'feat/upi-refund', files: { 'README.md': '# refund\n' } });
  await fs.cp(fixturePath('workbench-refund'), repo.dir, { recursive: true });
  for (const f of await fs.readdir(repo.dir)) if (f.endsWith('.json') || f.endsWith('.jsonl')) await fs.chmod(path.join(repo.dir, f), 0o644);
  repo.commit('workbench');
  return repo;
}

function input(dir: string, trusted = true): LoadInput {
  return {
    folder: { uri: { fsPath: dir }, name: path.basename(dir), index: 0 } as unknown as LoadInput['folder'],
    settings: parseSettings(() => undefined),
    trusted,
    context: { result: { known: false, reason: 'none' }, candidates: [], session: null },
  };
}

const deps = { git: createGitClient, budget: () => null };

describe('folder state loader (real git)', () => {
  let repo: TempRepo;
  beforeEach(async () => {
    repo = await refundRepo();
  });
  afterEach(() => repo.remove());

  it('reads the five checks, with the uncommitted path under the failing working-tree check', async () => {
    repo.write('src/refund.py', 'x = 1\n');
    const s = await loadFolderState(input(repo.dir), deps);
    assert.equal(s.phase, 'ready');
    assert.equal(s.git?.ok && s.git.facts.branch, 'feat/upi-refund');
    assert.deepEqual(s.clean?.checks.map((c) => c.check), ['working-tree', 'temp-artifacts', 'tests', 'feature-board', 'branch']);
    const wt = s.clean?.checks.find((c) => c.check === 'working-tree');
    assert.equal(wt?.passed, false);
    assert.ok(wt?.findings.some((f) => f.paths?.includes('src/refund.py')));
    repo.commit('commit the edit');
    const after = await loadFolderState(input(repo.dir), deps);
    assert.equal(after.clean?.checks.find((c) => c.check === 'working-tree')?.passed, true);
  });

  it("shows the fixture's risks live (no packet yet), located in their artifacts, with acknowledgements from the output dir", async () => {
    const s = await loadFolderState(input(repo.dir), deps);
    const ids = s.risks.map((r) => r.risk.id);
    assert.ok(ids.includes('verify:acceptance.failed'), ids.join(','));
    const block = s.risks.find((r) => r.risk.id === 'verify:acceptance.failed');
    assert.equal(block?.risk.severity, 'block');
    assert.equal(block?.origin, 'live');
    assert.equal(block?.location?.file, path.join(repo.dir, 'verification_report.json'));
    assert.ok((block?.location?.line ?? 0) > 1);
    await writeAck(s.outputDir, { risk_id: 'verify:acceptance.failed', by: 'ana', at: '2026-01-01T00:00:00Z' });
    const again = await loadFolderState(input(repo.dir), deps);
    assert.equal(again.risks.find((r) => r.risk.id === 'verify:acceptance.failed')?.ack?.by, 'ana');
  });

  it('runs no git in an untrusted workspace and says why', async () => {
    const s = await loadFolderState(input(repo.dir, false), deps);
    assert.equal(s.phase, 'untrusted');
    assert.equal(s.git, null);
    assert.equal(s.clean, null);
    assert.match(s.phaseMessage ?? '', /not trusted/);
    assert.ok(s.snapshot?.agentState);
  });

  it('reports a folder that is not a repository as notRepo', async () => {
    const plain = path.join(repo.dir, '..', `${path.basename(repo.dir)}-plain`);
    await fs.mkdir(plain);
    try {
      const s = await loadFolderState(input(plain), deps);
      assert.equal(s.phase, 'notRepo');
      assert.ok(s.phaseMessage);
    } finally {
      await fs.rm(plain, { recursive: true, force: true });
    }
  });
});
