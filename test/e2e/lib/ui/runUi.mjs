// The UI tier: every test/e2e/ui/*.ui.mjs file exports `steps` ({name, fn(ui)}[]) and optionally
// `prepare({workspace, claudeDir, codexHome})`, run before the workbench opens; each file gets a fresh
// workspace and a fresh browser page on one code-server, steps run in order, a failing step keeps a
// screenshot in test-results/ui/. Ends with `ui: N passed, N failed`.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { newWorkbenchPage } from '../browser.mjs';
import { workbenchUrl } from '../codeServer.mjs';
import { repoRoot, resultsDir } from '../paths.mjs';
import { lap, openRun } from '../run.mjs';
import { createUi } from './helpers.mjs';

const uiDir = path.join(repoRoot, 'test', 'e2e', 'ui');
const STEP_TIMEOUT = Number(process.env.HANDOFF_UI_STEP_TIMEOUT_MS ?? 90000);

/** Every UI test file, in name order. */
export function uiTestFiles() {
  return fs.readdirSync(uiDir).filter((f) => f.endsWith('.ui.mjs')).sort().map((f) => path.join(uiDir, f));
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs UI test files against one code-server.
 * @param {{files?: string[], extensionPath?: string, group?: string}} [opts] files default to every
 *   test/e2e/ui/*.ui.mjs; with `group`, the run is one part of a tier and prints a group line instead of
 *   the tier's closing line (the caller prints that once, for all groups)
 * @returns {Promise<{passed: number, failed: number}>}
 */
export async function runUi(opts = {}) {
  const files = opts.files?.length ? opts.files.map((f) => path.resolve(f)) : uiTestFiles();
  const extensionPath = opts.extensionPath ?? repoRoot;
  const run = await openRun({ name: 'ui', env: { HANDOFF_TEST_EXTENSION_PATH: extensionPath } });
  let passed = 0;
  let failed = 0;
  try {
    for (const [i, file] of files.entries()) {
      const label = path.basename(file, '.ui.mjs');
      console.log(`\n  ${label}`);
      // Failure screenshots of an earlier run of this file would be mistaken for this run's.
      const shots = path.join(resultsDir, 'ui');
      if (fs.existsSync(shots)) {
        for (const f of fs.readdirSync(shots)) if (f.startsWith(`${label}--`)) fs.rmSync(path.join(shots, f));
      }
      let steps;
      let prepare;
      try {
        ({ steps, prepare } = await import(pathToFileURL(file).href));
        if (!Array.isArray(steps) || !steps.length) throw new Error('exports no `steps` array');
      } catch (e) {
        failed++;
        console.log(`    ✗ ${label}: cannot load: ${e instanceof Error ? e.message : e}`);
        continue;
      }
      const workspace = i === 0 ? run.workspace : run.newWorkspace();
      const { context, page } = await newWorkbenchPage(run.browser, run.cs.base, run.consoleLog);
      page.setDefaultTimeout(15000);
      const ui = createUi(page, { workspace, claudeDir: run.agentHome.claudeDir, codexHome: run.agentHome.codexHome, extensionPath, file });
      try {
        // A file may shape its workspace before the workbench opens it (e.g. a folder without workbench files).
        if (typeof prepare === 'function') await prepare({ workspace, claudeDir: run.agentHome.claudeDir, codexHome: run.agentHome.codexHome });
        // A busy machine can take well over the default 15 s to serve the workbench.
        await page.goto(workbenchUrl(run.cs, { folder: workspace, extensionDevelopmentPath: extensionPath }), { timeout: 60000 });
        await ui.workbenchReady();
        for (const step of steps) {
          const t0 = Date.now();
          try {
            await withTimeout(Promise.resolve().then(() => step.fn(ui)), step.timeout ?? STEP_TIMEOUT, step.name);
            passed++;
            console.log(`    ✔ ${step.name} (${Date.now() - t0} ms)`);
          } catch (e) {
            failed++;
            const shot = await ui.screenshot(`${label}--${step.name}`).catch(() => '(no screenshot)');
            console.log(`    ✗ ${step.name}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
            console.log(`      screenshot: ${path.relative(repoRoot, shot)}`);
            // A modal dialog or an open palette left by the failure would block the next steps.
            await page.keyboard.press('Escape').catch(() => {});
          }
        }
      } catch (e) {
        failed++;
        await ui.screenshot(`${label}--workbench`).catch(() => {});
        console.log(`    ✗ ${label}: workbench did not load: ${e instanceof Error ? e.message : e}`);
      } finally {
        await context.close().catch(() => {});
      }
    }
    lap('UI files done');
    if (failed) run.keepLogs();
  } finally {
    await run.close();
  }
  const where = failed ? ` (screenshots in ${path.relative(repoRoot, resultsDir)}/ui/)` : '';
  if (opts.group) console.log(`\n  ${opts.group}: ${passed} of ${passed + failed} steps passed${where}`);
  else console.log(`\nui: ${passed} passed, ${failed} failed${where}`);
  return { passed, failed };
}
