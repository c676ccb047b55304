// First run in the real workbench: the walkthrough opens on first activation and its steps tick as
// their commands run; Connect Claude Code shows the change in a diff, asks, and writes the settings of
// the test Claude config dir (backup first); Generate Handoff… with a goal puts it first in the copied
// restart prompt, and the launcher the settings point at hands that prompt to a starting session.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Its own workbench (fresh global state: a first activation) with walkthroughs allowed to open. */
export const server = { settings: { 'workbench.welcomePage.walkthroughs.openOnInstall': true } };

const GOAL = 'Ship partial refunds behind the feature flag';
const BEFORE = '{\n  "model": "opus",\n  "statusLine": { "type": "command", "command": "echo mine" }\n}\n';

const settingsFile = (ui) => path.join(ui.claudeDir, 'settings.json');

/** The walkthrough step button for `id`. */
const step = (ui, id) => ui.page.locator(`button.getting-started-step[data-step-id$="#${id}"]`).first();

/** Opens the walkthrough again (an editor opened since may have taken its place). */
async function openWalkthrough(ui) {
  // Right after a walkthrough slide changes, the palette's input can be briefly inert: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      await startCommand(ui, 'Welcome: Open Walkthrough...');
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
      await ui.page.keyboard.press('Escape');
      await ui.page.waitForTimeout(1000);
    }
  }
  const row = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Session Handoff' }).first();
  await row.click();
  await step(ui, 'meter').waitFor({ state: 'visible', timeout: 15000 });
}

/** Opens the walkthrough afresh (one left for the overview keeps its old state) and waits for the steps to show as done. */
async function ticked(ui, ...ids) {
  await openWalkthrough(ui);
  for (const id of ids) {
    await ui.waitFor(async () => (await step(ui, id).getAttribute('aria-checked')) === 'true', 15000, `the ${id} step to tick`);
  }
}

/** Clicks a palette command that opens a quick input of its own (runCommand waits for the palette to close). */
async function startCommand(ui, label) {
  // As ui.runCommand: the palette list can re-render under the pointer, so a click that cannot land is
  // retried on a freshly opened palette (without waiting for the palette to close: a quick pick follows).
  for (let attempt = 1; ; attempt++) {
    const row = await ui.paletteRow(label);
    try {
      await row.click({ timeout: 20000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

/** The packet folders written in the workspace. */
function packets(ui) {
  const out = path.join(ui.workspace, 'outputs', 'handoff');
  return fs.existsSync(out) ? fs.readdirSync(out).filter((d) => fs.existsSync(path.join(out, d, 'handoff.json'))) : [];
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the walkthrough opens on first activation, its steps not done yet',
    fn: async (ui) => {
      await ui.statusBarText('sessionHandoff.context', 60000);
      const title = ui.page.locator('.gettingStartedContainer', { hasText: 'Get started with Session Handoff' });
      await title.first().waitFor({ state: 'visible', timeout: 30000 });
      for (const id of ['meter', 'connect', 'clean', 'generate', 'prompt']) {
        assert.equal(await step(ui, id).getAttribute('aria-checked'), 'false', `${id} starts unchecked`);
      }
    },
  },
  {
    name: 'Show Context Usage and Check Clean State tick their steps',
    fn: async (ui) => {
      await ui.runCommand('Session Handoff: Show Context Usage');
      const note = (await ui.readNotifications('Context:')).join('\n');
      assert.match(note, /Context: 49\.6 % — 99,212 of 200,000 tokens/);
      await ui.runCommand('Session Handoff: Check Clean State');
      await ticked(ui, 'meter', 'clean');
      assert.equal(await step(ui, 'generate').getAttribute('aria-checked'), 'false');
    },
  },
  {
    name: 'Connect Claude Code shows the diff, asks, and writes only after Write',
    fn: async (ui) => {
      fs.writeFileSync(settingsFile(ui), BEFORE);
      await startCommand(ui, 'Session Handoff: Connect Claude Code');
      const userRow = ui.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Your Claude Code settings' }).first();
      await userRow.waitFor({ state: 'visible' });
      assert.match(await userRow.innerText(), new RegExp(settingsFile(ui).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      await userRow.click();
      const diff = ui.page.locator('.editor-instance .monaco-diff-editor').first();
      await diff.waitFor({ state: 'visible', timeout: 30000 });
      const tab = ui.page.locator('.tabs-container .tab', { hasText: 'connect Claude Code' }).first();
      await tab.waitFor({ state: 'visible' });
      const dialog = await ui.waitFor(() => ui.readDialog(), 30000, 'the confirmation');
      assert.match(dialog, /Connect Claude Code\?/);
      assert.match(dialog, /backup of the current file goes to .*settings\.json\.handoff-backup/);
      assert.match(dialog, /statusLine command is kept/);
      // The diff's right side holds the proposed settings.
      await ui.waitFor(async () => /"SessionStart"[\s\S]*startup\|resume\|clear\|compact/.test(await diff.innerText()), 15000, 'the proposed hooks in the diff');
      assert.equal(fs.readFileSync(settingsFile(ui), 'utf8'), BEFORE, 'nothing written before the answer');
      await ui.readDialog('Write');
      await ui.waitFor(() => fs.readFileSync(settingsFile(ui), 'utf8') !== BEFORE, 15000, 'settings.json to be written');
      const written = JSON.parse(fs.readFileSync(settingsFile(ui), 'utf8'));
      assert.equal(written.model, 'opus');
      assert.match(written.statusLine.command, /handoff'? statusline --chain 'echo mine'$/);
      assert.deepEqual(Object.keys(written.hooks), ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd']);
      assert.equal(written.hooks.SessionStart[0].matcher, 'startup|resume|clear|compact');
      assert.match(written.hooks.SessionStart[0].hooks[0].command, /globalStorage.*[/\\]bin[/\\]handoff'? hook$/);
      assert.equal(fs.readFileSync(`${settingsFile(ui)}.handoff-backup`, 'utf8'), BEFORE, 'the backup holds the previous bytes');
      await tab.waitFor({ state: 'detached', timeout: 15000 });
      await ticked(ui, 'connect');
    },
  },
  {
    name: 'Generate Handoff… with a goal puts it first in the copied restart prompt',
    fn: async (ui) => {
      await startCommand(ui, 'Session Handoff: Generate Handoff…');
      // The input box (its title says so) has the keyboard focus once it shows.
      await ui.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Generate Handoff…' }).waitFor({ state: 'visible' });
      await ui.page.keyboard.type(GOAL);
      await ui.page.keyboard.press('Enter');
      // The fixture workbench may have findings: accept them as risks when asked.
      await ui.waitFor(async () => packets(ui).length > 0 || (await ui.readDialog()) !== null, 30000, 'a packet or the dirty-workbench modal');
      if (!packets(ui).length) await ui.readDialog('Generate Anyway');
      await ui.waitFor(() => packets(ui).length === 1, 30000, 'handoff.json on disk');
      const packet = JSON.parse(fs.readFileSync(path.join(ui.workspace, 'outputs', 'handoff', packets(ui)[0], 'handoff.json'), 'utf8'));
      assert.equal(packet.next_goal, GOAL);
      // The command has finished (state refreshed, panel opened) once it says the packet is written:
      // copying before then would race the panel taking the focus.
      await ui.readNotifications(`Handoff ${packets(ui)[0]} written.`, 30000);
      await ui.page.evaluate(() => navigator.clipboard.writeText(''));
      await ui.runCommand('Session Handoff: Copy Restart Prompt');
      const prompt = await ui.waitFor(() => ui.readClipboard(), 10000, 'the clipboard');
      assert.equal(prompt.split('\n')[0], `GOAL FOR THIS SESSION: ${GOAL}`);
      assert.match(prompt, /NEXT ACTION[^\n]*\n> Run pytest/);
      await ticked(ui, 'generate', 'prompt');
    },
  },
  {
    name: 'the launcher the settings point at hands the prompt to a starting Claude Code session',
    fn: async (ui) => {
      const written = JSON.parse(fs.readFileSync(settingsFile(ui), 'utf8'));
      const command = written.hooks.SessionStart[0].hooks[0].command;
      const r = spawnSync('/bin/sh', ['-c', command], {
        input: JSON.stringify({ session_id: 's-2', transcript_path: '/dev/null', cwd: ui.workspace, hook_event_name: 'SessionStart', source: 'clear' }),
        encoding: 'utf8',
        env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
      });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
      assert.match(out.hookSpecificOutput.additionalContext, /^HANDOFF FROM [^\n]* TO CLAUDE CODE\.\n/);
      assert.match(out.hookSpecificOutput.additionalContext, new RegExp(`\nGOAL FOR THIS SESSION: ${GOAL}`));
    },
  },
  {
    name: 'Continue in Codex copies the same packet\'s prompt rendered for Codex',
    fn: async (ui) => {
      await ui.page.evaluate(() => navigator.clipboard.writeText(''));
      await ui.runCommand('Session Handoff: Continue in Codex');
      const prompt = await ui.waitFor(() => ui.readClipboard(), 10000, 'the clipboard');
      assert.match(prompt, /^HANDOFF FROM [^\n]* TO CODEX\.\n/);
      assert.match(prompt, /apply_patch/);
      assert.match(prompt, new RegExp(`\nGOAL FOR THIS SESSION: ${GOAL}`));
      assert.match(prompt, /Full packet: outputs\/handoff\/[^\n]+\/handoff\.md/);
    },
  },
];
