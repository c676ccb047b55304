// The completeness audit and the open questions in the handoff panel: after Generate Handoff, the panel
// shows the score with each failing probe and its fix, and the agent's blocker sits above the risks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'Generate Handoff opens the panel with the completeness score and the failing probes with their fixes',
    fn: async (ui) => {
      await ui.statusBarText('sessionHandoff.context', 60000);
      // A scratch file makes the workbench dirty: the modal is answered with Generate Anyway.
      fs.writeFileSync(path.join(ui.workspace, 'scratch.tmp'), 'left over\n');
      await ui.runCommand('Session Handoff: Generate Handoff');
      await ui.waitFor(() => ui.readDialog(), 30000, 'the dirty-workbench modal');
      await ui.readDialog('Generate Anyway');
      const score = ui.webview().locator('[data-testid="audit-score"]');
      await score.waitFor({ state: 'visible', timeout: 30000 });
      const scoreText = await score.innerText();
      const m = /(\d+)\/(\d+)\s+probes pass/.exec(scoreText);
      assert.ok(m, scoreText);
      assert.ok(Number(m[1]) < Number(m[2]), 'the example workbench leaves at least one probe failing');
      // The fixture's timeout recorded no partial output: that probe fails and says how to fix it.
      const probe = ui.webview().locator('[data-section="completeness"] [data-probe="uncertain-evidence"]');
      await probe.waitFor({ state: 'visible' });
      const text = await probe.innerText();
      assert.match(text, /Each uncertain outcome carries its evidence/);
      assert.match(text, /Fix: Record the partial output/);
      const failing = await ui.webview().locator('[data-section="completeness"] [data-probe]').count();
      assert.equal(failing, Number(m[2]) - Number(m[1]), 'one row per failing probe');
    },
  },
  {
    name: 'open questions and blockers come before the risks',
    fn: async (ui) => {
      const questions = ui.webview().locator('[data-section="questions"]');
      await questions.waitFor({ state: 'visible', timeout: 30000 });
      assert.match(await questions.innerText(), /Open questions — decide or ask before acting on them[\s\S]*awaiting decision on partial-refund rounding rule/);
      const order = await ui.webview().locator('main').evaluate((main) => {
        const ids = [...main.querySelectorAll('[data-section]')].map((s) => s.getAttribute('data-section'));
        return { questions: ids.indexOf('questions'), risks: ids.indexOf('risks'), next: ids.indexOf('next-action') };
      });
      assert.ok(order.next < order.questions && order.questions < order.risks, JSON.stringify(order));
    },
  },
];
