// The sidebar views and the context status bar in the real workbench: the meter follows the agent's
// transcript, Clean State follows git, Open Risks keeps acknowledgements across a reload.
// With HANDOFF_DOC_IMAGES=1 the screenshots are also written to docs/images/ for the README.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const STATUS_ID = 'sessionHandoff.context';
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** The transcript of this workspace in the test agent home (its lines carry the workspace as cwd). */
function transcriptOf(ui) {
  const projects = path.join(ui.claudeDir, 'projects');
  for (const dir of fs.readdirSync(projects)) {
    for (const f of fs.readdirSync(path.join(projects, dir))) {
      const file = path.join(projects, dir, f);
      const first = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes('"cwd"'));
      if (first && JSON.parse(first).cwd === ui.workspace) return { file, sessionId: JSON.parse(first).sessionId };
    }
  }
  throw new Error(`no transcript for ${ui.workspace} in ${projects}`);
}

/** One main-thread assistant line whose prompt uses `tokens` tokens. */
function usageLine(ui, sessionId, tokens, id) {
  return `${JSON.stringify({
    parentUuid: null, isSidechain: false, cwd: ui.workspace, sessionId, type: 'assistant', uuid: id,
    timestamp: new Date().toISOString(),
    message: { model: 'claude-sonnet-4-5-20250929', id, type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: tokens - 10, output_tokens: 5 } },
  })}\n`;
}

async function docImage(ui, name, shoot) {
  const file = await ui.screenshot(name);
  if (process.env.HANDOFF_DOC_IMAGES) {
    const to = path.join(ui.extensionPath, 'docs', 'images', `${name}.png`);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    await shoot(to);
  }
  return file;
}

/** Shows the Session Handoff container (the palette's "View: Show …" works with or without a badge). */
async function showContainer(ui) {
  const header = ui.page.locator('.pane-header h3.title', { hasText: /^Clean State$/i });
  // After a reload the workbench restores the container by itself; the palette command appears
  // only once the extension's contributions are registered, so retry it until then.
  await ui.waitFor(async () => {
    if (await header.first().isVisible()) return true;
    await ui.runCommand('View: Show Session Handoff').catch(() => ui.page.keyboard.press('Escape'));
    return header.first().isVisible();
  }, 30000, 'the Session Handoff container');
  await ui.view('Clean State');
}

async function statusClass(ui) {
  return (await ui.statusBarItem(STATUS_ID).getAttribute('class')) ?? '';
}

/** @type {{name: string, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the status bar shows 50% (49.6 rounded) with the warning background',
    fn: async (ui) => {
      await ui.waitFor(async () => (await ui.statusBarText(STATUS_ID)).includes('50%'), 30000, 'status bar at 50%');
      assert.match(await statusClass(ui), /warning-kind/);
    },
  },
  {
    name: 'the status bar tooltip names the source, session, tokens, window and compaction point',
    fn: async (ui) => {
      const item = ui.statusBarItem(STATUS_ID);
      await item.hover();
      const hover = ui.page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'Claude Code' }).first();
      await hover.waitFor({ state: 'visible' });
      const text = await hover.innerText();
      for (const part of ['Claude Code', '99,212 of 200,000', 'compacts at', 'Clean state']) assert.ok(text.includes(part), `tooltip has "${part}": ${text}`);
      await docImage(ui, 'status-bar-tooltip', async (to) => {
        const a = await hover.boundingBox();
        const b = await item.boundingBox();
        const x = Math.max(0, Math.min(a.x, b.x) - 8);
        const y = Math.max(0, Math.min(a.y, b.y) - 8);
        await ui.page.screenshot({ path: to, clip: { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x + 8, height: Math.max(a.y + a.height, b.y + b.height) - y + 8 } });
      });
      await ui.page.mouse.move(600, 300);
    },
  },
  {
    name: 'appending a higher reading moves the meter to urgent and raises the urgent prompt once',
    fn: async (ui) => {
      const { file, sessionId } = transcriptOf(ui);
      fs.appendFileSync(file, usageLine(ui, sessionId, 160_010, 'msg_ui_up1'));
      await ui.waitFor(async () => (await ui.statusBarText(STATUS_ID)).includes('80%'), 20000, 'status bar at 80%');
      assert.match(await statusClass(ui), /error-kind/);
      const urgent = await ui.readNotifications('wrap up now');
      assert.equal(urgent.length, 1, urgent.join(' | '));
      fs.appendFileSync(file, usageLine(ui, sessionId, 170_010, 'msg_ui_up2'));
      await ui.waitFor(async () => (await ui.statusBarText(STATUS_ID)).includes('85%'), 20000, 'status bar at 85%');
      assert.equal((await ui.readNotifications('wrap up now')).length, 1, 'still one urgent prompt');
    },
  },
  {
    name: 'Clean State shows each failing check with its paths; a commit turns them green without a reload',
    fn: async (ui) => {
      fs.writeFileSync(path.join(ui.workspace, 'refund_calc.py'), 'def paise(x):\n    return int(x * 100)\n');
      fs.writeFileSync(path.join(ui.workspace, 'notes.tmp'), 'scratch\n');
      await showContainer(ui);
      await ui.waitFor(async () => {
        const rows = await ui.treeRows('Clean State');
        return rows.some((r) => r.includes('refund_calc.py')) && rows.some((r) => r.includes('notes.tmp'));
      }, 20000, 'the offending paths under their checks');
      const working = await ui.treeRow('Clean State', 'Working tree');
      assert.equal(await working.locator('.codicon-error').count(), 1, 'working tree fails');
      await docImage(ui, 'sidebar', (to) => ui.page.locator('.part.sidebar').screenshot({ path: to }));
      fs.rmSync(path.join(ui.workspace, 'notes.tmp'));
      git(ui.workspace, 'add', 'refund_calc.py');
      git(ui.workspace, 'commit', '-q', '-m', 'Add the paise helper');
      await ui.waitFor(async () => {
        const w = await ui.treeRow('Clean State', 'Working tree');
        const t = await ui.treeRow('Clean State', 'Temp');
        return (await w.locator('.codicon-pass').count()) === 1 && (await t.locator('.codicon-pass').count()) === 1;
      }, 20000, 'working tree and temp artifacts green');
      const rows = await ui.treeRows('Clean State');
      assert.ok(!rows.some((r) => r.includes('refund_calc.py')), rows.join(' | '));
    },
  },
  {
    name: "Open Risks shows the fixture's risks by severity; Acknowledge moves one and it survives a reload",
    fn: async (ui) => {
      // The row's label is the finding's head; the rest of it continues in the description.
      const risk = 'exit 1 on pytest';
      await ui.waitFor(async () => {
        const rows = await ui.treeRows('Open Risks');
        return rows.some((r) => r.startsWith('Block')) && rows.some((r) => r.startsWith('Warn')) && rows.some((r) => r.includes(risk));
      }, 20000, 'risks grouped by severity');
      const row = await ui.treeRow('Open Risks', risk);
      await row.hover();
      await row.locator('.action-label[aria-label="Acknowledge Risk"]').click();
      const acknowledged = async () => {
        const rows = await ui.treeRows('Open Risks');
        const at = rows.findIndex((r) => r.startsWith('Acknowledged'));
        return at >= 0 && rows.slice(at + 1).some((r) => r.includes(risk));
      };
      await ui.waitFor(acknowledged, 20000, 'the risk under Acknowledged');
      await docImage(ui, 'open-risks', (to) => ui.page.locator('.part.sidebar').screenshot({ path: to }));
      await ui.page.reload();
      await ui.workbenchReady();
      await showContainer(ui);
      await ui.waitFor(acknowledged, 30000, 'the acknowledgement after a reload');
    },
  },
  {
    name: 'Handoffs shows a packet written by the CLI as active, then marks it stale when HEAD moves',
    fn: async (ui) => {
      execFileSync(process.execPath, [path.join(ui.extensionPath, 'dist', 'cli.js'), 'generate', '--dir', ui.workspace, '--allow-dirty'], { encoding: 'utf8' });
      await showContainer(ui);
      await ui.waitFor(async () => (await ui.treeRows('Handoffs')).some((r) => /feat\/upi-refund · T-004/.test(r)), 45000, 'the branch + topic group');
      await ui.waitFor(async () => (await ui.treeRows('Handoffs')).some((r) => /active · written (just now|\d+ min ago)/.test(r) && !/stale/.test(r)), 45000, 'an active, fresh packet');
      fs.writeFileSync(path.join(ui.workspace, 'CHANGELOG.md'), '# changes\n');
      git(ui.workspace, 'add', 'CHANGELOG.md');
      git(ui.workspace, 'commit', '-q', '-m', 'Note the change');
      await ui.waitFor(async () => {
        const rows = await ui.treeRows('Handoffs');
        // Marked stale on its row, the reason a row of its own beneath it.
        return rows.some((r) => /active, stale · written/.test(r)) && rows.some((r) => /^HEAD moved 1 commit/.test(r));
      }, 20000, 'the packet marked stale');
      await docImage(ui, 'handoffs', (to) => ui.page.locator('.part.sidebar').screenshot({ path: to }));
    },
  },
];
