// Playwright driving Debian's chromium, offline-friendly, with a throw-away HOME.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromiumPath } from './paths.mjs';
import { onCleanup } from './cleanup.mjs';

/**
 * Launches headless chromium; it is closed by the run's cleanup if the caller does not close it.
 * @param {string} [tag] put on chromium's command line so a check can find this run's browser (pgrep -f)
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchBrowser(tag) {
  const exe = chromiumPath();
  if (!fs.existsSync(exe)) {
    throw new Error(`chromium not found at ${exe}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
  }
  // Keeps crash reports and dconf out of the real home.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-chrome-home-'));
  const browser = await chromium.launch({
    executablePath: exe,
    headless: true,
    // The run's own signal handling closes the browser after code-server; Playwright's would exit first.
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', ...(tag ? [`--handoff-run=${tag}`] : [])],
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: `${home}/.config`, XDG_CACHE_HOME: `${home}/.cache` },
  });
  const unregister = onCleanup(() => browser.close().catch(() => {}));
  browser.on('disconnected', () => {
    unregister();
    fs.rmSync(home, { recursive: true, force: true });
  });
  return browser;
}

/**
 * A fresh context + page sized like a laptop screen, clipboard allowed for the workbench origin; the
 * page's console and errors go to `consoleLog`.
 * @param {import('playwright-core').Browser} browser
 * @param {string} origin e.g. http://127.0.0.1:1234
 * @param {string} consoleLog file that receives the page's console output
 */
export async function newWorkbenchPage(browser, origin, consoleLog) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const out = fs.createWriteStream(consoleLog, { flags: 'a' });
  page.on('console', (m) => out.write(`[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => out.write(`[pageerror] ${e.message}\n`));
  context.on('close', () => out.end());
  return { context, page };
}
