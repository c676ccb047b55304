import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/run';
import { handoff } from '../helpers/workbenchRepo';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { fragmentsIn, SECRETS, type SecretCase } from './corpus';
import { claudeHome } from './transcript';

/** Every file under `dir`, recursively, with its text. */
async function filesUnder(dir: string): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else out.push({ file: p, text: await fs.readFile(p, 'utf8') });
  }
  return out;
}

/** A workbench whose every field of every artifact (and the session id) holds all of `cases`. */
function writeWorkbench(write: (file: string, content: string) => void, cases: SecretCase[]): void {
  const all = cases.map((c) => c.text).join('\n');
  const one = (i: number): string => cases[i % cases.length]!.text;
  write('agent_state.json', JSON.stringify({
    schema_version: 1, session_id: cases.map((c) => c.text).join(' '), branch: `feat/${one(0)}`, active_task_id: 'T-1',
    summary: all, next_action: `Fix it: ${all}`, last_known_good_commit: null,
    touched_files: cases.map((c) => c.text),
    decisions: [all, { text: all, status: 'rejected' }], assumptions: [{ text: all }], blockers: [all],
    questions_for_human: [all], notes: all,
    open_risks: [{ id: 'leak', severity: 'high', detail: all, verify: all, source: all }, all],
  }));
  write('feature_list.json', JSON.stringify({
    active: 'T-1', features: [{ id: 'T-1', title: all, status: 'done', done_when: one(1) }, { id: 'T-2', title: all, status: 'in_progress', done_when: one(2) }],
  }));
  write('verification_report.json', JSON.stringify({ passed: false, task_id: 'T-1', findings: [{ code: 'acceptance.failed', severity: 'block', detail: all }] }));
  write('review_report.json', JSON.stringify({ verdict: 'soft_fail', total: 5, task_id: 'T-1', dimensions: [{ name: all, score: 4, note: all }] }));
  const records = cases.flatMap((c, i) => [
    { command: c.text, exit_code: 1, agent_note: c.text, stdout_tail: c.text, stderr_tail: `Traceback\n${c.text}`, started_at: 1764400000 + i * 3 },
    { command: ['sh', '-c', c.text], exit_code: null, error: `timeout after 30s: ${c.text}`, started_at: 1764400001 + i * 3 },
    { command: ['pytest', c.text], exit_code: 1, stderr_tail: `${'x'.repeat(400)}\n${c.text}`, started_at: 1764400002 + i * 3 },
  ]);
  records.push({ command: one(1), exit_code: 1, stderr_tail: all, started_at: 1764409999 } as (typeof records)[number]);
  write('feedback_record.jsonl', `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  // A debug print the session added, quoting secrets: the clean check cites it.
  write('src/app.py', `${cases.map((c) => `print(${JSON.stringify(c.text)})`).join('\n')}\n`);
}

async function run(args: string[], cwd: string, stdin = ''): Promise<string> {
  let out = '';
  await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (out += t), cwd, env: { ...process.env }, readStdin: async () => stdin });
  return out;
}

describe('no corpus secret leaves through any command or written file', () => {
  const make = tempRepos(() => makeRepo({ files: { 'README.md': 'x\n' } }));
  // Eight secrets per workbench keeps every case in its natural context without one repo per case.
  const groups: SecretCase[][] = [];
  for (let i = 0; i < SECRETS.length; i += 8) groups.push(SECRETS.slice(i, i + 8));

  groups.forEach((cases, g) => {
    it(`group ${g + 1}/${groups.length}: ${cases.map((c) => c.name).join(', ')}`, async () => {
      const r = make();
      r.git('checkout', '-q', '-b', 'feat/x');
      writeWorkbench((f, c) => r.write(f, c), cases);
      r.commit('session work');
      const outputs: Record<string, string> = {};
      outputs['generate'] = await run(['generate', '--allow-dirty'], r.dir);
      outputs['generate --json'] = await run(['generate', '--allow-dirty', '--json'], r.dir);
      outputs['check'] = await run(['check'], r.dir);
      outputs['check --json'] = await run(['check', '--json'], r.dir);
      outputs['status'] = await run(['status'], r.dir);
      outputs['status --json'] = await run(['status', '--json'], r.dir);
      outputs['prompt'] = await run(['prompt'], r.dir);
      outputs['show'] = await run(['show'], r.dir);
      outputs['show --json'] = await run(['show', '--json'], r.dir);
      outputs['list'] = await run(['list', '--all'], r.dir);
      outputs['list --json'] = await run(['list', '--all', '--json'], r.dir);
      // The hook logs the event name and session id it was given into hook.log.
      const all = cases.map((c) => c.text).join(' ');
      outputs['hook (ignored event)'] = await run(['hook'], r.dir, JSON.stringify({ hook_event_name: `Stop ${all}`, cwd: '.', session_id: all }));
      outputs['hook SessionEnd'] = await run(['hook'], r.dir, JSON.stringify({ hook_event_name: 'SessionEnd', cwd: '.', session_id: all }));
      for (const f of await filesUnder(path.join(r.dir, 'outputs'))) outputs[path.relative(r.dir, f.file)] = `${f.file}\n${f.text}`;

      // The runs did what they are for: a packet, its files, a clean-state file.
      assert.match(outputs['generate'] ?? '', /wrote /, outputs['generate']);
      assert.ok(Object.keys(outputs).some((k) => k.endsWith('handoff.json')), Object.keys(outputs).join(', '));
      assert.ok(Object.keys(outputs).some((k) => k.endsWith('clean_state.json')));
      assert.match(outputs[Object.keys(outputs).find((k) => k.endsWith('hook.log')) ?? ''] ?? '', /hook: ignored event Stop /);
      assert.ok(JSON.parse(outputs['check --json'] ?? '').checks.length >= 5);
      assert.match(outputs['show --json'] ?? '', /"id": "leak:/, 'the masked credentials are block risks');

      const leaks: string[] = [];
      for (const c of cases) {
        for (const [where, text] of Object.entries(outputs)) {
          const found = fragmentsIn(text, c.secret);
          if (found.length) leaks.push(`${c.name} in ${where}: ${found[0]}`);
        }
      }
      assert.deepEqual(leaks, []);
    });
  });

  it('the real process prints the same redacted output (the choke point is the runner, not the test harness)', () => {
    const r = make();
    const cases = SECRETS.slice(0, 4);
    writeWorkbench((f, c) => r.write(f, c), cases);
    r.commit('session work');
    const gen = handoff(['generate', '--allow-dirty', '--json'], { cwd: r.dir });
    assert.equal(gen.code, 0, gen.stderr);
    const status = handoff(['status', '--json'], { cwd: r.dir });
    for (const c of cases) {
      assert.deepEqual(fragmentsIn(gen.stdout + gen.stderr + status.stdout + status.stderr, c.secret), [], c.name);
    }
    assert.ok(JSON.parse(gen.stdout).packetId);
  });
});

describe('no corpus secret leaves through any command when it comes from the agent session', () => {
  const make = tempRepos(() => makeRepo({ branch: 'feat/x', files: { 'README.md': 'x\n' } }));
  // The same shapes in a Claude Code transcript: a request, a command, its failing output, the closing words.
  const groups: SecretCase[][] = [];
  for (let i = 0; i < SECRETS.length; i += 16) groups.push(SECRETS.slice(i, i + 16));

  groups.forEach((cases, g) => {
    it(`group ${g + 1}/${groups.length}: ${cases.map((c) => c.name).join(', ')}`, async () => {
      const r = make();
      const text = cases.map((c) => c.text).join('\n');
      const home = await claudeHome(r.dir, text, cases.map((c) => c.text).join(' && '));
      const env = { ...process.env, CLAUDE_CONFIG_DIR: home, CODEX_HOME: path.join(home, 'no-codex') };
      const runIn = async (args: string[], stdin = ''): Promise<string> => {
        let out = '';
        await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (out += t), cwd: r.dir, env, readStdin: async () => stdin });
        return out;
      };
      const outputs: Record<string, string> = {};
      for (const args of [['generate', '--allow-dirty'], ['generate', '--allow-dirty', '--json'], ['prompt'], ['show'], ['show', '--json'], ['status'], ['status', '--json'], ['check'], ['secrets', '--dir', r.dir], ['secrets', '--dir', r.dir, '--json']]) {
        outputs[args.join(' ')] = await runIn(args);
      }
      outputs['SessionStart'] = await runIn(['hook'], JSON.stringify({ session_id: 'next-1', cwd: r.dir, hook_event_name: 'SessionStart', source: 'startup' }));
      for (const f of await filesUnder(path.join(r.dir, 'outputs'))) outputs[path.relative(r.dir, f.file)] = f.text;

      // The session was read: a packet from it, its credentials flagged.
      assert.ok(Object.keys(outputs).some((k) => k.endsWith('handoff.json')), Object.keys(outputs).join(', '));
      assert.match(outputs['show --json'] ?? '', /"id": "leak:/, 'the credentials are block risks');
      assert.match(outputs['secrets --dir ' + r.dir] ?? '', /\[REDACTED\]|credential/i);

      const leaks: string[] = [];
      for (const c of cases) {
        for (const [where, out] of Object.entries(outputs)) {
          const found = fragmentsIn(out, c.secret);
          const at = found.length ? out.indexOf(found[0]!) : -1;
          if (found.length) leaks.push(`${c.name} in ${where}: ${found[0]} ${at === -1 ? '(across lines)' : JSON.stringify(out.slice(Math.max(0, at - 100), at + 20))}`);
        }
      }
      assert.deepEqual(leaks, []);
    });
  });
});
