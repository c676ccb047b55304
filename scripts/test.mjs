// `npm test`: type-check, lint, unit tests, then the tiers inside a real VS Code workbench.
// Each tier ends with a plain `N passed, N failed` line; the first failing tier fails the run.
// Usage: node scripts/test.mjs [tier…]   tiers: typecheck lint docs unit real agents inhost ui
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ALL = ['typecheck', 'lint', 'docs', 'unit', 'real', 'agents', 'inhost', 'ui'];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

// Ctrl-C reaches the whole foreground group: let the running tier tear its code-server and browser
// down, then stop here instead of starting the next tier.
let interrupted = false;
process.on('SIGINT', () => { interrupted = true; });
process.on('SIGTERM', () => { interrupted = true; });

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.signal === 'SIGINT' || r.status === 130 || interrupted) {
    console.error('\ninterrupted');
    process.exit(130);
  }
  return r.status === 0;
}

/**
 * One build for the whole run: the bundles (dist/, which the CLI tests and the workbench load) and the
 * transpiled tests (out/). Tiers after the first reuse it; the tests see HANDOFF_BUILT and skip theirs.
 */
let built = null;
function buildOnce() {
  built ??= run('node', ['esbuild.mjs', '--all']);
  if (built) process.env.HANDOFF_BUILT = '1';
  return built;
}

/** The in-host and UI tiers need Node 24 + code-server (test/e2e/tools) and chromium: install (once) or explain. */
let e2eInstalled = null;
function e2eReady(tier) {
  e2eInstalled ??= run('node', ['scripts/e2e-install.mjs']);
  if (e2eInstalled) return true;
  console.log(`${tier}: 0 passed, 1 failed (the offline VS Code workbench is not ready: see above, then run \`npm run e2e:install\`)`);
  return false;
}

const tiers = {
  typecheck: () => {
    const ok = run(npx, ['tsc', '-p', '.', '--noEmit']);
    console.log(`typecheck: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
    return ok;
  },
  lint: () => {
    const ok = run(npx, ['eslint', '.']);
    console.log(`lint: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
    return ok;
  },
  // Every relative link and #anchor of README.md and docs/ resolves; prints its own `docs: …` line.
  docs: () => run('node', ['scripts/check-links.mjs']),
  unit: () => {
    if (!buildOnce()) return false;
    // The unit tests make many temporary folders and repositories: give them one parent that goes
    // away afterwards, whatever the outcome.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-unit-'));
    try {
      // The timeout is a bound for a test that hangs, not a speed check: a test of 5 s on a quiet
      // machine takes over 20 s beside two CPU-bound processes, so the bound leaves room for that.
      return run(npx, ['mocha', '--reporter', './scripts/mocha-reporter.cjs', '--reporter-option', 'tier=unit',
        '--timeout', '90000', '--recursive', 'out/test/unit/**/*.test.js'], { TMPDIR: tmp });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
  // The CLI on every real session of the development corpus (../shared/real-sessions), checked against
  // its expect.json; prints its own `real: N passed, N failed` line.
  // Then the credential check on the same corpus, against its credentials.json (precision and recall).
  real: () => buildOnce() && run('node', ['test/real/realSessions.mjs']) && run('node', ['test/real/credentials.mjs']),
  // The real Claude Code and Codex CLIs (pinned in test/e2e/tools/agents, installed from the npm registry
  // on first use) against a scripted model on loopback; prints its own `agents: N passed, N failed` line.
  agents: () => buildOnce() && run('node', ['test/agents/run.mjs']),
  // Both print their own `<tier>: N passed, N failed` line (test/e2e/runner.mjs).
  inhost: () => e2eReady('inhost') && buildOnce() && run('node', ['test/e2e/runner.mjs', 'inhost', '--no-build']),
  ui: () => e2eReady('ui') && buildOnce() && run('node', ['test/e2e/runner.mjs', 'ui', '--no-build']),
};

const started = Date.now();
let failed = false;
for (const name of wanted) {
  const tier = tiers[name];
  if (!tier) { console.error(`unknown test tier: ${name} (known: ${ALL.join(', ')})`); process.exit(2); }
  console.log(`\n=== ${name} ===`);
  if (!tier()) { failed = true; console.error(`\n${name} failed`); break; }
}
console.log(`\ntotal: ${((Date.now() - started) / 1000).toFixed(1)} s (${wanted.join(', ')})`);
process.exit(failed ? 1 : 0);
