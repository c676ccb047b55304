// Zero set-up in the real workbench: a git workspace with no workbench file at all, only a Claude Code
// session working in it. The views fill from the session, Generate Handoff from the palette writes the
// packet, and the panel shows the next action from the agent's task list and says where it came from.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fixturesDir } from '../lib/paths.mjs';
import { claudeProjectSlug } from '../lib/workspace.mjs';

const SESSION = '7f3e2a91-4c8b-4d2e-9a1f-3b5c6d7e8f90';
const NEXT_ACTION = 'Add tests for per-key limits (burst + window reset)';
const WORKBENCH_FILES = ['agent_state.json', 'feature_list.json', 'feedback_record.jsonl', 'review_report.json', 'verification_report.json'];
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Before the workbench opens: the workspace loses every workbench file (committed, so the tree is
 * clean) and moves to the session's branch; its only transcript is the shared Claude fixture session.
 */
export function prepare({ workspace, claudeDir }) {
  for (const f of WORKBENCH_FILES) fs.rmSync(path.join(workspace, f), { force: true });
  git(workspace, 'checkout', '-q', '-b', 'feat/rate-limit');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'No workbench files: only the agent session');
  const dir = path.join(claudeDir, 'projects', claudeProjectSlug(workspace));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const text = fs.readFileSync(path.join(fixturesDir(), 'transcripts', 'claude-tools.jsonl'), 'utf8');
  fs.writeFileSync(path.join(dir, `${SESSION}.jsonl`), text.split('__CWD__').join(JSON.stringify(workspace).slice(1, -1)));
}

function packetFile(ui) {
  return path.join(ui.workspace, 'outputs', 'handoff', SESSION, 'handoff.json');
}

async function rowText(ui, view, label) {
  const row = await ui.treeRow(view, label);
  // The row shows the verdict; what the check found is in its accessible label (and tooltip).
  return `${await row.innerText()} ${(await row.getAttribute('aria-label')) ?? ''}`;
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'with no workbench file, Clean State reads the tests and the task list from the Claude Code session',
    fn: async (ui) => {
      for (const f of WORKBENCH_FILES) assert.equal(fs.existsSync(path.join(ui.workspace, f)), false, `${f} is absent`);
      await ui.statusBarText('sessionHandoff.context', 60000);
      await ui.runCommand('View: Show Session Handoff').catch(() => ui.page.keyboard.press('Escape'));
      await ui.view('Clean State');
      const tests = await ui.waitFor(async () => {
        const t = await rowText(ui, 'Clean State', 'Tests').catch(() => '');
        return t.includes('npm test') ? t : null;
      }, 60000, 'the Tests check naming the session\'s test run');
      assert.match(tests, /latest test run passed/);
      assert.match(tests, /Claude Code session 7f3e2a91/);
      const board = await rowText(ui, 'Clean State', 'Feature board');
      assert.match(board, /task list/);
    },
  },
  {
    name: 'Generate Handoff from the palette writes the packet from the session',
    timeout: 120000,
    fn: async (ui) => {
      await ui.runCommand('Session Handoff: Generate Handoff');
      await ui.waitFor(() => fs.existsSync(packetFile(ui)), 60000, 'handoff.json on disk');
      const packet = JSON.parse(fs.readFileSync(packetFile(ui), 'utf8'));
      assert.equal(packet.next_action, NEXT_ACTION);
      assert.equal(packet.sources.commands, `claude:${SESSION}`);
      assert.ok(packet.failed_attempts.some((f) => f.command === 'npm run migrate' && f.uncertain));
      assert.ok(packet.decisions.some((d) => d.status === 'rejected' && d.text.includes('docker compose down -v')));
      assert.ok(!fs.readFileSync(packetFile(ui), 'utf8').includes('sk-ant-api03-Xq7fK2mP9vR4tL8nB3cW6yH1jD5gS0aZeUoIiQwE'));
    },
  },
  {
    name: 'the panel shows the next action from the task list and says it came from the Claude Code session',
    fn: async (ui) => {
      const next = ui.webview().locator('[data-testid="next-action"]');
      await next.waitFor({ state: 'visible', timeout: 30000 });
      assert.equal((await next.innerText()).trim(), NEXT_ACTION);
      const from = await ui.webview().locator('[data-testid="derived-from"]').innerText();
      assert.match(from, /from Claude Code session 7f3e2a91/i);
      assert.match(from, /next action from the task list/);
      await ui.screenshot('session-panel');
    },
  },
];
