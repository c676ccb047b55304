// Benchmark: a synthetic 1 000 000-record feedback log through the built `handoff generate`.
// Prints records/second and the generator's peak RSS; fails when peak RSS reaches 200 MB.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RECORDS = Number(process.env.HANDOFF_BENCH_RECORDS ?? 1_000_000);
const LIMIT_MB = 200;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  console.error('bench: dist/cli.js is missing; run `node esbuild.mjs` first (npm run bench does).');
  process.exit(2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-bench-'));
fs.writeFileSync(path.join(dir, 'agent_state.json'), JSON.stringify({
  session_id: 'bench', active_task_id: 'T-1', touched_files: ['src/a.ts'], next_action: 'Re-run the failing suite',
}));

/** Streams the log to disk so the benchmark itself stays small too. */
async function writeLog(file) {
  const out = fs.createWriteStream(file);
  const cmds = [['npm', 'test'], ['npx', 'eslint', '.'], 'git status -s', ['pytest', '-k', 'refund'], ['make', 'build']];
  for (let i = 0; i < RECORDS; i++) {
    const exit = i % 97 === 0 ? 1 : i % 1009 === 0 ? null : 0;
    const rec = {
      command: cmds[i % cmds.length], exit_code: exit, agent_note: i % 10 === 0 ? `step ${i}` : '',
      started_at: 1764400000 + i, duration_ms: 100 + (i % 50),
      stdout_tail: exit === 0 ? 'ok' : `FAILED case_${i}: expected 2000 got 1999.99`, stderr_tail: '',
      ...(exit === null ? { error: 'timeout after 30.0s' } : {}),
    };
    if (!out.write(`${JSON.stringify(rec)}\n`)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r, j) => out.end((err) => (err ? j(err) : r())));
}

const log = path.join(dir, 'feedback_record.jsonl');
let t = process.hrtime.bigint();
await writeLog(log);
const sizeMb = fs.statSync(log).size / 1048576;
console.log(`wrote ${RECORDS.toLocaleString('en-US')} records (${sizeMb.toFixed(0)} MB) in ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s`);

// The child reports its own peak RSS on exit through a preloaded hook (no rusage of children in Node).
const rssFile = path.join(dir, 'rss.txt');
const preload = path.join(dir, 'rss-hook.cjs');
fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`);
t = process.hrtime.bigint();
const r = spawnSync(process.execPath, ['--require', preload, cli, 'generate', '--dir', dir, '--json'], { encoding: 'utf8' });
const seconds = Number(process.hrtime.bigint() - t) / 1e9;
if (r.status !== 0) {
  console.error(`bench: handoff generate exited ${r.status}: ${r.stderr.trim().split('\n')[0]}`);
  process.exit(1);
}
const packet = JSON.parse(fs.readFileSync(JSON.parse(r.stdout).json, 'utf8'));
const peakMb = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
console.log(`generate: ${seconds.toFixed(2)} s, ${Math.round(RECORDS / seconds).toLocaleString('en-US')} records/s`);
console.log(`packet: ${packet.commands_run.length} commands kept, ${packet.commands_omitted.toLocaleString('en-US')} left out, ${packet.failed_attempts.length} failed attempts`);
console.log(`peak RSS: ${peakMb.toFixed(1)} MB (limit ${LIMIT_MB} MB)`);
fs.rmSync(dir, { recursive: true, force: true });
if (peakMb >= LIMIT_MB) {
  console.error(`bench: peak RSS ${peakMb.toFixed(1)} MB is over the ${LIMIT_MB} MB limit`);
  process.exit(1);
}
