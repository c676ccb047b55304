// Hook start-up benchmark: `handoff hook` for UserPromptSubmit (before every prompt) and SessionStart
// (startup, with a fresh packet to inject), against `node -e ''`, interleaved in one run so that all see
// the same machine load. Budgets over Node's own start: UserPromptSubmit 50 ms, SessionStart 300 ms
// (medians). Exits non-zero past either.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, gitWorkspace, tempDir } from './lib.mjs';

const RUNS = 11;
const BUDGET = { UserPromptSubmit: 50, SessionStart: 300 };
const cli = builtCli();
const dir = tempDir('handoff-bench-hookbudget-');
try {
  const ws = gitWorkspace(path.join(dir, 'ws'), {
    'app.py': 'print("hi")\n',
    'agent_state.json': JSON.stringify({ schema_version: 1, session_id: 'bench', branch: 'main', active_task_id: 'T-1', next_action: 'Run the tests in app.py' }),
    '.gitignore': 'outputs/\n',
  });
  const claude = path.join(dir, 'claude');
  const projects = path.join(claude, 'projects', path.resolve(ws).replace(/[^a-zA-Z0-9]/g, '-'));
  fs.mkdirSync(projects, { recursive: true });
  const transcript = path.join(projects, 'bench.jsonl');
  const lines = [];
  for (let n = 1; n <= 2000; n++) {
    const base = { parentUuid: `u${n - 1}`, isSidechain: false, cwd: ws, sessionId: 'bench', uuid: `u${n}`, timestamp: '2026-11-20T09:00:00.000Z' };
    lines.push(JSON.stringify(n % 3 === 0
      ? { ...base, type: 'assistant', message: { model: 'claude-sonnet-4-5', id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: 'a'.repeat(400) }], usage: { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: 60_000, output_tokens: 50 } } }
      : { ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'x'.repeat(600) }] } }));
  }
  fs.writeFileSync(transcript, `${lines.join('\n')}\n`);
  const env = { ...process.env, HOME: dir, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(dir, 'codex'), HANDOFF_STATE_DIR: path.join(dir, 'state') };
  const gen = spawnSync(process.execPath, [cli, 'generate', '--dir', ws], { env, encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`bench: generate failed: ${gen.stderr}`);

  const time = (args, input) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { env, input, encoding: 'utf8', cwd: ws });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`bench: ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, out: r.stdout };
  };
  const events = {
    UserPromptSubmit: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: ws, session_id: 'bench', transcript_path: transcript, prompt: 'go on' }),
    SessionStart: JSON.stringify({ hook_event_name: 'SessionStart', cwd: ws, session_id: 'next', source: 'startup', transcript_path: path.join(projects, 'next.jsonl') }),
  };
  // Warm: the code caches are written by a first run.
  for (const raw of Object.values(events)) time([cli, 'hook'], raw);
  const injected = time([cli, 'hook'], events.SessionStart).out.includes('NEXT ACTION');
  const ms = { node: [], UserPromptSubmit: [], SessionStart: [] };
  for (let i = 0; i < RUNS; i++) {
    ms.node.push(time(['-e', ''], '').ms);
    for (const [name, raw] of Object.entries(events)) ms[name].push(time([cli, 'hook'], raw).ms);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(ms.node);
  console.log(`node -e ''                 median ${base.toFixed(0).padStart(5)} ms`);
  let failed = !injected;
  for (const name of ['UserPromptSubmit', 'SessionStart']) {
    const m = median(ms[name]);
    const over = m - base;
    console.log(`hook ${name.padEnd(17)}     median ${m.toFixed(0).padStart(5)} ms  (${over.toFixed(0)} ms over node alone, ×${(m / base).toFixed(2)}; budget ${BUDGET[name]} ms over)`);
    if (over > BUDGET[name]) failed = true;
  }
  if (!injected) console.error('bench: the SessionStart hook injected no packet');
  if (failed) {
    console.error('bench: a hook is over its budget');
    process.exitCode = 1;
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
