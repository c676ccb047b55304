// Benchmark: hostile inputs through the built CLI. Each case (a FIFO in place of feedback_record.jsonl,
// an artifact symlinked out of the workspace, artifacts symlinked to /dev/zero and /dev/urandom, a NUL in
// a path, a Claude transcript holding one 300 MB line) runs `generate`, `check`, `status`, `show` and
// `prompt`. Each must end, with its located message, within 2 s of what the same command takes on the
// clean workbench (the CLI's own start-up and git work are not the hostile input's cost, and vary with
// the machine's load), and with peak RSS under 200 MB. Prints a table; exits 1 on a miss.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, gitWorkspace, root, tempDir } from './lib.mjs';

const LIMIT_S = 2;
const LIMIT_MB = 200;
const LINE_MB = Number(process.env.HANDOFF_BENCH_LINE_MB ?? 300);
const cli = builtCli(2);
const fixture = path.resolve(root, '..', 'shared', 'fixtures', 'workbench-refund');
const fixtureDir = process.env.HANDOFF_FIXTURES ? path.join(process.env.HANDOFF_FIXTURES, 'workbench-refund') : fixture;
if (process.platform === 'win32') {
  console.log('bench: hostile files need FIFOs and /dev; skipped on Windows');
  process.exit(0);
}

const tmp = tempDir('handoff-bench-hostile-');
const rssFile = path.join(tmp, 'rss.txt');
const preload = path.join(tmp, 'rss-hook.cjs');
fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`);

/** A committed copy of the refund workbench (a small one of our own when the shared fixtures are absent). */
function workbench(name) {
  const dir = path.join(tmp, name);
  if (fs.existsSync(fixtureDir)) {
    fs.cpSync(fixtureDir, dir, { recursive: true });
    return gitWorkspace(dir);
  }
  return gitWorkspace(dir, {
    'agent_state.json': JSON.stringify({ session_id: 'bench', touched_files: ['a.py'], next_action: 'Fix a.py' }),
    'feedback_record.jsonl': `${JSON.stringify({ command: ['pytest'], exit_code: 1 })}\n`,
  });
}

const replace = (dir, file, how) => {
  fs.rmSync(path.join(dir, file), { force: true });
  how(path.join(dir, file));
};

/** The Claude config dir with a transcript for `dir`: one call, then one `LINE_MB` MB line. */
function hugeTranscript(dir) {
  const claude = path.join(tmp, 'claude');
  const project = path.join(claude, 'projects', path.resolve(dir).replace(/[^a-zA-Z0-9]/g, '-'));
  fs.mkdirSync(project, { recursive: true });
  const file = path.join(project, 'big.jsonl');
  const fd = fs.openSync(file, 'w');
  const call = { type: 'assistant', isSidechain: false, cwd: dir, sessionId: 'big', timestamp: '2026-11-20T09:00:00Z', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 50_000 } } };
  fs.writeSync(fd, `${JSON.stringify(call)}\n{"type":"user","isSidechain":false,"message":{"role":"user","content":"`);
  const mb = Buffer.alloc(1024 * 1024, 'x');
  for (let i = 0; i < LINE_MB; i++) fs.writeSync(fd, mb);
  fs.writeSync(fd, '"}}\n');
  fs.closeSync(fd);
  return claude;
}

const cases = [
  { name: 'clean workbench (baseline)', setup: () => undefined, expect: null, baseline: true },
  { name: 'FIFO feedback log', setup: (d) => replace(d, 'feedback_record.jsonl', (f) => execFileSync('mkfifo', [f])), expect: /named pipe \(FIFO\)/ },
  {
    name: 'symlink out',
    setup: (d) => {
      const outside = path.join(tmp, `outside-${path.basename(d)}.json`);
      fs.writeFileSync(outside, JSON.stringify({ next_action: 'OUTSIDE' }));
      replace(d, 'agent_state.json', (f) => fs.symlinkSync(outside, f));
    },
    expect: /leads outside the workspace/,
  },
  {
    name: 'device (/dev/zero, /dev/urandom)',
    setup: (d) => {
      replace(d, 'review_report.json', (f) => fs.symlinkSync('/dev/zero', f));
      replace(d, 'feedback_record.jsonl', (f) => fs.symlinkSync('/dev/urandom', f));
    },
    expect: /not followed/,
  },
  {
    name: 'NUL in a path',
    setup: (d) => {
      const f = path.join(d, 'agent_state.json');
      const state = JSON.parse(fs.readFileSync(f, 'utf8'));
      state.touched_files = ['payments/refund\u0000.py', ...(state.touched_files ?? [])];
      fs.writeFileSync(f, JSON.stringify(state));
    },
    expect: null,
  },
  { name: `${LINE_MB} MB single-line transcript`, setup: (d) => ({ CLAUDE_CONFIG_DIR: hugeTranscript(d) }), expect: /line too long, skipped/, commands: ['status', 'generate'] },
];

let failed = 0;
const rows = [];
const baseline = new Map();
try {
  for (const c of cases) {
    const dir = workbench(c.name.replace(/\W+/g, '-'));
    const env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(tmp, 'no-claude'), CODEX_HOME: path.join(tmp, 'no-codex'), ...(c.setup(dir) ?? {}) };
    let seen = c.expect === null;
    for (const cmd of c.commands ?? ['generate', 'check', 'status', 'show', 'prompt']) {
      fs.rmSync(rssFile, { force: true });
      const args = cmd === 'generate' ? [cmd, '--dir', dir, '--allow-dirty'] : [cmd, '--dir', dir];
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, ['--require', preload, cli, ...args], { env, encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 });
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      const peak = fs.existsSync(rssFile) ? Number(fs.readFileSync(rssFile, 'utf8')) / 1024 : Infinity;
      if (c.expect && c.expect.test(`${r.stdout}${r.stderr}`)) seen = true;
      if (c.baseline) baseline.set(cmd, s);
      const extra = s - (baseline.get(cmd) ?? 0);
      const ok = r.status !== null && extra <= LIMIT_S && peak < LIMIT_MB;
      if (!ok) failed++;
      const cost = c.baseline ? '' : ` (${extra >= 0 ? '+' : '-'}${Math.abs(extra).toFixed(2)} s against the clean run)`;
      rows.push(`${ok ? 'ok  ' : 'FAIL'} ${c.name.padEnd(34)} ${cmd.padEnd(9)} exit ${String(r.status).padEnd(4)} ${s.toFixed(2)} s${cost}  ${peak.toFixed(0)} MB`);
    }
    if (!seen) {
      failed++;
      rows.push(`FAIL ${c.name}: no command printed the located message ${c.expect}`);
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(rows.join('\n'));
console.log(`hostile inputs: ${failed ? `${failed} over the limits` : `every command within ${LIMIT_S} s of the clean run and under ${LIMIT_MB} MB peak RSS`}`);
process.exit(failed ? 1 : 0);
