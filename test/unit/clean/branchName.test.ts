import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { checkBranch } from '../../../src/core/clean/branchCheck';
import { branchNameProblem } from '../../../src/core/clean/branchName';
import { fixOffer } from '../../../src/core/clean/fixOffer';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';
import { cleanFacts, snapshotWith } from '../helpers/workbenchSnapshot';

const BEL = String.fromCharCode(7);
const RLO = String.fromCharCode(0x202e);
/** What the audit put in agent_state.json `branch` and a transcript's `gitBranch`. */
const HOSTILE = ['--discard-changes main', '-f main', '--orphan x', '-fmain', `main${BEL}`, `main\nrm -rf ~`, 'a..b', 'main.lock', '.hidden', 'x@{1}', 'HEAD', 'a//b', 'end.', 'x y', 'x:y'];
const PLAIN = ['main', 'feat/refund', 'release-1.2', 'user@host', 'fix_#12', 'wip;rm', "it's"];

/** The commands Apply Fix would offer for the branch check of a workbench on `main` whose agent state names `branch`. */
function offered(branch: string, detached = false): { commands: string[]; fix: string } {
  const r = checkBranch({ facts: cleanFacts(detached ? { branch: null, detached: true } : { branch: 'main-other' }), snapshot: snapshotWith({ agentState: { branch } }) });
  const finding = r.findings.at(-1)!;
  const offer = fixOffer(finding);
  return { commands: offer.kind === 'commands' ? offer.commands.map((c) => c.command) : [], fix: finding.fix };
}

describe('a branch name from agent-written text is put into a command only when git would take it as a plain branch', () => {
  const make = tempRepos(workbenchRepo);

  it('agrees with `git check-ref-format --branch` on names the audit used and plain ones', () => {
    for (const name of [...HOSTILE, ...PLAIN]) {
      const git = spawnSync('git', ['check-ref-format', '--branch', name], { encoding: 'utf8' });
      // git takes "-f main" as an option and "HEAD" as the current branch: neither is a branch to switch to.
      const gitTakes = git.status === 0 && !name.startsWith('-') && name !== 'HEAD' && !/[\u0000-\u001f]/.test(name);
      assert.equal(branchNameProblem(name) === null, gitTakes, `${JSON.stringify(name)}: ${branchNameProblem(name) ?? 'plain'}`);
    }
    assert.match(branchNameProblem(`main${RLO}niam`) ?? '', /invisible/);
  });

  it('Apply Fix offers no command for an option, a control character or a name git refuses, and says why', () => {
    for (const name of HOSTILE) {
      for (const detached of [false, true]) {
        const { commands, fix } = offered(name, detached);
        assert.deepEqual(commands.filter((c) => !c.includes('<')), [], `${JSON.stringify(name)} detached=${detached}`);
        assert.match(fix, /not a valid branch name \(.+\): no command is offered/);
        assert.doesNotMatch(fix, /[\u0000-\u001f\u202e]/);
      }
    }
  });

  it('a plain name is offered quoted, so the shell sees one word', () => {
    assert.deepEqual(offered('feat/refund').commands, ['git switch feat/refund']);
    assert.deepEqual(offered("it's").commands, [`git switch 'it'\\''s'`]);
    const wip = fixOffer(checkBranch({ facts: cleanFacts({ branch: 'main' }), snapshot: snapshotWith({ agentState: { branch: 'wip;rm' } }) }).findings[0]!);
    assert.deepEqual(wip.kind === 'commands' ? wip.commands : [], [{ command: `git switch 'wip;rm'`, how: 'copy' }]);
  });

  it('handoff check on a repository whose committed agent_state.json names "--orphan x" offers no git switch', async () => {
    const r = make();
    const file = path.join(r.dir, 'agent_state.json');
    const state = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(file, JSON.stringify({ ...state, branch: '--orphan x' }));
    r.commit('agent state names an option as its branch');
    const out = handoff(['check', '--dir', r.dir, '--json'], { env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(r.dir, '.no-claude'), CODEX_HOME: path.join(r.dir, '.no-codex') } });
    const report = JSON.parse(out.stdout) as { findings: { check: string; fix: string; commands?: string[] }[] };
    const branch = report.findings.find((f) => f.check === 'branch');
    assert.ok(branch, out.stdout);
    assert.deepEqual(branch.commands ?? [], []);
    assert.doesNotMatch(out.stdout, /git switch --orphan/);
    assert.match(branch.fix, /not a valid branch name/);
  });
});
