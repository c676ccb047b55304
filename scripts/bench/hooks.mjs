// Hook benchmark, on a workbench whose Claude Code transcript is 100 MB (HANDOFF_BENCH_HOOK_MB):
// - `handoff hook` for SessionEnd: the time until the hook process exits (the agent waits for that),
//   and the time until the detached completion has written the packet;
// - `handoff hook` for UserPromptSubmit (the wrap-up line, run before every prompt): time per call.
// Exits non-zero when the SessionEnd hook's median return exceeds 200 ms or the wrap-up call's 100 ms.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, gitWorkspace, tempDir } from './lib.mjs';

const MB = Number(process.env.HANDOFF_BENCH_HOOK_MB ?? 100);
const RUNS_END = 5;
const RUNS_WRAP = 15;
const MAX_RETURN_MS = 200;
const MAX_WRAP_MS = 100;
const cli = builtCli();
const dir = tempDir('handoff-bench-hooks-');
const ws = gitWorkspace(path.join(dir, 'ws'), {
  'app.py': 'print("hi")\n',
  'agent_state.json': JSON.stringify({ schema_version: 1, session_id: 'bench', branch: 'main', active_task_id: 'T-1', touched_files: ['app.py'], next_action: 'Run the tests in app.py' }),
  'feature_list.json': JSON.stringify({ active: 'T-1', features: [{ id: 'T-1', status: 'in_progress', done_when: 'pytest' }] }),
  '.gitignore': 'outputs/\n',
});

// A 100 MB transcript: long tool results, an assistant call every third line (60 % of the window last).
const transcript = path.join(dir, 'bench.jsonl');
let n = 0;
function line() {
  n++;
  const base = { parentUuid: `u${n - 1}`, isSidechain: false, cwd: ws, sessionId: 'bench', uuid: `u${n}`, timestamp: '2026-11-20T09:00:00.000Z' };
  if (n % 3 === 0) {
    return JSON.stringify({ ...base, type: 'assistant', message: { model: 'claude-sonnet-4-5', id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: 'a'.repeat(800) }], usage: { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: 119_000, output_tokens: 50 } } });
  }
  return JSON.stringify({ ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'x'.repeat(2500) }] } });
}
const out = fs.createWriteStream(transcript);
let written = 0;
while (written < MB * 1024 * 1024) {
  const l = `${line()}\n`;
  written += Buffer.byteLength(l);
  if (!out.write(l)) await once(out, 'drain');
}
out.end();
await once(out, 'finish');

const state = fs.mkdtempSync(path.join(dir, 'state-'));
const env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(dir, 'claude'), CODEX_HOME: path.join(dir, 'codex'), HANDOFF_STATE_DIR: state };
const log = path.join(ws, 'outputs', 'handoff', 'hook.log');
const completions = () => (fs.existsSync(log) ? (fs.readFileSync(log, 'utf8').match(/packet written to/g) ?? []).length : 0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const returns = [];
const finished = [];
for (let i = 0; i < RUNS_END; i++) {
  const before = completions();
  const input = JSON.stringify({ hook_event_name: 'SessionEnd', cwd: ws, session_id: 'bench', transcript_path: transcript, reason: 'exit' });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, 'hook'], { input, env, encoding: 'utf8' });
  returns.push(ms(t0));
  if (r.status !== 0) {
    console.error(`hook exited ${r.status}: ${r.stderr}`);
    process.exit(1);
  }
  while (completions() === before) {
    if (ms(t0) > 120_000) {
      console.error(`no packet 120 s after the hook returned; ${log}:\n${fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '(none)'}`);
      process.exit(1);
    }
    await new Promise((res) => setTimeout(res, 20));
  }
  finished.push(ms(t0));
}

const wraps = [];
for (let i = 0; i < RUNS_WRAP; i++) {
  // A new session each time: every call finds a level to say, the slow path.
  const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: ws, session_id: `bench-${i}`, transcript_path: transcript, prompt: 'go on' });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, 'hook'], { input, env, encoding: 'utf8' });
  wraps.push(ms(t0));
  if (i === 0 && !/context at 60/.test(r.stdout)) {
    console.error(`the wrap-up hook said nothing at 60 %: ${r.stdout}${r.stderr}`);
    process.exit(1);
  }
}

const retMed = median(returns);
const wrapMed = median(wraps);
console.log(`SessionEnd hook, ${MB} MB transcript: returns in ${retMed.toFixed(0)} ms (median of ${RUNS_END}; max ${Math.max(...returns).toFixed(0)} ms) ${retMed <= MAX_RETURN_MS ? 'ok' : `FAIL (limit ${MAX_RETURN_MS} ms)`}`);
console.log(`  detached completion: packet written ${median(finished).toFixed(0)} ms after the hook started (median of ${RUNS_END})`);
console.log(`UserPromptSubmit wrap-up hook, ${MB} MB transcript: ${wrapMed.toFixed(0)} ms per call (median of ${RUNS_WRAP}) ${wrapMed <= MAX_WRAP_MS ? 'ok' : `FAIL (limit ${MAX_WRAP_MS} ms)`}`);
fs.rmSync(dir, { recursive: true, force: true });
process.exit(retMed <= MAX_RETURN_MS && wrapMed <= MAX_WRAP_MS ? 0 : 1);
