import * as assert from 'node:assert/strict';
import { mkdtempSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';

describe('handoff check (real process, real git)', () => {
  const make = tempRepos(workbenchRepo);

  it('exits 0 on a clean workbench and prints a line per check', async () => {
    const r = make();
    const res = handoff(['check', '--dir', r.dir]);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    for (const title of ['Working tree', 'Temp artifacts', 'Tests', 'Feature board', 'Branch']) {
      assert.match(res.stdout, new RegExp(`^PASS  ${title}: \\S`, 'm'));
    }
    assert.equal(await fs.readFile(path.join(r.dir, 'outputs/handoff/clean_state.json'), 'utf8'), '[]\n');
  });

  it('exits 1 when dirty, naming the finding and its fix; --json carries the report', () => {
    const r = make();
    r.write('notes.tmp', 'x');
    r.write('debug.log', 'ignored');
    const res = handoff(['check', '--dir', r.dir]);
    assert.equal(res.code, 1);
    assert.match(res.stdout, /^FAIL  Temp artifacts: 1 temporary file: notes\.tmp/m);
    assert.match(res.stdout, /fix: Delete them/);
    assert.doesNotMatch(res.stdout, /debug\.log/);
    const json = handoff(['check', '--json'], { cwd: r.dir });
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as { clean: boolean; findings: { check: string }[] };
    assert.equal(report.clean, false);
    assert.deepEqual(report.findings.map((f) => f.check), ['working-tree', 'temp-artifacts']);
  });

  it('exits 2 with one clear sentence outside a repository and without git on PATH', () => {
    const plain = mkdtempSync(path.join(os.tmpdir(), 'handoff-plain-'));
    const res = handoff(['check', '--dir', plain]);
    assert.equal(res.code, 2);
    assert.equal(res.stderr.trim().split('\n').length, 1);
    assert.match(res.stderr, /is not inside a git repository/);

    const r = make();
    const noGit = handoff(['check', '--dir', r.dir], { env: { ...process.env, PATH: plain } });
    assert.equal(noGit.code, 2);
    assert.equal(noGit.stderr.trim().split('\n').length, 1);
    assert.match(noGit.stderr, /^handoff check: Git is not installed or not on PATH/);
  });

  it('generate outside a repository still writes the packet and says why it has no git facts', async () => {
    const r = make();
    await fs.rm(path.join(r.dir, '.git'), { recursive: true, force: true });
    const res = handoff(['generate', '--dir', r.dir, '--json']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /^git: .* is not inside a git repository.*The packet has no git facts and the clean state was not checked\.$/m);
    const packet = JSON.parse(await fs.readFile(JSON.parse(res.stdout).json, 'utf8')) as { head_commit: unknown; clean_state: unknown };
    assert.equal(packet.head_commit, null);
    assert.equal(packet.clean_state, null);
  });
});
