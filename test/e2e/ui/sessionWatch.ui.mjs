// A brand-new agent session of the folder moves the meter through the watchers of the agents' session
// folders (read-only, outside the workspace), not through the fallback refresh: this file's code-server
// puts the fallback an hour out, so with the watchers removed the meter never moves and the steps fail,
// however slow the machine. The reading is known from the start (the workspace's Claude Code
// transcript), so no unknown-reading retry can stand in for the watchers either. How long a reading
// takes is a benchmark figure (`npm run bench`, scripts/bench/context.mjs); the times are logged here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixturesDir } from '../lib/paths.mjs';
import { addClaudeTranscript } from '../lib/workspace.mjs';

const STATUS_ID = 'sessionHandoff.context';
/** Generous for a loaded machine; far below the fallback refresh, which this code-server holds off. */
const WAIT_MS = 60_000;

/** Its own code-server: the fallback refresh an hour out, so only a watcher can move the meter. */
export const server = { env: { SESSION_HANDOFF_FALLBACK_MS: String(60 * 60_000) } };

/** @type {{claudeDir: string, codexHome: string} | undefined} */
let home;

export function prepare({ claudeDir, codexHome }) {
  home = { claudeDir, codexHome };
}

const meterText = async (ui) => {
  const item = ui.statusBarItem(STATUS_ID);
  return (await item.count()) ? (await item.innerText()).trim() : '(no item)';
};

async function waitMeter(ui, pattern, timeout, what) {
  const t0 = Date.now();
  let last = '';
  await ui.waitFor(async () => pattern.test((last = await meterText(ui))), timeout, what).catch((e) => {
    throw new Error(`${e.message} (last seen: ${last})`);
  });
  return Date.now() - t0;
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the meter shows the Claude Code session of the folder',
    fn: async (ui) => {
      await ui.statusBarItem(STATUS_ID).waitFor({ state: 'visible', timeout: 60000 });
      // The fixture transcript: 99 212 of 200 000 tokens, shown as 50%.
      await waitMeter(ui, /50%/, 60000, 'the first reading');
    },
  },
  {
    name: 'a new Codex rollout (its sessions folder new too) moves the meter',
    fn: async (ui) => {
      assert.ok(home, 'prepare ran');
      const now = new Date();
      const pad = (n) => String(n).padStart(2, '0');
      const day = path.join(home.codexHome, 'sessions', String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()));
      fs.mkdirSync(day, { recursive: true });
      const text = fs.readFileSync(path.join(fixturesDir(), 'agents', 'codex-rollout.jsonl'), 'utf8');
      fs.writeFileSync(path.join(day, 'rollout-2026-11-20T09-00-00-019aa3f1-7c2e-7b40-9d1a-5e6f7a8b9c0d.jsonl'), text.split('/home/dev/refund-service').join(ui.workspace));
      // The Codex fixture reads 15 % (Codex's own footer); the meter follows the newest session.
      const ms = await waitMeter(ui, /15%/, WAIT_MS, 'the reading of the new Codex session');
      console.log(`      the meter moved ${ms} ms after the rollout was written`);
    },
  },
  {
    name: 'a new Claude Code transcript of the folder moves the meter',
    fn: async (ui) => {
      assert.ok(home, 'prepare ran');
      const before = await meterText(ui);
      addClaudeTranscript(home.claudeDir, ui.workspace, 'claude-compacted.jsonl');
      const ms = await waitMeter(ui, /\d+%/, 25000, 'a reading').then(async () => {
        const t0 = Date.now();
        await ui.waitFor(async () => (await meterText(ui)) !== before, WAIT_MS, 'the reading of the new Claude Code session');
        return Date.now() - t0;
      });
      console.log(`      the meter moved ${ms} ms after the transcript was written (${before} → ${await meterText(ui)})`);
      assert.notEqual(await meterText(ui), before);
    },
  },
];
