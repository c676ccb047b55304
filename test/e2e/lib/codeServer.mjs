// Starts an isolated code-server (VS Code web, on Node 24) on a free loopback port, in its own
// process group, and stops the whole group again.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { codeServerEntry, node24Bin, node24Pkg } from './paths.mjs';
import { killGroup, onCleanup, trackGroup } from './cleanup.mjs';

/** User settings of the test profile: nothing phones home, nothing pops up, built-in git stays out. */
export const userSettings = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  // The extension's first-run walkthrough would open in whichever test activates it first; a test of
  // the walkthrough turns this back on for its own workbench (`server.settings`).
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
};

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(base, child, log, timeoutMs) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode}); log:\n${tail(log)}`);
    }
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server not ready after ${timeoutMs} ms; log:\n${tail(log)}`);
}

/** Last lines of a log file, for error messages. @param {string} file */
export function tail(file, lines = 30) {
  try { return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n'); } catch { return '(no log)'; }
}

/**
 * @typedef {object} CodeServer
 * @property {number} port
 * @property {string} authority `127.0.0.1:<port>`
 * @property {string} base `http://127.0.0.1:<port>`
 * @property {string} log path of code-server's output
 * @property {number} pgid process group of code-server and everything it forks
 * @property {() => Promise<void>} stop kills the whole process group (idempotent)
 */

/**
 * Starts code-server with its own HOME/XDG/user-data/extensions dirs under `runDir`.
 * @param {object} opts
 * @param {string} opts.runDir an existing temporary folder for this run
 * @param {Record<string, string>} [opts.env] extra environment for the server and its extension hosts
 * @param {boolean} [opts.devPayload] honour `?payload=` (extensionDevelopmentPath/extensionTestsPath); default true
 * @param {string[]} [opts.args] extra code-server arguments
 * @param {boolean} [opts.workspaceTrust] keep Workspace Trust on (default off: every folder is trusted), so a
 *   test can open a folder in restricted mode
 * @param {Record<string, unknown>} [opts.settings] user settings over the test profile's
 * @returns {Promise<CodeServer>}
 */
export async function startCodeServer({ runDir, env = {}, devPayload = true, args = [], workspaceTrust = false, settings = {} }) {
  if (!fs.existsSync(codeServerEntry) || !fs.existsSync(node24Bin)) {
    throw new Error('code-server is not installed: run `npm run e2e:install`');
  }
  const dirs = Object.fromEntries(['user-data', 'extensions', 'home', 'xdg-config', 'xdg-data', 'xdg-cache', 'tmp']
    .map((d) => [d, path.join(runDir, 'cs', d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  fs.mkdirSync(path.join(dirs['user-data'], 'User'), { recursive: true });
  const merged = { ...userSettings, 'security.workspace.trust.enabled': workspaceTrust, ...settings };
  fs.writeFileSync(path.join(dirs['user-data'], 'User', 'settings.json'), JSON.stringify(merged, null, 2));
  // Machine-scoped settings reach the (remote) extension host from the Machine settings only.
  const machineKeys = ['workbench.welcomePage.walkthroughs.openOnInstall'];
  fs.mkdirSync(path.join(dirs['user-data'], 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(dirs['user-data'], 'Machine', 'settings.json'), JSON.stringify(
    Object.fromEntries(machineKeys.filter((k) => k in merged).map((k) => [k, merged[k]])), null, 2));
  const config = path.join(runDir, 'cs', 'config.yaml');
  fs.writeFileSync(config, 'auth: none\n');

  const port = await freePort();
  const authority = `127.0.0.1:${port}`;
  const log = path.join(runDir, 'code-server.log');
  const out = fs.openSync(log, 'a');
  const childEnv = {
    ...process.env,
    ...env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs['xdg-config'],
    XDG_DATA_HOME: dirs['xdg-data'],
    XDG_CACHE_HOME: dirs['xdg-cache'],
    // The server's IPC sockets and the extension host's temp files go away with the run folder.
    TMPDIR: dirs.tmp,
    PATH: `${path.join(node24Pkg, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  delete childEnv.NODE_OPTIONS;
  const child = spawn(node24Bin, [
    codeServerEntry,
    '--config', config, '--auth', 'none', '--bind-addr', authority,
    '--user-data-dir', dirs['user-data'], '--extensions-dir', dirs.extensions,
    '--disable-telemetry', '--disable-update-check', ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override', '--ignore-last-opened', '--reconnection-grace-time', '5',
    ...(devPayload ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...args,
  ], { detached: true, stdio: ['ignore', out, out], env: childEnv }); // detached = setsid: own process group
  fs.closeSync(out);
  const pgid = /** @type {number} */ (child.pid);
  trackGroup(pgid);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    unregister();
    await killGroup(pgid);
  };
  const unregister = onCleanup(stop);
  const base = `http://${authority}`;
  try {
    await waitReady(base, child, log, 30000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { port, authority, base, log, pgid, stop };
}

/**
 * The workbench URL opening `folder` with the extension under development (and optionally a suite to run).
 * @param {CodeServer} cs
 * @param {object} opts
 * @param {string} opts.folder absolute workspace path
 * @param {string} [opts.extensionDevelopmentPath] absolute extension folder
 * @param {string} [opts.extensionTestsPath] absolute path of the suite entry (exports run())
 */
export function workbenchUrl(cs, { folder, extensionDevelopmentPath, extensionTestsPath }) {
  const remote = (p) => `vscode-remote://${cs.authority}${p}`;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  const q = `folder=${encodeURIComponent(folder)}`;
  return `${cs.base}/?${q}${payload.length ? `&payload=${encodeURIComponent(JSON.stringify(payload))}` : ''}`;
}
