// Checks the harness itself (not part of `npm test`): `npm run test:harness`.
// 1. An extension whose activate() throws makes the in-host tier fail, on the activation test.
// 2. After that run, and after a run interrupted with SIGINT (Ctrl-C), no code-server, extension host
//    or chromium of the run is left.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCleanups } from './lib/cleanup.mjs';
import { runInHost } from './lib/inhost.mjs';
import { repoRoot } from './lib/paths.mjs';

const results = [];
async function check(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`✔ ${name}`);
  } catch (e) {
    results.push(false);
    console.log(`✗ ${name}: ${e instanceof Error ? e.message : e}`);
  }
}

/** Command lines of live processes that mention `needle` (excluding this check's own pgrep). */
function processesWith(needle) {
  const r = spawnSync('pgrep', ['-af', needle], { encoding: 'utf8' });
  return r.stdout.split('\n').filter((l) => l.trim() && !l.includes('pgrep'));
}

const build = spawnSync(process.execPath, ['esbuild.mjs', '--tests'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

await check('an extension whose activate() throws fails the in-host tier', async () => {
  const lines = [];
  const log = console.log;
  console.log = (...a) => { lines.push(a.join(' ')); log(...a); };
  let r;
  try {
    r = await runInHost({
      extensionPath: path.join(repoRoot, 'test', 'e2e', 'fixtures', 'throwing-ext'),
      grep: '^activation ', // the product's other suites need the product itself
    });
  } finally {
    console.log = log;
  }
  assert.ok(r.failed >= 1, `expected failures, got ${r.failed}`);
  const failedTitles = r.tests.filter((t) => t.state === 'failed').map((t) => t.title);
  assert.ok(failedTitles.some((t) => /activates/.test(t)), `activation test failed (failed: ${failedTitles.join('; ')})`);
  assert.ok(r.tests.some((t) => t.state === 'failed' && /activation fails on purpose/.test(t.error ?? '')), 'the thrown error is reported');
  const runDir = lines.map((l) => /run folder (\S+)\)/.exec(l)?.[1]).find(Boolean);
  assert.ok(runDir, 'the run printed its folder');
  assert.deepEqual(processesWith(path.basename(runDir)), [], 'no process of the run is left');
  assert.equal(fs.existsSync(runDir), false, 'the run folder is removed');
});

await check('Ctrl-C during the in-host tier stops code-server, the extension host and chromium', async () => {
  const child = spawn(process.execPath, [path.join(repoRoot, 'test', 'e2e', 'runner.mjs'), 'inhost', '--no-build'], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const runDir = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /run folder (\S+)\)/.exec(out);
      // Interrupt once the workbench is opening: code-server, the browser and soon the extension host live.
      if (m && out.includes('opening the workbench')) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(`runner ended before it could be interrupted:\n${out}`)));
  });
  const tag = path.basename(runDir);
  // Wait until the extension host of this run is up, so the interruption has something to tear down.
  const t0 = Date.now();
  while (!processesWith(tag).some((l) => /extensionHost|bootstrap-fork/.test(l)) && Date.now() - t0 < 20000) {
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(processesWith(tag).length > 0, 'the run had live processes before the interruption');
  child.kill('SIGINT');
  const code = await new Promise((r) => child.on('exit', (c, s) => r(c ?? s)));
  assert.equal(code, 130, 'the runner exits with 130 on SIGINT');
  assert.deepEqual(processesWith(tag), [], 'no process of the interrupted run is left');
  assert.equal(fs.existsSync(runDir), false, 'the run folder is removed');
});

await runCleanups();
const failed = results.filter((ok) => !ok).length;
console.log(`\nharness: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
