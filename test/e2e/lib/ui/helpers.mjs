// Playwright helpers for driving the VS Code workbench (code-server) in UI tests.
import fs from 'node:fs';
import path from 'node:path';
import { resultsDir } from '../paths.mjs';

/** @typedef {import('playwright-core').Page} Page */
/** @typedef {import('playwright-core').Locator} Locator */

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const cssId = (id) => `#${id.replace(/([^a-zA-Z0-9_-])/g, '\\$1')}`;

/**
 * Polls `probe` until it returns a truthy value.
 * @template T
 * @param {() => T | Promise<T>} probe
 * @param {number} [timeoutMs]
 * @param {string} [what] described in the timeout error
 * @returns {Promise<T>}
 */
export async function waitFor(probe, timeoutMs = 15000, what = 'condition') {
  const t0 = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/**
 * The helper object every UI step receives.
 * @param {Page} page
 * @param {{workspace: string, claudeDir: string, codexHome: string, extensionPath: string, file: string}} ctx
 */
export function createUi(page, ctx) {
  const manifest = JSON.parse(fs.readFileSync(path.join(ctx.extensionPath, 'package.json'), 'utf8'));

  const ui = {
    page,
    ...ctx,
    /** The extension's package.json. */
    manifest,
    /** `<publisher>.<name>` of the extension under test. */
    extensionId: `${manifest.publisher}.${manifest.name}`,
    waitFor,

    /** Waits until the workbench is drawn (editor area + status bar). */
    async workbenchReady(timeout = 60000) {
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout });
    },

    /**
     * Runs a command from the F1 palette by its exact label, e.g. "Session Handoff: Show Log".
     * @param {string} label category + title as the palette shows it
     */
    async runCommand(label) {
      // The palette list can re-render under the pointer (commands arriving, a view taking focus), so
      // a click that cannot land is retried on a freshly opened palette rather than waited out.
      for (let attempt = 1; ; attempt++) {
        const row = await ui.paletteRow(label);
        try {
          await row.click({ timeout: 5000 });
          break;
        } catch (e) {
          if (attempt >= 3) throw e;
        }
      }
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    },

    /**
     * Opens the palette and types `label`; returns the row whose label matches exactly (the palette stays
     * open: press Escape or click the row).
     * @param {string} label
     * @param {number} [timeout]
     * @returns {Promise<Locator>}
     */
    async paletteRow(label, timeout = 20000) {
      const input = page.locator('.quick-input-widget .quick-input-box input');
      const row = page.locator('.quick-input-list .monaco-list-row', {
        has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(label)}$`) }),
      }).first();
      // The palette reads the command list when it opens; right after start-up an extension's
      // commands can be missing from it, so reopen it until the row shows.
      const t0 = Date.now();
      for (;;) {
        try {
          await page.keyboard.press('Escape');
          await page.keyboard.press('F1');
          // Right after a command ran, the palette can open before it takes input: try again then.
          await input.waitFor({ state: 'visible', timeout: 4000 });
          await input.fill(`>${label}`, { timeout: 4000 });
          await row.waitFor({ state: 'visible', timeout: 4000 });
          return row;
        } catch (e) {
          if (Date.now() - t0 > timeout) throw new Error(`"${label}" is not in the command palette`, { cause: e });
        }
      }
    },

    /**
     * A status bar item by its id (`<extension id>.<item id>`, or the bare item id of this extension) or
     * by (part of) its text.
     * @param {string} idOrText
     * @returns {Locator}
     */
    statusBarItem(idOrText) {
      if (/^[\w.-]+$/.test(idOrText) && idOrText.includes('.')) {
        const full = idOrText.startsWith(`${ui.extensionId}.`) ? idOrText : `${ui.extensionId}.${idOrText}`;
        return page.locator(`${cssId(full)}, ${cssId(idOrText)}`).first();
      }
      return page.locator('.part.statusbar .statusbar-item', { hasText: idOrText }).first();
    },

    /**
     * Text of a status bar item once it is visible.
     * @param {string} idOrText
     */
    async statusBarText(idOrText, timeout = 30000) {
      const item = ui.statusBarItem(idOrText);
      await item.waitFor({ state: 'visible', timeout });
      return (await item.innerText()).trim();
    },

    /**
     * Shows a view container from the activity bar by its title (e.g. "Session Handoff").
     * @param {string} title
     */
    async openContainer(title) {
      const item = page.locator('.part.activitybar .action-item', {
        has: page.locator(`.action-label[aria-label^="${title}"]`),
      }).first();
      await item.waitFor({ state: 'visible' });
      // Clicking the active container would collapse the side bar.
      if (!(await item.getAttribute('class'))?.split(/\s+/).includes('checked')) await item.click();
      await page.locator('.part.sidebar .composite.title', { hasText: title }).first().waitFor({ state: 'visible' });
    },

    /**
     * The pane of a view (header + body), expanded.
     * @param {string} viewTitle the view's name as its header shows it
     * @returns {Promise<Locator>}
     */
    async view(viewTitle) {
      const header = page.locator('.pane-header', { has: page.locator('h3.title', { hasText: new RegExp(`^${escapeRe(viewTitle)}$`, 'i') }) }).first();
      await header.waitFor({ state: 'visible' });
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      return header.locator('xpath=ancestor::div[contains(concat(" ", normalize-space(@class), " "), " pane ")][1]');
    },

    /**
     * Rows of a tree view, as their visible text (label, description, badge joined by spaces), top to bottom.
     * @param {string} viewTitle
     * @param {{min?: number, timeout?: number}} [opts] wait until at least `min` rows are drawn (default 1)
     * @returns {Promise<string[]>}
     */
    async treeRows(viewTitle, { min = 1, timeout = 15000 } = {}) {
      const pane = await ui.view(viewTitle);
      const rows = pane.locator('.monaco-list-row');
      await waitFor(async () => (await rows.count()) >= min, timeout, `${min} row(s) in "${viewTitle}"`);
      // Label, description and badges are separate elements: join their texts with spaces.
      return rows.evaluateAll((els) => els.map((el) => {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        const parts = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.textContent?.trim()) parts.push(n.textContent.trim());
        return parts.join(' ');
      }));
    },

    /**
     * A row of a tree view whose text contains `text` (to click, hover or open its context menu).
     * @param {string} viewTitle
     * @param {string | RegExp} text
     * @returns {Promise<Locator>}
     */
    async treeRow(viewTitle, text) {
      const pane = await ui.view(viewTitle);
      return pane.locator('.monaco-list-row', { hasText: text }).first();
    },

    /**
     * The content frame of a webview (the newest one when several are open).
     * @param {number} [index] which `iframe.webview.ready`, default the last
     */
    webview(index = -1) {
      return page.frameLocator(`iframe.webview.ready >> nth=${index}`).frameLocator('#active-frame');
    },

    /**
     * Texts of the notifications in the notification centre (toasts are off with the smoke-test driver).
     * With `text`, waits until a notification containing it appears and returns the matching ones.
     * @param {string | RegExp} [text]
     * @param {number} [timeout]
     * @returns {Promise<string[]>}
     */
    async readNotifications(text, timeout = 15000) {
      const center = page.locator('.notifications-center');
      const bell = page.locator('#status\\.notifications');
      const read = async () => {
        if (!(await page.locator('.notifications-center.visible').count())) await bell.click();
        await center.waitFor({ state: 'visible' });
        return (await center.locator('.notification-list-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      };
      try {
        if (text === undefined) return await read();
        const match = (t) => (typeof text === 'string' ? t.includes(text) : text.test(t));
        const found = await waitFor(async () => {
          const all = await read();
          return all.some(match) && all.filter(match);
        }, timeout, `notification ${text}`);
        return found || [];
      } finally {
        if (await page.locator('.notifications-center.visible').count()) await bell.click().catch(() => {});
      }
    },

    /**
     * The text of the modal dialog on screen (errors of palette commands show as one with the smoke-test
     * driver), or null when none is shown. With `button`, clicks that button to close it.
     * @param {string} [button]
     * @returns {Promise<string | null>}
     */
    async readDialog(button) {
      const dialog = page.locator('.monaco-dialog-box');
      if (!(await dialog.count())) return null;
      const text = (await dialog.first().innerText()).replace(/\s+/g, ' ').trim();
      if (button) await dialog.locator('.monaco-button', { hasText: button }).first().click();
      return text;
    },

    /** Clears every notification (so the next readNotifications sees only new ones). */
    async clearNotifications() {
      await ui.runCommand('Notifications: Clear All Notifications');
    },

    /**
     * Saves a screenshot of the workbench to test-results/ui/<name>.png.
     * @param {string} name
     * @returns {Promise<string>} the file path
     */
    async screenshot(name) {
      const file = path.join(resultsDir, 'ui', `${name.replace(/[^\w.-]+/g, '_')}.png`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      await page.screenshot({ path: file });
      return file;
    },

    /** The browser clipboard's text (clipboard permissions are granted to the workbench). */
    async readClipboard() {
      return page.evaluate(() => navigator.clipboard.readText());
    },
  };
  return ui;
}
