// Set-up shared by the benchmarks in this folder: the built CLI, a temporary folder, a committed git
// workspace. Not a benchmark itself (`npm run bench` runs every .mjs here, so it says so and ends).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** This folder, and the repository root. */
export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');

/** The path of the built `dist/cli.js`; exits with `code` when it has not been built yet. */
export function builtCli(code = 1) {
  const cli = path.join(root, 'dist', 'cli.js');
  if (!fs.existsSync(cli)) {
    console.error('bench: dist/cli.js is missing; run `node esbuild.mjs` first (npm run bench does).');
    process.exit(code);
  }
  return cli;
}

/** A new empty folder in the system's temporary folder, its name starting with `prefix`. */
export const tempDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/**
 * A git repository on `main` at `dir` (made when missing) holding `files` (name → text, written first)
 * and whatever `dir` already held, all in one commit. Throws when a git step fails.
 */
export function gitWorkspace(dir, files = {}) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const git = (...args) => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench: git ${args.join(' ')} in ${dir}: ${r.error?.message ?? r.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'bench@example.invalid');
  git('config', 'user.name', 'bench');
  git('config', 'commit.gpgsign', 'false');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench');
  return dir;
}

/**
 * Runs the built CLI once with `args` and `env`, measured by ./procStats.cjs: its result, wall seconds,
 * peak RSS (MB) and CPU seconds of the whole process. `dir` holds the stats file.
 */
export function measuredCli(cli, args, env, dir) {
  const statsFile = path.join(dir, 'stats.json');
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', path.join(here, 'procStats.cjs'), cli, ...args], { env: { ...env, HANDOFF_PROC_STATS: statsFile }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const s = JSON.parse(fs.readFileSync(statsFile, 'utf8'));
  return { r, seconds, mb: s.rss / 1048576, cpu: s.cpu / 1e6 };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log('(shared set-up for the other benchmarks: nothing to measure)');
}
