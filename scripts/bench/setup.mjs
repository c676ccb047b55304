// Set-up diff benchmark: `handoff setup claude --dry-run` (whole process: read, parse, plan, diff) on a
// 24 000-line settings file, and the diff alone of two 24 000-line texts that differ on every line
// (the worst case: a file reformatted throughout). Exits non-zero when either takes more than 2 s or
// its process peaks at 200 MB or more.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LINES = 24_000;
const MAX_MS = 2_000;
const MAX_MB = 200;
const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '..', '..');
const cli = path.join(root, 'dist', 'cli.js');
const procStats = path.join(here, 'procStats.cjs');
if (!fs.existsSync(cli)) {
  console.error('bench: dist/cli.js is missing; run `node esbuild.mjs` first (npm run bench does).');
  process.exit(1);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-bench-setup-'));

// A settings file of LINES lines: many permission rules, as a long-lived settings file collects.
const allow = Array.from({ length: LINES - 8 }, (_, i) => `Bash(npm run task-${i})`);
const settings = `${JSON.stringify({ model: 'opus', permissions: { allow }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }, null, 2)}\n`;
const home = path.join(dir, 'claude');
fs.mkdirSync(home);
fs.writeFileSync(path.join(home, 'settings.json'), settings);

// The diff alone, bundled from src/ so the benchmark measures the shipped code.
const bundle = path.join(dir, 'diff.cjs');
await esbuild.build({ entryPoints: [path.join(root, 'src/core/setup/diff.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'warning' });
const a = Array.from({ length: LINES }, (_, i) => `    "key-${i}": ${i},`).join('\n');
const b = Array.from({ length: LINES }, (_, i) => `\t"key-${i}": ${i + 1},`).join('\n');
fs.writeFileSync(path.join(dir, 'a.txt'), a);
fs.writeFileSync(path.join(dir, 'b.txt'), b);
const worst = path.join(dir, 'worst.cjs');
fs.writeFileSync(
  worst,
  `const fs = require('node:fs'); const { unifiedDiff } = require(${JSON.stringify(bundle)});\n` +
    `const d = unifiedDiff('a', 'b', fs.readFileSync(${JSON.stringify(path.join(dir, 'a.txt'))}, 'utf8'), fs.readFileSync(${JSON.stringify(path.join(dir, 'b.txt'))}, 'utf8'));\n` +
    `process.stdout.write(d);\n`,
);

function measure(label, args, env = {}) {
  const stats = path.join(dir, `${label.replace(/\W+/g, '-')}.json`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', procStats, ...args], { env: { ...process.env, ...env, HANDOFF_PROC_STATS: stats }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) {
    console.error(`${label}: exit ${r.status}\n${r.stderr}`);
    return false;
  }
  const { rss } = JSON.parse(fs.readFileSync(stats, 'utf8'));
  const mb = rss / 1024 / 1024;
  const ok = ms <= MAX_MS && mb < MAX_MB;
  console.log(`${label}: ${ms.toFixed(0)} ms, peak RSS ${mb.toFixed(0)} MB, ${r.stdout.split('\n').length} output lines ${ok ? 'ok' : `FAIL (limit ${MAX_MS} ms, ${MAX_MB} MB)`}`);
  return ok;
}

const results = [
  measure(`setup claude --dry-run, ${LINES}-line settings`, [cli, 'setup', 'claude', '--dry-run', '--launcher', '/opt/handoff/handoff'], { CLAUDE_CONFIG_DIR: home }),
  measure(`diff of two ${LINES}-line texts differing on every line`, [worst]),
];
fs.rmSync(dir, { recursive: true, force: true });
process.exit(results.every(Boolean) ? 0 : 1);
