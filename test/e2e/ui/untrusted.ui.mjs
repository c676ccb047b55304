// Workspace Trust in the real workbench: the folder opens in Restricted Mode, Session Handoff is active
// (its context meter reads the transcript) but runs no git and writes nothing, and its views and panel say why.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Every git the extension host starts appends to this file (GIT_TRACE goes to code-server's environment only).
const GIT_TRACE = path.join(os.tmpdir(), `handoff-untrusted-git-trace-${process.pid}.log`);
process.on('exit', () => fs.rmSync(GIT_TRACE, { force: true }));

/** Its own code-server with Workspace Trust on (the other UI files run with every folder trusted). */
export const server = { workspaceTrust: true, env: { GIT_TRACE } };

const STATUS_ID = 'sessionHandoff.context';

/** Lines git traced since the run started ('' when git never ran). */
const gitTrace = () => (fs.existsSync(GIT_TRACE) ? fs.readFileSync(GIT_TRACE, 'utf8').trim() : '');

/** Everything written into the workspace since its first commit: untracked and ignored files included. */
function written(ui) {
  const env = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  delete env.GIT_TRACE;
  return execFileSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=all'], { cwd: ui.workspace, encoding: 'utf8', env }).trim();
}

/** Every `clean_state.json` under the workspace (outside .git). */
function cleanStateFiles(ui) {
  return fs.readdirSync(ui.workspace, { recursive: true }).map(String)
    .filter((f) => !f.startsWith(`.git${path.sep}`) && path.basename(f) === 'clean_state.json');
}

/** Asserts the workspace is as the test made it and git never ran. */
function assertUntouched(ui) {
  assert.equal(fs.existsSync(path.join(ui.workspace, 'outputs')), false, 'no outputs/ folder in the workspace');
  assert.deepEqual(cleanStateFiles(ui), [], 'no clean_state.json in the workspace');
  assert.equal(written(ui), '', 'nothing written in the workspace');
  assert.equal(gitTrace(), '', 'git never ran in the extension host');
}

/** The untrusted welcome text of a view, as package.json contributes it (first line, without the link). */
function untrustedWelcome(ui, viewId) {
  const entry = ui.manifest.contributes.viewsWelcome.find((w) => w.view === viewId && /!isWorkspaceTrusted/.test(w.when));
  assert.ok(entry, `${viewId} has an untrusted welcome`);
  return entry.contents.split('\n')[0];
}

/** One main-thread assistant line whose prompt uses `tokens` tokens (appended to this workspace's transcript). */
function appendUsage(ui, tokens, id) {
  const projects = path.join(ui.claudeDir, 'projects');
  for (const dir of fs.readdirSync(projects)) {
    for (const f of fs.readdirSync(path.join(projects, dir))) {
      const file = path.join(projects, dir, f);
      const first = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes('"cwd"'));
      if (!first || JSON.parse(first).cwd !== ui.workspace) continue;
      const { sessionId } = JSON.parse(first);
      fs.appendFileSync(file, `${JSON.stringify({
        parentUuid: null, isSidechain: false, cwd: ui.workspace, sessionId, type: 'assistant', uuid: id, timestamp: new Date().toISOString(),
        message: { model: 'claude-sonnet-4-5-20250929', id, type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }],
          usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: tokens - 10, output_tokens: 5 } },
      })}\n`);
      return;
    }
  }
  throw new Error(`no transcript for ${ui.workspace} in ${projects}`);
}

/** The labels the command palette offers for `query`, once `expected` is among them. */
async function paletteLabels(ui, query, expected) {
  const input = ui.page.locator('.quick-input-widget .quick-input-box input');
  const labels = ui.page.locator('.quick-input-list .monaco-list-row .label-name');
  return ui.waitFor(async () => {
    await ui.page.keyboard.press('Escape');
    await ui.page.keyboard.press('F1');
    await input.fill(`>${query}`);
    await ui.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 4000 }).catch(() => {});
    const all = (await labels.allInnerTexts()).map((t) => t.trim());
    return all.includes(expected) && all;
  }, 20000, `"${expected}" in the palette`);
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the folder opens in Restricted Mode and the extension is active (the meter reads 50%)',
    fn: async (ui) => {
      const restricted = ui.page.locator('#status\\.workspaceTrust');
      const dialogNo = ui.page.locator('.monaco-dialog-box .monaco-button', { hasText: /don't trust/i });
      // VS Code asks at start-up where the trust can be set from the UI; code-server decides it on the
      // server and opens the folder restricted straight away. Either way the answer is "don't trust".
      await ui.waitFor(async () => (await restricted.isVisible()) || (await dialogNo.isVisible()), 60000, 'Restricted Mode or the trust dialog');
      if (await dialogNo.isVisible()) await dialogNo.click();
      await ui.waitFor(async () => (await restricted.isVisible()) && (await restricted.innerText()).includes('Restricted Mode'), 15000, 'the Restricted Mode status item');
      await ui.waitFor(async () => (await ui.statusBarText(STATUS_ID, 60000)).includes('50%'), 30000, 'the context meter at 50%');
      const item = ui.statusBarItem(STATUS_ID);
      await item.hover();
      const hover = ui.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'Claude Code' }).first();
      await hover.waitFor({ state: 'visible' });
      assert.match(await hover.innerText(), /Clean state: not checked \(untrusted workspace\)/);
      await ui.page.mouse.move(600, 300);
      assertUntouched(ui);
    },
  },
  {
    name: 'each Session Handoff view says why it shows nothing',
    fn: async (ui) => {
      await ui.openContainer('Session Handoff');
      for (const view of ui.manifest.contributes.views.sessionHandoff) {
        const pane = await ui.view(view.name);
        const welcome = pane.locator('.welcome-view-content');
        const text = untrustedWelcome(ui, view.id);
        await ui.waitFor(async () => (await welcome.isVisible()) && (await welcome.innerText()).includes(text), 15000, `"${text}" in ${view.name}`);
        assert.equal(await welcome.locator('.monaco-button', { hasText: 'Manage Workspace Trust' }).count(), 1, `${view.name} offers Manage Workspace Trust`);
        assert.equal(await pane.locator('.monaco-list-row').count(), 0, `${view.name} lists nothing`);
      }
      await ui.screenshot('untrusted-sidebar');
    },
  },
  {
    name: 'Generate Handoff and Check Clean State are not offered: not in the palette, disabled in the title bars',
    fn: async (ui) => {
      const labels = await paletteLabels(ui, 'Session Handoff:', 'Session Handoff: Refresh');
      await ui.page.keyboard.press('Escape');
      for (const cmd of ['Generate Handoff', 'Check Clean State']) {
        assert.ok(!labels.includes(`Session Handoff: ${cmd}`), `the palette does not offer ${cmd}: ${labels.join(' | ')}`);
      }
      for (const [view, action] of [['Handoffs', 'Generate Handoff'], ['Clean State', 'Check Clean State']]) {
        const pane = await ui.view(view);
        const button = pane.locator(`.pane-header .action-label[aria-label="${action}"]`);
        assert.equal(await button.count(), 1, `${view} has a ${action} title action`);
        assert.equal(await button.getAttribute('aria-disabled'), 'true', `${action} is disabled in ${view}`);
      }
      assertUntouched(ui);
    },
  },
  {
    name: 'Open Active Handoff shows the panel saying why, without a Generate button',
    fn: async (ui) => {
      await ui.runCommand('Session Handoff: Open Active Handoff');
      const empty = ui.webview().locator('[data-testid="empty"]');
      await empty.waitFor({ state: 'visible', timeout: 30000 });
      assert.match(await empty.innerText(), /not trusted: Session Handoff runs no git and writes nothing/);
      assert.equal(await ui.webview().locator('#generate').count(), 0, 'the panel offers no Generate Handoff');
      assertUntouched(ui);
    },
  },
  {
    name: "the wrap-up prompt's Generate Handoff runs the command, which refuses and writes nothing",
    fn: async (ui) => {
      appendUsage(ui, 160_010, 'msg_untrusted_up1');
      await ui.waitFor(async () => (await ui.statusBarText(STATUS_ID)).includes('80%'), 20000, 'the context meter at 80%');
      // The prompt's button calls the command directly, past the palette's enablement: the handler's own
      // trust check is what keeps the workspace untouched.
      await ui.readNotifications('wrap up now');
      await ui.page.locator('#status\\.notifications').click();
      const prompt = ui.page.locator('.notifications-center .notification-list-item', { hasText: 'wrap up now' }).first();
      await prompt.waitFor({ state: 'visible' });
      await prompt.click();
      await prompt.locator('.monaco-button', { hasText: 'Generate Handoff' }).click();
      const refusal = await ui.readNotifications('writes nothing in an untrusted workspace', 20000);
      assert.equal(refusal.length, 1, refusal.join(' | '));
      assert.match(refusal[0], /Manage Workspace Trust/);
      await ui.runCommand('Session Handoff: Refresh');
      await ui.waitFor(async () => (await ui.statusBarText(STATUS_ID)).includes('80%'), 10000, 'the meter after Refresh');
      assertUntouched(ui);
    },
  },
];
