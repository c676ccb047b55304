// `npm test`: type-check, lint, unit tests, then the tiers inside a real VS Code workbench.
// Each tier ends with a plain `N passed, N failed` line; the first failing tier fails the run.
// Usage: node scripts/test.mjs [tier…]   tiers: typecheck lint unit inhost ui
import { spawnSync } from 'node:child_process';

const ALL = ['typecheck', 'lint', 'unit', 'inhost', 'ui'];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
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
  unit: () =>
    run('node', ['esbuild.mjs', '--tests']) &&
    run(npx, ['mocha', '--reporter', './scripts/mocha-reporter.cjs', '--reporter-option', 'tier=unit',
      '--timeout', '20000', '--recursive', 'out/test/unit/**/*.test.js']),
};

let failed = false;
for (const name of wanted) {
  const tier = tiers[name];
  if (!tier) { console.error(`unknown test tier: ${name} (known: ${ALL.join(', ')})`); process.exit(2); }
  console.log(`\n=== ${name} ===`);
  if (!tier()) { failed = true; console.error(`\n${name} failed`); break; }
}
process.exit(failed ? 1 : 0);
