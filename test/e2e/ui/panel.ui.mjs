// The handoff panel in the real workbench: Generate Handoff on a dirty tree asks through a modal,
// Generate Anyway writes the packet and opens the panel, the panel shows the next action, Copy Restart
// Prompt fills the clipboard, hostile packet text renders as text, and screenshots go to the README
// (with HANDOFF_DOC_IMAGES=1 they are also written to docs/images/: panel.png and overview.png).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const NEXT_ACTION = /Run pytest tests\/test_refund\.py::test_partial/;
const XSS = '<img src=x onerror=alert(1)>';

/** Handoff packet folders written in the workspace. */
function packets(ui) {
  const out = path.join(ui.workspace, 'outputs', 'handoff');
  if (!fs.existsSync(out)) return [];
  return fs.readdirSync(out).filter((d) => fs.existsSync(path.join(out, d, 'handoff.json')));
}

/** Runs Generate Handoff from the palette and waits for its dirty-workbench modal. */
async function generateUntilModal(ui) {
  // The extension's status bar item appears once it is active, i.e. once its commands are registered.
  await ui.statusBarText('sessionHandoff.context', 60000);
  await ui.runCommand('Session Handoff: Generate Handoff');
  return ui.waitFor(() => ui.readDialog(), 30000, 'the dirty-workbench modal');
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'Generate Handoff on a dirty tree shows the findings in a modal',
    fn: async (ui) => {
      fs.writeFileSync(path.join(ui.workspace, 'scratch.tmp'), 'left over\n');
      const text = await generateUntilModal(ui);
      assert.match(text, /is not clean/);
      assert.match(text, /scratch\.tmp/);
      assert.match(text, /Generate Anyway/);
      assert.match(text, /Show Clean State/);
      assert.deepEqual(packets(ui), [], 'nothing is written before the user decides');
    },
  },
  {
    name: 'Generate Anyway writes the packet and opens the panel on its next action',
    fn: async (ui) => {
      await ui.readDialog('Generate Anyway');
      await ui.waitFor(() => packets(ui).length === 1, 30000, 'handoff.json on disk');
      const next = ui.webview().locator('[data-testid="next-action"]');
      await next.waitFor({ state: 'visible', timeout: 30000 });
      assert.match(await next.innerText(), NEXT_ACTION);
      const risks = await ui.webview().locator('[data-section="risks"]').innerText();
      assert.match(risks, /scratch\.tmp/, 'the accepted finding is a risk in the packet');
    },
  },
  {
    name: 'Copy Restart Prompt (keyboard) puts the prompt in the clipboard and says Copied',
    fn: async (ui) => {
      await ui.page.evaluate(() => navigator.clipboard.writeText(''));
      const button = ui.webview().locator('#copy-prompt');
      await button.focus();
      await ui.page.keyboard.press('Enter');
      await ui.waitFor(async () => (await button.innerText()).includes('Copied'), 10000, 'the "Copied" feedback');
      const prompt = await ui.waitFor(() => ui.readClipboard(), 10000, 'the clipboard');
      const first = prompt.split('\n').slice(0, 3).join('\n');
      assert.match(first, /continuing work handed off from a previous session \(refund-s3/);
      assert.match(first, /branch feat\/upi-refund/);
      assert.match(prompt, new RegExp(`NEXT ACTION[^\\n]*\\n> ${NEXT_ACTION.source}`));
    },
  },
  {
    name: 'a screenshot of the panel is saved for the README',
    fn: async (ui) => {
      await ui.webview().locator('[data-section="failed"]').waitFor({ state: 'visible' });
      // The README shows the panel at rest (the "Copied" feedback has reverted) with room to breathe.
      const copy = ui.webview().locator('#copy-prompt');
      await ui.waitFor(async () => (await copy.innerText()).includes('Copy Restart Prompt'), 10000, 'the button label to revert');
      await ui.runCommand('View: Close Primary Side Bar');
      // Always kept with the run's results; with HANDOFF_DOC_IMAGES=1 also refreshed for the README.
      const file = await ui.screenshot('panel');
      assert.ok(fs.statSync(file).size > 10_000, 'a real image');
      if (process.env.HANDOFF_DOC_IMAGES) {
        const doc = path.join(ui.extensionPath, 'docs', 'images', 'panel.png');
        fs.mkdirSync(path.dirname(doc), { recursive: true });
        fs.copyFileSync(file, doc);
      }
      await ui.runCommand('View: Toggle Primary Side Bar Visibility');
    },
  },
  {
    name: 'the overview: sidebar, panel and context meter in one screenshot, for the README',
    fn: async (ui) => {
      // The README's first picture: the Session Handoff views beside the panel, the meter in the status bar.
      const header = ui.page.locator('.part.sidebar .pane-header h3.title', { hasText: /^Clean State$/i });
      await ui.waitFor(async () => {
        if (await header.first().isVisible()) return true;
        await ui.runCommand('View: Show Session Handoff').catch(() => ui.page.keyboard.press('Escape'));
        return header.first().isVisible();
      }, 30000, 'the Session Handoff container in the sidebar');
      await ui.webview().locator('[data-testid="next-action"]').waitFor({ state: 'visible' });
      assert.match(await ui.statusBarText('sessionHandoff.context'), /\d+%/, 'the meter shows a reading');
      await ui.page.mouse.move(5, 5);
      const file = await ui.screenshot('overview');
      assert.ok(fs.statSync(file).size > 10_000, 'a real image');
      if (process.env.HANDOFF_DOC_IMAGES) {
        const doc = path.join(ui.extensionPath, 'docs', 'images', 'overview.png');
        fs.mkdirSync(path.dirname(doc), { recursive: true });
        fs.copyFileSync(file, doc);
      }
    },
  },
  {
    name: 'a summary with HTML in it renders as text and runs no script',
    fn: async (ui) => {
      const dialogs = [];
      ui.page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const stateFile = path.join(ui.workspace, 'agent_state.json');
      const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
      fs.writeFileSync(stateFile, JSON.stringify({ ...state, summary: `Refunds ${XSS} half done` }, null, 2));
      await ui.webview().locator('#regenerate').click();
      await ui.waitFor(() => ui.readDialog(), 30000, 'the dirty-workbench modal');
      await ui.readDialog('Generate Anyway');
      const summary = ui.webview().locator('[data-testid="summary"]');
      await ui.waitFor(async () => (await summary.innerText().catch(() => '')).includes(XSS), 30000, 'the new summary');
      const body = ui.webview().locator('body');
      assert.equal(await body.evaluate((b) => b.querySelectorAll('img').length), 0, 'no element was created from the text');
      assert.equal(await summary.evaluate((el) => el.children.length), 0, 'the summary is a single text node');
      assert.deepEqual(dialogs, [], 'no alert ran');
      const csp = await ui.webview().locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      assert.match(csp ?? '', /^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]{16,}'; style-src [^;]+; font-src [^;]+$/);
    },
  },
  {
    name: 'the panel survives a window reload (serializer) and still shows the packet',
    fn: async (ui) => {
      await ui.page.evaluate(() => { window.__beforeReload = true; });
      await ui.runCommand('Developer: Reload Window');
      await ui.waitFor(() => ui.page.evaluate(() => window.__beforeReload !== true).catch(() => false), 30000, 'the window to reload');
      await ui.workbenchReady();
      const next = ui.webview().locator('[data-testid="next-action"]');
      await next.waitFor({ state: 'visible', timeout: 60000 });
      assert.match(await next.innerText(), NEXT_ACTION);
      assert.match(await ui.webview().locator('[data-testid="summary"]').innerText(), /Refunds <img/);
    },
  },
];
