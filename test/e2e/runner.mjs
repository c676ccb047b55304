// e2e runner: the in-host suite or the Playwright UI tests inside a real VS Code (code-server), offline.
// Usage: node test/e2e/runner.mjs inhost [--grep <title regexp>] [--no-build]
//        node test/e2e/runner.mjs ui [--no-build] [test/e2e/ui/<file>.ui.mjs …]
// Exit code 0 only when every test passed; code-server and chromium are always stopped.
// A UI file that exports `server = { workspaceTrust: true, env: {…} }` runs on its own code-server with
// those options (the others share one with Workspace Trust off, so every folder is trusted).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCleanups, shuttingDownNow } from './lib/cleanup.mjs';
import { runInHost } from './lib/inhost.mjs';
import { repoRoot } from './lib/paths.mjs';
import { useServerOptions } from './lib/run.mjs';
import { runUi, uiTestFiles } from './lib/ui/runUi.mjs';

/** The bundles and the transpiled suite, in one esbuild process. */
function build() {
  const r = spawnSync(process.execPath, ['esbuild.mjs', '--all'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed: node esbuild.mjs --all');
}

/** The `server` options a UI file exports, or null; a file that cannot load is left to runUi to report. */
async function serverOptionsOf(file) {
  try {
    const { server } = await import(pathToFileURL(path.resolve(file)).href);
    return server && typeof server === 'object' ? server : null;
  } catch {
    return null;
  }
}

/** The UI tier: the usual files share one code-server; a file exporting `server` options gets its own. */
async function runUiTier(files) {
  const all = files.length ? files : uiTestFiles();
  const own = [];
  for (const f of all) {
    const server = await serverOptionsOf(f);
    if (server) own.push({ file: f, server });
  }
  if (!own.length) return runUi({ files: all });
  const usual = all.filter((f) => !own.some((o) => o.file === f));
  const total = { passed: 0, failed: 0 };
  const add = (r) => { total.passed += r.passed; total.failed += r.failed; };
  if (usual.length) add(await runUi({ files: usual, group: 'shared workbench' }));
  for (const { file, server } of own) {
    const restore = useServerOptions(server);
    try {
      add(await runUi({ files: [file], group: path.basename(file) }));
    } finally {
      restore();
    }
  }
  // One closing line for the tier, as every tier has.
  console.log(`\nui: ${total.passed} passed, ${total.failed} failed`);
  return total;
}

const [tier, ...rest] = process.argv.slice(2);
const flags = new Set(rest.filter((a) => a.startsWith('--')));
const grepAt = rest.indexOf('--grep');
const grep = grepAt >= 0 ? rest[grepAt + 1] : undefined;
const files = rest.filter((a, i) => !a.startsWith('--') && !(grepAt >= 0 && i === grepAt + 1));

let result;
try {
  if (tier !== 'inhost' && tier !== 'ui') {
    console.error('usage: node test/e2e/runner.mjs inhost|ui [--no-build] [--grep <regexp>] [ui files…]');
    process.exit(2);
  }
  if (!flags.has('--no-build')) build();
  result = tier === 'inhost' ? await runInHost({ grep }) : await runUiTier(files);
} catch (e) {
  // Ctrl-C closes the browser under the running tier: the signal handler reports and exits (130).
  if (shuttingDownNow()) await new Promise(() => {});
  console.error(`\n${tier}: ${e instanceof Error ? e.message : e}`);
  console.log(`${tier}: 0 passed, 1 failed (the harness could not run the tier)`);
  result = { passed: 0, failed: 1 };
} finally {
  await runCleanups();
}
if (shuttingDownNow()) await new Promise(() => {});
process.exit(result.failed > 0 || result.passed === 0 ? 1 : 0);
