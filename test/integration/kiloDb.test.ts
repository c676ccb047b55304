import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { makeTempDir } from '../unit/helpers/fixtures';
import { loadSqlJs, placeKiloDb } from '../unit/session/kiloDbFixture';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { inHostEnv, waitFor } from './helpers/testEnv';

const SES = 'ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4';

/** What Kilo Code does when its session takes one more step: a new assistant message, the file replaced whole. */
async function addStep(db: string, total: number): Promise<void> {
  const SQL = await loadSqlJs();
  const d = new SQL.Database(readFileSync(db));
  const t = Date.now();
  const data = { role: 'assistant', time: { created: t, completed: t + 10 }, modelID: 'anthropic/claude-sonnet-5', providerID: 'kilo', cost: 0, tokens: { total, input: total - 100, output: 100, reasoning: 0, cache: { read: 0, write: 0 } }, finish: 'stop' };
  d.run('INSERT INTO message VALUES (?,?,?,?,?)', ['msg_9f9c2a7b1e60Zz9Zz9Zz9Zz9', SES, t, t, JSON.stringify(data)]);
  const tmp = `${db}.tmp`;
  await fs.writeFile(tmp, d.export());
  d.close();
  await fs.rename(tmp, db);
}

describe("Kilo Code's kilo.db drives the meter (in the extension host)", () => {
  it('the folder session of the database named in the settings is the reading, and a new step moves it', async () => {
    const cfg = () => vscode.workspace.getConfiguration('sessionHandoff');
    const db = await placeKiloDb(inHostEnv().workspace, { into: path.join(await makeTempDir('handoff-inhost-kilo-'), 'kilo'), now: Date.now() });
    try {
      await cfg().update('context.windowOverride', 200_000, vscode.ConfigurationTarget.Global);
      await cfg().update('context.kiloDatabase', db, vscode.ConfigurationTarget.Global);
      const api = await extensionApi();
      const s = await stateWhere(api, (x) => x.context.known && x.context.source === 'kilo', 'a reading from the Kilo Code database', 30000);
      assert.ok(s.context.known);
      assert.equal(s.context.sessionId, SES);
      assert.equal(s.context.usedTokens, 19206);
      const view = await waitFor(() => (api.statusBar.current.text.includes('10%') ? api.statusBar.current : undefined), 15000, 'status bar at 10%');
      assert.match(view.tooltip, /Kilo Code/);
      assert.match(view.tooltip, /19,206 of 200,000/);
      await stateWhere(api, (x) => x.session?.agent === 'kilo' && x.session.sessionId === SES, "the session's facts from the database");
      // The agent writes the next step: the watched database moves the meter without a refresh.
      await addStep(db, 120_000);
      await waitFor(() => api.statusBar.current.text.includes('60%'), 20000, 'status bar at 60% after the new step');
    } finally {
      await cfg().update('context.kiloDatabase', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('context.windowOverride', undefined, vscode.ConfigurationTarget.Global);
    }
    const api = await extensionApi();
    await stateWhere(api, (x) => x.context.known && x.context.source !== 'kilo', 'the reading back on the workspace agent', 30000);
  });
});
