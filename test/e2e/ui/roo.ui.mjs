// An agent that lives inside VS Code: a workspace whose only agent is a Roo Code task in the editor's
// own global storage (no workbench file, no Claude Code or Codex session). The status bar shows the
// percentage Roo shows, the views fill from the task, and Generate Handoff writes a packet from it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../lib/paths.mjs';
import { claudeProjectSlug } from '../lib/workspace.mjs';

const TASK = '019ad5c4-8e2a-7b31-9c4d-2f6e8a1b3c5d';
const ROO_ID = 'rooveterinaryinc.roo-cline';
const WORKBENCH_FILES = ['agent_state.json', 'feature_list.json', 'feedback_record.jsonl', 'review_report.json', 'verification_report.json'];
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Copies a fixture folder with `__CWD__` set to the workspace (JSON-escaped, as it sits in strings). */
function copyTasks(from, to, workspace) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) copyTasks(src, dst, workspace);
    else fs.writeFileSync(dst, fs.readFileSync(src, 'utf8').split('__CWD__').join(JSON.stringify(workspace).slice(1, -1)));
  }
}

/**
 * The run's code-server keeps its user data in `<run>/cs/user-data` (see codeServer.mjs); the
 * workspace is `<run>/ws-N/<name>`. Its `User/globalStorage` is where Roo Code keeps its tasks.
 */
function globalStorage(workspace) {
  const user = path.join(path.dirname(path.dirname(workspace)), 'cs', 'user-data', 'User');
  assert.ok(fs.existsSync(user), `code-server's user folder ${user}`);
  return path.join(user, 'globalStorage');
}

export function prepare({ workspace, claudeDir }) {
  for (const f of WORKBENCH_FILES) fs.rmSync(path.join(workspace, f), { force: true });
  // Roo keeps its model in its own settings: the workspace says which one it uses.
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'sessionHandoff.context.rooModel': 'claude-sonnet-4-5' }, null, 2));
  git(workspace, 'checkout', '-q', '-b', 'feat/settings-form');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'No workbench files: only a Roo Code task');
  // No Claude Code transcript for this workspace: the Roo task is its only agent.
  fs.rmSync(path.join(claudeDir, 'projects', claudeProjectSlug(workspace)), { recursive: true, force: true });
  copyTasks(path.join(repoRoot, 'test', 'fixtures', 'vscode-agents', 'roo-condense', ROO_ID), path.join(globalStorage(workspace), ROO_ID), workspace);
}

const packetFile = (ui) => path.join(ui.workspace, 'outputs', 'handoff', TASK, 'handoff.json');

async function rowText(ui, view, label) {
  const row = await ui.treeRow(view, label);
  return `${await row.innerText()} ${(await row.getAttribute('aria-label')) ?? ''}`;
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the status bar shows the percentage Roo Code shows for its task',
    fn: async (ui) => {
      // 42 000 condensed tokens over (200 000 − 8 192 reserved output): 21.9 %.
      await ui.waitFor(async () => (await ui.statusBarText('sessionHandoff.context', 60000)).includes('22%'), 60000, 'status bar at 22%');
    },
  },
  {
    name: 'with no workbench file, Clean State reads the tests and the task list from the Roo Code task',
    fn: async (ui) => {
      await ui.runCommand('View: Show Session Handoff').catch(() => ui.page.keyboard.press('Escape'));
      await ui.view('Clean State');
      const tests = await ui.waitFor(async () => {
        const t = await rowText(ui, 'Clean State', 'Tests').catch(() => '');
        return t.includes('npm run test:forms') ? t : null;
      }, 60000, "the Tests check naming the task's test run");
      assert.match(tests, /latest test run passed/);
      assert.match(tests, /Roo Code task 019ad5c4/);
      assert.match(await rowText(ui, 'Clean State', 'Feature board'), /task list/);
    },
  },
  {
    name: 'Generate Handoff writes a packet from the Roo Code task, and the panel says so',
    timeout: 120000,
    fn: async (ui) => {
      await ui.runCommand('Session Handoff: Generate Handoff');
      await ui.waitFor(() => fs.existsSync(packetFile(ui)), 60000, 'handoff.json on disk');
      const packet = JSON.parse(fs.readFileSync(packetFile(ui), 'utf8'));
      assert.equal(packet.sources.commands, `roo:${TASK}`);
      assert.equal(packet.sources.session, `roo:${TASK}`);
      // The task's last message is a request the agent never answered (the context was condensed, the
      // next request never came back): that comes before the task in progress.
      assert.match(packet.next_action, /never got a real answer.*"Keep the old validation messages\."/);
      assert.equal(packet.next_action_origin?.source?.line, 74);
      assert.equal(packet.context.source, 'roo');
      assert.equal(packet.context.percent, 21.9);
      const md = fs.readFileSync(path.join(path.dirname(packetFile(ui)), 'handoff.md'), 'utf8');
      assert.match(md, /Derived from: Roo Code task 019ad5c4/);
      const from = ui.webview().locator('[data-testid="derived-from"]');
      await from.waitFor({ state: 'visible', timeout: 30000 });
      assert.match(await from.innerText(), /from Roo Code task 019ad5c4/i);
      // The next session is a new Roo Code task: the panel offers the prompt for that.
      await ui.webview().locator('#copy-task').waitFor({ state: 'visible', timeout: 10000 });
      await ui.screenshot('roo-panel');
    },
  },
  {
    name: 'the panel\'s Copy as New Task (the command behind it) puts the restart prompt on the clipboard for Roo Code\'s new-task flow',
    fn: async (ui) => {
      await ui.page.evaluate(() => navigator.clipboard.writeText(''));
      const button = ui.webview().locator('#copy-task');
      await button.focus();
      await ui.page.keyboard.press('Enter');
      await ui.waitFor(async () => (await button.innerText()).includes('Copied'), 10000, 'the "Copied" feedback');
      const prompt = await ui.waitFor(() => ui.readClipboard(), 10000, 'the clipboard');
      assert.match(prompt, /continuing work handed off from a previous Roo Code task \(019ad5c4/);
      assert.match(prompt, /open Roo Code, start a new task and paste this whole prompt as the task's first message/);
      assert.match(prompt, /NEXT ACTION[^\n]*ui_messages\.json:74\):\n> [^\n]*Keep the old validation messages/);
      await ui.readNotifications('start a new task and paste it');
    },
  },
  {
    name: 'a new Roo Code task for the folder is picked up from the watched global storage, well before the slow fallback',
    fn: async (ui) => {
      const tasks = path.join(globalStorage(ui.workspace), ROO_ID, 'tasks');
      const id = '019ad5c5-0000-7000-8000-000000000001';
      const now = Date.now();
      fs.mkdirSync(path.join(tasks, id));
      fs.writeFileSync(path.join(tasks, id, 'history_item.json'), JSON.stringify({ id, number: 3, ts: now, task: 'Next step', tokensIn: 96000, tokensOut: 1000, totalCost: 0, workspace: ui.workspace, status: 'active' }));
      // 96 000 + 1 000 over 191 808: 50.6 %.
      fs.writeFileSync(path.join(tasks, id, 'ui_messages.json'), JSON.stringify([
        { ts: now, type: 'say', say: 'text', text: 'Next step' },
        { ts: now + 1, type: 'say', say: 'api_req_started', text: JSON.stringify({ apiProtocol: 'anthropic', tokensIn: 96000, tokensOut: 1000, cacheWrites: 0, cacheReads: 90000 }) },
      ]));
      // The fallback looks every 30 s; the watcher sees the new task file at once.
      await ui.waitFor(async () => (await ui.statusBarText('sessionHandoff.context')).includes('51%'), 20000, 'status bar at 51% from the new task');
    },
  },
];
