// `npm run demo` (after the build): copies the bundled example workbench into a temporary git
// repository, runs the built CLI there and prints the packet's paths and the restart prompt.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'cli.js');
const example = path.join(root, 'examples', 'workbench-refund');
if (!fs.existsSync(cli)) {
  console.error('demo: dist/cli.js is missing; run `node esbuild.mjs` first (npm run demo does).');
  process.exit(2);
}

const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-demo-'));
fs.cpSync(example, repo, { recursive: true });
const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
try {
  git('init', '-q', '-b', 'feat/upi-refund');
  git('-c', 'user.name=Demo', '-c', 'user.email=demo@example.com', 'add', '-A');
  git('-c', 'user.name=Demo', '-c', 'user.email=demo@example.com', 'commit', '-q', '-m', 'Refund service with an agent workbench');
} catch (err) {
  console.error(`demo: git is needed for the demo repository (${err.message.split('\n')[0]})`);
  process.exit(2);
}

console.log(`Example workbench copied into a temporary git repository:\n  ${repo}\n`);
const run = (args) => spawnSync(process.execPath, [cli, ...args], { cwd: repo, encoding: 'utf8' });
let gen = run(['generate', '--json']);
if (gen.status === 1 && /allow-dirty/.test(gen.stderr)) {
  // The example is mid-task on purpose, so a clean-state check may find problems: show them, then
  // accept them explicitly — they enter the packet as blocking risks.
  console.log(`The example workbench is not clean:\n${gen.stderr.replace(/^/gm, '  ')}`);
  console.log('Generating anyway with --allow-dirty (each finding becomes a block risk).\n');
  gen = run(['generate', '--json', '--allow-dirty']);
}
if (gen.stderr) process.stderr.write(gen.stderr);
if (gen.status !== 0) {
  console.error(`demo: handoff generate exited ${gen.status}`);
  process.exit(gen.status ?? 1);
}
const out = JSON.parse(gen.stdout);
console.log(`handoff generate: ${out.kind}`);
console.log(`  ${out.json}\n  ${out.md}\n`);
const prompt = run(['prompt']);
console.log('Restart prompt (`handoff prompt`):\n');
console.log(prompt.stdout);
process.exit(prompt.status ?? 1);
