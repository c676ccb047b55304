// Archiving in the real workbench: the Handoffs row and the panel say when the packet was written in
// words people read, Archive leaves the panel offering only Generate (and saying why), an acknowledged
// risk that is still open stays acknowledged, and at the default sidebar width no risk row loses its
// severity or its finding.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const RISK = 'exit 1 on pytest';
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const HUMAN = /(just now|\d+ min ago) \(\d{2}:\d{2}\)/;

async function showContainer(ui) {
  const header = ui.page.locator('.pane-header h3.title', { hasText: /^Clean State$/i });
  await ui.waitFor(async () => {
    if (await header.first().isVisible()) return true;
    await ui.runCommand('View: Show Session Handoff').catch(() => ui.page.keyboard.press('Escape'));
    return header.first().isVisible();
  }, 30000, 'the Session Handoff container');
}

/** Rows under the "Acknowledged" group of Open Risks. */
async function acknowledgedRows(ui) {
  const rows = await ui.treeRows('Open Risks');
  const at = rows.findIndex((r) => r.startsWith('Acknowledged'));
  return at < 0 ? [] : rows.slice(at + 1);
}

/** Collapses a view's pane (so the others get the room). */
async function collapse(ui, title) {
  const header = ui.page.locator('.pane-header', { has: ui.page.locator('h3.title', { hasText: new RegExp(`^${title}$`, 'i') }) }).first();
  if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'a risk acknowledged, a packet written: the Handoffs row and the panel say when, for people',
    fn: async (ui) => {
      await ui.statusBarText('sessionHandoff.context', 60000);
      await showContainer(ui);
      await ui.waitFor(async () => (await ui.treeRows('Open Risks')).some((r) => r.includes(RISK)), 30000, 'the verification risk');
      const row = await ui.treeRow('Open Risks', RISK);
      await row.hover();
      await row.locator('.action-label[aria-label="Acknowledge Risk"]').click();
      await ui.waitFor(async () => (await acknowledgedRows(ui)).some((r) => r.includes(RISK)), 20000, 'the risk under Acknowledged');

      execFileSync(process.execPath, [path.join(ui.extensionPath, 'dist', 'cli.js'), 'generate', '--dir', ui.workspace, '--allow-dirty'], { encoding: 'utf8' });
      // The output-dir watcher brings it in at once; on a very busy machine the 30 s fallback does.
      const written = await ui.waitFor(async () => (await ui.treeRows('Handoffs', { min: 0 })).find((r) => /\bactive\b/.test(r)), 45000, 'the active packet row');
      assert.match(written, /active · written (just now|\d+ min ago)$/);
      assert.doesNotMatch(written, ISO, 'no raw ISO time in the row');
      // The exact time is in the tooltip.
      const packetRow = await ui.treeRow('Handoffs', /active · written/);
      await packetRow.hover();
      const hover = ui.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'Written:' }).first();
      await hover.waitFor({ state: 'visible' });
      const tip = (await hover.innerText()).replace(/\s+/g, ' ');
      assert.match(tip, new RegExp(`Written: ${HUMAN.source}`), tip);
      assert.match(tip, ISO, `the exact time is in the tooltip: ${tip}`);
      await ui.page.mouse.move(700, 300);

      await ui.runCommand('Session Handoff: Open Active Handoff');
      const meta = ui.webview().locator('.meta-line');
      await meta.waitFor({ state: 'visible', timeout: 30000 });
      const line = await meta.innerText();
      assert.match(line, new RegExp(`written ${HUMAN.source}`));
      assert.match(line, /as of the last recorded command, /);
      assert.doesNotMatch(line, ISO, `no raw ISO time in the panel: ${line}`);
      assert.match(await meta.locator('[data-testid="written"] time').getAttribute('title'), ISO, 'the exact time is the tooltip');
      assert.doesNotMatch(await ui.webview().locator('[data-section="risks"]').innerText(), ISO, 'acknowledgement times are for people too');
    },
  },
  {
    name: 'after Archive the panel offers only Generate and says the packet was archived',
    fn: async (ui) => {
      await showContainer(ui);
      const packetRow = await ui.treeRow('Handoffs', /active · written/);
      await packetRow.hover();
      await packetRow.locator('.action-label[aria-label="Archive Handoff"]').click();
      const empty = ui.webview().locator('[data-testid="empty"]');
      await ui.waitFor(async () => /was archived/.test(await empty.innerText().catch(() => '')), 30000, 'the archived text');
      const text = await empty.innerText();
      assert.match(text, /Handoff \S+ was archived (just now|\d+ min ago)/);
      assert.doesNotMatch(text, /yet/);
      for (const id of ['copy-prompt', 'copy-json', 'open-md', 'regenerate']) {
        assert.equal(await ui.webview().locator(`#${id}`).isVisible(), false, `#${id} is not offered`);
      }
      assert.equal(await ui.webview().locator('#generate').isVisible(), true, 'Generate is offered');
      assert.equal(await ui.webview().locator('button:visible').count(), 1, 'Generate is the only button');
    },
  },
  {
    name: 'the acknowledgement survives the archive',
    fn: async (ui) => {
      await showContainer(ui);
      await ui.waitFor(async () => (await ui.treeRows('Handoffs', { min: 0 })).some((r) => /archived/.test(r)), 45000, 'the archived packet row');
      const acked = await acknowledgedRows(ui);
      assert.ok(acked.some((r) => r.includes(RISK)), `still acknowledged: ${acked.join(' | ')}`);
      const rows = await ui.treeRows('Open Risks');
      const block = rows.slice(0, rows.findIndex((r) => r.startsWith('Acknowledged')));
      assert.ok(!block.some((r) => r.includes(RISK)), `not back under Block: ${rows.join(' | ')}`);
    },
  },
  {
    name: 'at the default sidebar width every risk row shows its severity and its whole finding',
    fn: async (ui) => {
      await showContainer(ui);
      await collapse(ui, 'Clean State');
      await collapse(ui, 'Handoffs');
      const pane = await ui.view('Open Risks');
      await ui.waitFor(async () => (await pane.locator('.monaco-list-row').count()) >= 5, 15000, 'the risk rows');
      const width = await ui.page.locator('.part.sidebar').evaluate((el) => el.getBoundingClientRect().width);
      assert.ok(width <= 320, `the sidebar has its default width (${width} px)`);
      const rows = await pane.locator('.monaco-list-row').evaluateAll((els) => els.map((el) => {
        const icon = el.querySelector('[class*="codicon-error"], [class*="codicon-warning"], [class*="codicon-info"]');
        const name = el.querySelector('.label-name');
        const box = el.querySelector('.monaco-icon-label-container');
        const row = el.getBoundingClientRect();
        const r = (e) => e?.getBoundingClientRect();
        return {
          text: el.textContent,
          risk: !!icon,
          iconShown: !!icon && r(icon).width > 0 && r(icon).right <= row.right,
          nameWhole: !!name && !!box && r(name).right <= r(box).right + 1 && r(name).right <= row.right,
        };
      }));
      const risks = rows.filter((r) => r.risk);
      assert.ok(risks.length >= 4, `risk rows found: ${rows.map((r) => r.text).join(' | ')}`);
      for (const r of risks) {
        assert.ok(r.iconShown, `severity icon visible: ${r.text}`);
        assert.ok(r.nameWhole, `finding not cut off: ${r.text}`);
      }
      await ui.view('Clean State');
      await ui.view('Handoffs');
    },
  },
];
