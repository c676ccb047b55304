// The agent folder settings in force from the first reading: Claude Code's and Codex's folders set in
// the USER settings (not through environment variables, which point at empty folders here), the meter
// reads the session kept there from the extension's start, and follows a Codex session too. The
// fallback refresh is an hour out on this code-server, so only the start and the watchers of the
// folders the settings name can give those readings; how long a reading takes is `npm run bench`'s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixturesDir } from '../lib/paths.mjs';
import { addClaudeTranscript } from '../lib/workspace.mjs';

const STATUS_ID = 'sessionHandoff.context';
const ROOT = path.join(os.tmpdir(), `handoff-ui-agent-folders-${process.pid}`);
const CLAUDE = path.join(ROOT, 'claude-elsewhere');
const CODEX = path.join(ROOT, 'codex-elsewhere');
const EMPTY = path.join(ROOT, 'empty');

/** Its own code-server: the environment names empty folders, the user settings the real ones. */
export const server = {
  env: { CLAUDE_CONFIG_DIR: path.join(EMPTY, 'claude'), CODEX_HOME: path.join(EMPTY, 'codex'), SESSION_HANDOFF_FALLBACK_MS: String(60 * 60_000) },
  settings: { 'sessionHandoff.context.claudeConfigDir': CLAUDE, 'sessionHandoff.context.codexHome': CODEX },
};

/** Before the workbench opens: the workspace's Claude Code session lives only in the folder the settings name. */
export function prepare({ workspace }) {
  for (const d of [path.join(EMPTY, 'claude', 'projects'), path.join(EMPTY, 'codex', 'sessions'), path.join(CODEX, 'sessions')]) fs.mkdirSync(d, { recursive: true });
  addClaudeTranscript(CLAUDE, workspace);
  process.once('exit', () => fs.rmSync(ROOT, { recursive: true, force: true }));
}

const meterText = async (ui) => {
  const item = ui.statusBarItem(STATUS_ID);
  return (await item.count()) ? (await item.innerText()).trim() : '(no item)';
};

async function within(ui, t0, pattern, what) {
  let last = '';
  await ui.waitFor(async () => pattern.test((last = await meterText(ui))), 60000, what).catch((e) => {
    throw new Error(`${e.message} (last seen: ${last})`);
  });
  return Date.now() - t0;
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: "with claudeConfigDir in the user settings, the meter shows the session's reading",
    fn: async (ui) => {
      await ui.statusBarItem(STATUS_ID).waitFor({ state: 'visible', timeout: 60000 });
      const t0 = Date.now();
      // The fixture transcript: 99 212 of 200 000 tokens = 49.6 %, shown as 50%.
      const ms = await within(ui, t0, /50%/, 'the meter reading from the settings folder');
      console.log(`      the meter read ${ms} ms after the extension loaded`);
    },
  },
  {
    name: 'with codexHome in the user settings, a newer Codex session of the folder is followed',
    fn: async (ui) => {
      const now = new Date();
      const pad = (n) => String(n).padStart(2, '0');
      const day = path.join(CODEX, 'sessions', String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()));
      fs.mkdirSync(day, { recursive: true });
      const rollout = path.join(day, 'rollout-2026-11-20T09-00-00-019aa3f1-7c2e-7b40-9d1a-5e6f7a8b9c0d.jsonl');
      const text = fs.readFileSync(path.join(fixturesDir(), 'agents', 'codex-rollout.jsonl'), 'utf8');
      fs.writeFileSync(rollout, text.split('/home/dev/refund-service').join(ui.workspace));
      // The Codex fixture reads 15 % (Codex's own footer); the meter follows the newest session.
      await within(ui, Date.now(), /15%/, 'the meter reading from the Codex session');
    },
  },
];
