import * as assert from 'node:assert/strict';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { secretRisks } from '../../../src/core/packet/secretRisks';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { createGitClient } from '../../../src/git/gitClient';
import { tempRepos } from '../helpers/gitRepo';
import { workbenchRepo } from '../helpers/workbenchRepo';
import { fake } from './corpus';

const stripeKey = (): string => ['sk', 'live', fake(7, 24)].join('_');

describe('a credential in a workbench file is a risk, not just a mask', () => {
  const make = tempRepos(workbenchRepo);

  it('the loader masks it and records file, line and kind, never the value', async () => {
    const r = make();
    const key = stripeKey();
    r.write('feedback_record.jsonl', [
      JSON.stringify({ command: ['pytest'], exit_code: 0 }),
      JSON.stringify({ command: `curl -u ${key}: https://api.stripe.com/v1/charges`, exit_code: 1, stderr_tail: 'denied' }),
      '',
    ].join('\n'));
    r.write('agent_state.json', JSON.stringify({ session_id: 's', next_action: 'x', notes: 'n' }, null, 2).replace('"n"', `"set STRIPE_KEY=${key}"`));
    const snap = await loadWorkbench(r.dir, { feedbackK: 5, maxCommands: 30 });
    assert.ok(!JSON.stringify(snap).includes(key.slice(8, 20)), 'no part of the key past the loader');
    assert.deepEqual(
      (snap.secrets ?? []).map((s) => [s.file, s.line, s.label]),
      [['agent_state.json', 4, 'a Stripe live key'], ['feedback_record.jsonl', 2, 'a Stripe live key']],
    );
  });

  it('in a committed file: a block risk with file, line, kind, the first commit holding it and the fix', async () => {
    const r = make();
    const key = stripeKey();
    r.write('feedback_record.jsonl', [
      JSON.stringify({ command: ['pytest'], exit_code: 0, started_at: 1764400000 }),
      JSON.stringify({ command: ['./deploy.sh'], exit_code: 0, stdout_tail: `using ${key}`, started_at: 1764400001 }),
      '',
    ].join('\n'));
    const leaked = r.commit('log the deploy');
    r.commit('later work');
    const out = await generateHandoff({ workspaceDir: r.dir, options: DEFAULT_OPTIONS, gitClient: createGitClient(r.dir), allowDirty: true });
    assert.ok(out.kind === 'written', out.kind === 'refused' ? out.reason : '');
    const risk = out.packet.open_risks.find((x) => x.id.startsWith('leak:'));
    assert.ok(risk, JSON.stringify(out.packet.open_risks));
    assert.equal(risk.severity, 'block');
    assert.equal(risk.source, 'feedback_record.jsonl:2');
    assert.match(risk.detail, /^A Stripe live key in feedback_record\.jsonl line 2/);
    assert.ok(risk.detail.includes(`since commit ${leaked.slice(0, 12)}`), risk.detail);
    assert.match(risk.detail, /rotate the credential now; remove it from the file and from git history/);
    assert.ok(!JSON.stringify(out.packet).includes(key.slice(8, 16)));
  });

  it('an uncommitted line of a tracked file, and an untracked file, say so', async () => {
    const r = make();
    const key = stripeKey();
    r.write('feedback_record.jsonl', `${JSON.stringify({ command: ['pytest'], exit_code: 0 })}\n${JSON.stringify({ command: ['x'], exit_code: 0, agent_note: key })}\n`);
    const pending = await generateHandoff({ workspaceDir: r.dir, options: DEFAULT_OPTIONS, gitClient: createGitClient(r.dir), allowDirty: true });
    assert.ok(pending.kind !== 'refused');
    const risk = pending.packet.open_risks.find((x) => x.id.startsWith('leak:'));
    assert.match(risk?.detail ?? '', /Git tracks the file; this line is not committed yet/);

    const u = make();
    u.git('rm', '-q', '--cached', 'feedback_record.jsonl');
    u.write('.gitignore', 'debug.log\nfeedback_record.jsonl\n');
    u.commit('stop tracking the log');
    u.write('feedback_record.jsonl', `${JSON.stringify({ command: ['pytest'], exit_code: 0, agent_note: `key ${key}` })}\n`);
    const untracked = await generateHandoff({ workspaceDir: u.dir, options: DEFAULT_OPTIONS, gitClient: createGitClient(u.dir), allowDirty: true });
    assert.ok(untracked.kind !== 'refused');
    assert.match(untracked.packet.open_risks.find((x) => x.id.startsWith('leak:'))?.detail ?? '', /Git does not track the file/);
  });

  it('without git the risk still names the fix', () => {
    const [risk] = secretRisks([{ file: 'agent_state.json', line: null, rule: 'github', label: 'a GitHub token' }]);
    assert.equal(risk?.id, 'leak:agent_state.json');
    assert.match(risk?.detail ?? '', /^A GitHub token in agent_state\.json \(masked in this packet\)\. Fix: rotate/);
  });
});
