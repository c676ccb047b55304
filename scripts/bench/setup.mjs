// Set-up diff benchmark: `handoff setup claude --dry-run` (whole process: read, parse, plan, diff) on a
// 24 000-line settings file, and the diff alone of two 24 000-line texts that differ on every line
// (the worst case: a file reformatted throughout). Exits non-zero when either takes more than 2 s or
// its process peaks at 200 MB or more. Also `setup codex` on an old 100 000-line config.toml against a
// 25 000-line one: fails when the 100 000-line run takes more than 2 s, or unless the time grows about
// linearly.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, here, root, tempDir } from './lib.mjs';

const LINES = 24_000;
const MAX_MS = 2_000;
const MAX_MB = 200;
const cli = builtCli();
const procStats = path.join(here, 'procStats.cjs');
const dir = tempDir('handoff-bench-setup-');

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

/**
 * `setup codex` for a Codex before hooks (notify in config.toml) on an old config of `lines` lines (one
 * project table per trusted folder): seconds. The TOML editor's patch grew faster than the file.
 */
function codexSetup(lines) {
  const codexHome = path.join(dir, `codex-${lines}`);
  fs.mkdirSync(codexHome);
  const tables = Array.from({ length: Math.ceil(lines / 3) }, (_, i) => `[projects."/home/me/src/project-${i}"]\ntrust_level = "trusted"\n`);
  fs.writeFileSync(path.join(codexHome, 'config.toml'), `model = "o3"\napproval_policy = "on-request"\n\n${tables.join('\n')}`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, 'setup', 'codex', '--codex-version', '0.100.0', '--launcher', '/opt/handoff/handoff'], { env: { ...process.env, CODEX_HOME: codexHome }, encoding: 'utf8' });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const written = /^notify = /m.test(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8'));
  return { s, ok: r.status === 0 && written, err: r.stderr };
}

const small = codexSetup(25_000);
const big = codexSetup(100_000);
const ratio = big.s / small.s;
// Linear: four times the lines, about four times the time (6 leaves room for a busy machine); and the
// big one answered within the same 2 s as every other input.
const codexOk = small.ok && big.ok && ratio <= 6 && big.s * 1000 <= MAX_MS;
console.log(`setup codex (notify, config.toml): 25 000 lines ${small.s.toFixed(2)} s, 100 000 lines ${big.s.toFixed(2)} s, ratio ${ratio.toFixed(1)} ${codexOk ? 'ok' : `FAIL (limits ${MAX_MS / 1000} s for 100 000 lines, ratio 6; ${small.err}${big.err})`}`);

const results = [
  measure(`setup claude --dry-run, ${LINES}-line settings`, [cli, 'setup', 'claude', '--dry-run', '--launcher', '/opt/handoff/handoff'], { CLAUDE_CONFIG_DIR: home }),
  measure(`diff of two ${LINES}-line texts differing on every line`, [worst]),
  codexOk,
];
fs.rmSync(dir, { recursive: true, force: true });
process.exit(results.every(Boolean) ? 0 : 1);
