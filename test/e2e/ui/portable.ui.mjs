// A packet from elsewhere in the real workbench: a teammate's packet (not written here) is marked so in
// the Handoffs view, Trust This Packet asks in a modal and only then trusts it, and the panel's Copy PR
// Summary puts the short summary on the clipboard.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const TEAMMATE = 'teammate-7';
const NEXT = 'Finish the teammate refund tests';

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: "a teammate's packet is 'not written here' until Trust This Packet is confirmed in its modal",
    fn: async (ui) => {
      await ui.statusBarText('sessionHandoff.context', 60000);
      execFileSync(process.execPath, [path.join(ui.extensionPath, 'dist', 'cli.js'), 'generate', '--dir', ui.workspace, '--allow-dirty', '--json'], { encoding: 'utf8' });
      // The teammate's packet: another folder of the output dir, never recorded as written here.
      const out = path.join(ui.workspace, 'outputs', 'handoff');
      const own = fs.readdirSync(out, { withFileTypes: true }).find((e) => e.isDirectory() && !e.name.startsWith('.'));
      const packet = JSON.parse(fs.readFileSync(path.join(out, own.name, 'handoff.json'), 'utf8'));
      fs.mkdirSync(path.join(out, TEAMMATE), { recursive: true });
      fs.writeFileSync(path.join(out, TEAMMATE, 'handoff.json'), `${JSON.stringify({ ...packet, packet_id: TEAMMATE, session_id: TEAMMATE, next_action: NEXT }, null, 2)}\n`);

      await ui.runCommand('View: Show Session Handoff').catch(() => ui.page.keyboard.press('Escape'));
      await ui.view('Handoffs');
      const foreign = await ui.waitFor(async () => (await ui.treeRows('Handoffs', { min: 0 })).find((r) => r.startsWith(TEAMMATE)), 45000, 'the teammate packet row');
      assert.match(foreign, /not written here/);
      const row = await ui.treeRow('Handoffs', TEAMMATE);
      await row.hover();
      await row.locator('.action-label[aria-label="Trust This Packet"]').click();
      const dialog = await ui.waitFor(() => ui.readDialog(), 30000, 'the confirmation');
      assert.match(dialog, /Trust handoff teammate-7\? It was not written here/);
      assert.match(dialog, new RegExp(`told to act on: ${NEXT}`));
      await ui.readDialog('Trust This Packet');
      await ui.waitFor(async () => {
        const r = (await ui.treeRows('Handoffs', { min: 0 })).find((x) => x.startsWith(TEAMMATE));
        return r && !/not written here/.test(r);
      }, 30000, 'the row no longer saying "not written here"');
    },
  },
  {
    name: 'the panel copies the pull request summary',
    fn: async (ui) => {
      await ui.page.evaluate(() => navigator.clipboard.writeText(''));
      const row = await ui.treeRow('Handoffs', TEAMMATE);
      await row.click();
      const button = ui.webview().locator('#copy-pr');
      await button.waitFor({ state: 'visible', timeout: 30000 });
      assert.equal(await ui.webview().locator('#trust-packet').isVisible(), false, 'a trusted packet offers no Trust button');
      await button.click();
      await ui.waitFor(async () => (await button.innerText()).includes('Copied'), 10000, 'the "Copied" feedback');
      const text = await ui.waitFor(() => ui.readClipboard(), 10000, 'the clipboard');
      assert.match(text, /^### Session handoff: /);
      assert.match(text, new RegExp(`\\*\\*Next step\\*\\*\\n\\n${NEXT}\\n`));
      assert.ok(!text.includes(ui.workspace), 'no machine path in the summary');
    },
  },
];
