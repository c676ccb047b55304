// The in-host tier: the mocha suite (test/integration, compiled to out/) runs inside code-server's
// extension host, exactly like @vscode/test-electron's extensionTestsPath; results come back through
// the workbench automation hooks and a JSON summary the suite writes.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import { newWorkbenchPage } from './browser.mjs';
import { workbenchUrl } from './codeServer.mjs';
import { repoRoot, resultsDir } from './paths.mjs';
import { lap, openRun } from './run.mjs';

// Workbench chatter (connection set-up, offline marketplace/auth lookups, stack frames) kept out of the
// CI log; everything is still in test-results/inhost-output.log when the tier fails.
const NOISE = new RegExp([
  'open-vsx', 'ENOTFOUND', 'EAI_AGAIN', 'marketplace', '^\\s+at ', 'connection token', 'Creating a socket',
  '\\[reconnection-grace-time\\]', 'Updating additional builtin', '\\[Service Worker\\]', '\\[AgentHost',
  '\\[AccountPolicyGate\\]', 'authentication provider',
].join('|'));

/**
 * Runs the in-host suite and prints `inhost: N passed, N failed`.
 * @param {object} [opts]
 * @param {string} [opts.extensionPath] extension under development (default: the repository)
 * @param {string} [opts.testsPath] suite entry exporting run() (default: out/test/integration/index.js)
 * @param {string} [opts.grep] only tests whose full title matches
 * @param {number} [opts.timeoutMs] whole-suite timeout
 * @returns {Promise<{passed: number, failed: number, tests: {title: string, state: string, error?: string}[]}>}
 */
export async function runInHost(opts = {}) {
  const extensionPath = opts.extensionPath ?? repoRoot;
  const testsPath = opts.testsPath ?? path.join(repoRoot, 'out', 'test', 'integration', 'index.js');
  const timeoutMs = opts.timeoutMs ?? Number(process.env.HANDOFF_INHOST_TIMEOUT_MS ?? 300000);
  if (!fs.existsSync(testsPath)) throw new Error(`${testsPath} missing: run \`node esbuild.mjs --tests\` first`);

  const run = await openRun({
    name: 'inhost',
    env: {
      HANDOFF_TEST_EXTENSION_PATH: extensionPath,
      ...(opts.grep ? { HANDOFF_TEST_GREP: opts.grep } : {}),
    },
  });
  let passed = 0;
  let failed = 0;
  let note = '';
  /** @type {{title: string, state: string, error?: string}[]} */
  let tests = [];
  try {
    const { page } = await newWorkbenchPage(run.browser, run.cs.base, run.consoleLog);
    const log = fs.createWriteStream(path.join(run.runDir, 'inhost-output.log'));
    let settle = (_code) => {};
    const exited = new Promise((r) => { settle = r; });
    // The same hooks @vscode/test-web installs: the workbench forwards the extension host's console
    // here while extension tests run, and calls codeAutomationExit(code) when run() settles.
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = util.format(...(Array.isArray(args) ? args : [args]));
      log.write(`[${type}] ${text}\n`);
      for (const line of text.split('\n')) if (line.trim() && !NOISE.test(line)) console.log(`  | ${line}`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => settle(code));
    const url = workbenchUrl(run.cs, { folder: run.workspace, extensionDevelopmentPath: extensionPath, extensionTestsPath: testsPath });
    lap('opening the workbench; the suite runs in the extension host');
    await page.goto(url);
    let timer;
    const code = await Promise.race([exited, new Promise((r) => { timer = setTimeout(() => r('timeout'), timeoutMs); })]);
    clearTimeout(timer);
    lap(`suite finished (exit code ${code})`);
    const summary = readSummary(run.testEnv.HANDOFF_TEST_RESULTS);
    if (summary) ({ passed, failed, tests } = summary);
    if (code === 'timeout') { failed += 1; note = ` (suite timed out after ${timeoutMs / 1000} s)`; }
    else if (code !== 0 && failed === 0) { failed = 1; note = ' (the suite did not run: see the log above)'; }
    else if (!summary) { failed += 1; note = ' (the suite wrote no summary)'; }
    if (failed) {
      fs.mkdirSync(resultsDir, { recursive: true });
      await page.screenshot({ path: path.join(resultsDir, 'inhost-failure.png') }).catch(() => {});
      await new Promise((resolve) => log.end(resolve)); // flushed before it is copied
      fs.copyFileSync(path.join(run.runDir, 'inhost-output.log'), path.join(resultsDir, 'inhost-output.log'));
      run.keepLogs();
    }
  } finally {
    await run.close();
  }
  console.log(`\ninhost: ${passed} passed, ${failed} failed${note}`);
  return { passed, failed, tests };
}

function readSummary(file) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    return { passed: Number(r.passed) || 0, failed: Number(r.failed) || 0, tests: Array.isArray(r.tests) ? r.tests : [] };
  } catch {
    return null;
  }
}
