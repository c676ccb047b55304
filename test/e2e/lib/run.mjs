// One e2e run: a temporary folder, an agent home, code-server with the test environment, a browser.
// Everything is torn down by `close()` and, whatever happens, by the cleanup hooks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser } from './browser.mjs';
import { onCleanup, onExitSync } from './cleanup.mjs';
import { startCodeServer } from './codeServer.mjs';
import { fixturesDir, resultsDir } from './paths.mjs';
import { createAgentHome, createTestWorkspace } from './workspace.mjs';

const t0 = Date.now();
/** Prints a line with the seconds since the run started. @param {string} msg */
export function lap(msg) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
}

/**
 * @typedef {object} ServerOptions what a UI file may ask of its code-server (`export const server = {…}`)
 * @property {boolean} [workspaceTrust] Workspace Trust on, so the folder can open in restricted mode
 * @property {Record<string, string>} [env] extra environment for code-server and its extension hosts
 * @property {Record<string, unknown>} [settings] user settings over the test profile's
 */
/** @type {Required<ServerOptions>} the options the next `openRun` uses unless told otherwise */
const serverOptions = { workspaceTrust: false, env: {}, settings: {} };

/**
 * Sets the server options of the following runs (the runner does so for a UI file exporting `server`).
 * @param {ServerOptions} opts
 * @returns {() => void} restores the defaults
 */
export function useServerOptions(opts) {
  Object.assign(serverOptions, { workspaceTrust: opts.workspaceTrust === true, env: { ...opts.env }, settings: { ...opts.settings } });
  return () => Object.assign(serverOptions, { workspaceTrust: false, env: {}, settings: {} });
}

/**
 * @param {object} opts
 * @param {string} opts.name tier name, used for kept logs (`test-results/<name>-…`)
 * @param {Record<string, string>} [opts.env] extra environment for code-server and its extension hosts
 * @param {boolean} [opts.browser] launch chromium (default true)
 * @param {boolean} [opts.workspaceTrust] start code-server with Workspace Trust on (default: `serverOptions`)
 * `workspace` is a fresh test workspace (its path is HANDOFF_TEST_WORKSPACE in the extension host);
 * `newWorkspace()` makes another one, with its own transcript in the same agent home.
 */
export async function openRun({ name, env = {}, browser: withBrowser = true, workspaceTrust = serverOptions.workspaceTrust }) {
  const runDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `handoff-${name}-`)));
  const removeRunDir = () => {
    if (process.env.HANDOFF_KEEP_RUN) console.log(`run folder kept: ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  };
  const unregisterRm = onCleanup(removeRunDir);
  // Also when something exits the process before the async cleanup reaches the folder.
  const unregisterRmSync = onExitSync(() => { if (!process.env.HANDOFF_KEEP_RUN) fs.rmSync(runDir, { recursive: true, force: true }); });
  const agentHome = createAgentHome(runDir);
  // The editor and the command line a test runs are one user: one state folder, so one ledger key
  // (a packet the test's `handoff generate` writes is "written here" for the extension too).
  const stateDir = path.join(runDir, 'state');
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  process.env.HANDOFF_STATE_DIR = stateDir;
  let count = 0;
  /** A fresh workspace (git repo + fixture workbench + transcript for it in the agent home). */
  const newWorkspace = () => {
    const dir = path.join(runDir, `ws-${++count}`);
    fs.mkdirSync(dir);
    return createTestWorkspace(dir, agentHome).workspace;
  };
  const workspace = newWorkspace();
  const testEnv = {
    HANDOFF_TEST_WORKSPACE: workspace,
    CLAUDE_CONFIG_DIR: agentHome.claudeDir,
    CODEX_HOME: agentHome.codexHome,
    HANDOFF_TEST_CLAUDE_DIR: agentHome.claudeDir,
    HANDOFF_TEST_CODEX_HOME: agentHome.codexHome,
    HANDOFF_FIXTURES: fixturesDir(),
    HANDOFF_TEST_RESULTS: path.join(runDir, 'inhost-results.json'),
    HANDOFF_STATE_DIR: stateDir,
    ...serverOptions.env,
    ...env,
  };
  const cs = await startCodeServer({ runDir, env: testEnv, workspaceTrust, settings: serverOptions.settings });
  lap(`code-server up on ${cs.base} (run folder ${runDir})${workspaceTrust ? ' with Workspace Trust on' : ''}`);
  const browser = withBrowser ? await launchBrowser(path.basename(runDir)) : null;
  const consoleLog = path.join(runDir, 'browser-console.log');

  /** Copies the run's logs to test-results/ so a failure can be read after the run folder is gone. */
  const keepLogs = () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    for (const [from, to] of [[cs.log, `${name}-code-server.log`], [consoleLog, `${name}-browser-console.log`]]) {
      try { fs.copyFileSync(from, path.join(resultsDir, to)); } catch { /* not written */ }
    }
    console.log(`logs kept in ${path.relative(process.cwd(), resultsDir) || '.'}/${name}-*.log`);
  };
  const close = async () => {
    await browser?.close().catch(() => {});
    await cs.stop();
    unregisterRm();
    unregisterRmSync();
    removeRunDir();
  };
  return { runDir, agentHome, workspace, newWorkspace, testEnv, cs, browser, consoleLog, keepLogs, close };
}
