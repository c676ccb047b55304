// The workbench loads with the extension under development: its activity-bar container, its views and
// its palette commands are there, and a command from the palette runs.
import assert from 'node:assert/strict';

/** @type {{name: string, fn: (ui: ReturnType<typeof import('../lib/ui/helpers.mjs').createUi>) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the Session Handoff container shows its views',
    fn: async (ui) => {
      const container = ui.manifest.contributes.viewsContainers.activitybar[0];
      await ui.openContainer(container.title);
      for (const view of ui.manifest.contributes.views[container.id]) await ui.view(view.name);
    },
  },
  {
    name: 'the palette lists the extension\'s commands',
    fn: async (ui) => {
      const commands = ui.manifest.contributes.commands;
      assert.ok(commands.length > 0, 'the manifest contributes commands');
      for (const c of commands.slice(0, 3)) {
        const row = await ui.paletteRow(`${c.category}: ${c.title}`);
        assert.ok(await row.isVisible());
      }
      await ui.page.keyboard.press('Escape');
    },
  },
  {
    name: 'Show Log opens the Session Handoff output channel',
    fn: async (ui) => {
      const showLog = ui.manifest.contributes.commands.find((c) => c.command === 'sessionHandoff.showLog');
      assert.ok(showLog, 'sessionHandoff.showLog is contributed');
      await ui.runCommand(`${showLog.category}: ${showLog.title}`);
      // The Output panel's channel picker names the channel that is shown.
      await ui.waitFor(async () => {
        const picker = ui.page.locator('.part.panel select.monaco-select-box, .part.panel .monaco-select-box');
        const texts = await picker.evaluateAll((els) => els.map((e) => (e instanceof HTMLSelectElement ? e.selectedOptions[0]?.text : e.textContent) ?? ''));
        return texts.some((t) => t.includes('Session Handoff'));
      }, 20000, 'the Output panel showing "Session Handoff"');
    },
  },
];
