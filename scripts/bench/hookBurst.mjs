// Benchmark: a burst of 50 SessionEnd hooks at once (5 sessions of one repository, 10 events each, as
// when many agent sessions end together). Every hook queues its event; one background worker writes
// the packets. Samples /proc every 10 ms for the workers alive at once and the memory of every
// `handoff hook` process together. Fails when more than one worker ran at a time, when the workers
// together reached 200 MB, when no packet was written, or when the queue was not drained within 120 s.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, gitWorkspace, tempDir } from './lib.mjs';

const EVENTS = 50;
const SESSIONS = 5;
const LIMIT_MB = 200;
const cli = builtCli();
if (!fs.existsSync('/proc/self/environ')) {
  console.log('hook burst: skipped (needs /proc to count the workers)');
  process.exit(0);
}
const dir = tempDir('handoff-bench-burst-');
const ws = gitWorkspace(path.join(dir, 'ws'), {
  'app.py': 'print("hi")\n',
  'agent_state.json': JSON.stringify({ schema_version: 1, session_id: 'bench', branch: 'main', active_task_id: 'T-1', touched_files: ['app.py'], next_action: 'Run the tests in app.py' }),
  '.gitignore': 'outputs/\n',
});

const state = path.join(dir, 'state');
const env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(dir, 'claude'), CODEX_HOME: path.join(dir, 'codex'), HANDOFF_STATE_DIR: state };
delete env.HANDOFF_HOOK_INLINE;

/** Our hook processes now: pid → { worker, rssKb }. */
function ours() {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      // Our own `handoff hook` processes only, not the git they run (which inherits the environment).
      if (!environ.includes(`HANDOFF_STATE_DIR=${state}`) || !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(cli)) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      found.push({ pid, ppid: /PPid:\s+(\d+)/.exec(status)?.[1], worker: environ.includes('HANDOFF_HOOK_WORKER=1'), rssKb: rss });
    } catch {
      // gone meanwhile
    }
  }
  // A process a worker is starting (git) shows the worker's command line until it runs its own.
  const pids = new Set(found.map((p) => p.pid));
  return found.filter((p) => !pids.has(p.ppid));
}

let maxWorkers = 0;
let maxProcs = 0;
let peakAllKb = 0;
let peakWorkersKb = 0;
const sampler = setInterval(() => {
  const now = ours();
  const workers = now.filter((p) => p.worker);
  maxWorkers = Math.max(maxWorkers, workers.length);
  maxProcs = Math.max(maxProcs, now.length);
  peakAllKb = Math.max(peakAllKb, now.reduce((s, p) => s + p.rssKb, 0));
  peakWorkersKb = Math.max(peakWorkersKb, workers.reduce((s, p) => s + p.rssKb, 0));
}, 10);

const t0 = Date.now();
const codes = await Promise.all(Array.from({ length: EVENTS }, (_, i) => new Promise((res) => {
  const child = spawn(process.execPath, [cli, 'hook'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
  child.on('close', (code) => res(code));
  child.stdin.end(JSON.stringify({ hook_event_name: 'SessionEnd', cwd: ws, session_id: `burst-${i % SESSIONS}`, reason: 'exit' }));
})));
const returned = Date.now() - t0;
const queue = path.join(state, 'hook-queue');
const drained = () => !fs.existsSync(path.join(queue, 'worker.lock')) && !fs.readdirSync(queue).some((n) => n.endsWith('.event')) && !ours().some((p) => p.worker);
while (!drained()) {
  if (Date.now() - t0 > 120_000) break;
  await new Promise((r) => setTimeout(r, 50));
}
const done = Date.now() - t0;
clearInterval(sampler);
const ok0 = drained();
const packets = fs.readdirSync(path.join(ws, 'outputs', 'handoff'), { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.')).length;
const log = fs.existsSync(path.join(ws, 'outputs', 'handoff', 'hook.log')) ? fs.readFileSync(path.join(ws, 'outputs', 'handoff', 'hook.log'), 'utf8') : '';
const written = (log.match(/packet written to/g) ?? []).length;
console.log(`SessionEnd burst: ${EVENTS} hooks (${SESSIONS} sessions) returned in ${returned} ms, all exit 0: ${codes.every((c) => c === 0)}`);
console.log(`  queue drained ${ok0 ? `after ${done} ms` : 'NOT within 120 s'}: ${written} completions, ${packets} packet folder(s)`);
console.log(`  workers at once: at most ${maxWorkers} (limit 1); hook processes at once: at most ${maxProcs}`);
console.log(`  peak memory: workers ${(peakWorkersKb / 1024).toFixed(1)} MB (limit ${LIMIT_MB} MB), all hook processes together ${(peakAllKb / 1024).toFixed(1)} MB (the ${EVENTS} hooks themselves, started by the burst)`);
fs.rmSync(dir, { recursive: true, force: true });
const ok = ok0 && codes.every((c) => c === 0) && maxWorkers <= 1 && peakWorkersKb / 1024 < LIMIT_MB && packets >= 1 && written >= 1;
if (!ok) console.error('bench: SessionEnd burst: FAIL');
process.exit(ok ? 0 : 1);
