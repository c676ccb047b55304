import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { applyWal } from '../../src/core/session/sqliteSnapshot';
import { CHAT, placeGen1 } from '../unit/session/copilotChatFixture';
import { loadSqlJs } from '../unit/session/kiloDbFixture';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { generateAccepting, readPacket, removeOutputs } from './helpers/packetHarness';
import { inHostEnv, waitFor } from './helpers/testEnv';

const OPENCODE_SESSION = 'ses_dcc689e80ffenSdvr2OGWpBFDq';

/** The editor's own `User/workspaceStorage` (code-server's user data lives beside the run's results). */
function workspaceStorage(): string {
  const results = process.env['HANDOFF_TEST_RESULTS'];
  if (!results) throw new Error('HANDOFF_TEST_RESULTS is not set: run the in-host suite through the test harness');
  return path.join(path.dirname(results), 'cs', 'user-data', 'User', 'workspaceStorage');
}

/**
 * The shared OpenCode store (every row in its WAL) made a plain database whose session is the open
 * folder's and whose newest step is now, where OpenCode keeps it by default (`$XDG_DATA_HOME/opencode`),
 * with the fixture's `opencode.json` (the window) in `$XDG_CONFIG_HOME/opencode`.
 */
async function placeOpencode(folder: string): Promise<string[]> {
  const home = path.join(inHostEnv().fixtures, 'more-agents', 'opencode', 'home');
  const store = path.join(home, '.local', 'share', 'opencode', 'opencode.db');
  const image = applyWal(readFileSync(store), readFileSync(`${store}-wal`)).image;
  const SQL = await loadSqlJs();
  const db = new SQL.Database(image);
  db.run("UPDATE session SET directory = replace(directory, '/home/dev/src/slugkit', ?)", [folder]);
  db.run("UPDATE message SET data = replace(data, '/home/dev/src/slugkit', ?)", [folder]);
  const newest = (db.exec('SELECT max(time_created) FROM message')[0]?.values[0]?.[0] as number) ?? 0;
  const shift = Date.now() - newest;
  for (const table of ['session', 'message', 'part']) db.run(`UPDATE ${table} SET time_created = time_created + ?, time_updated = time_updated + ?`, [shift, shift]);
  const dataDir = path.join(process.env['XDG_DATA_HOME'] ?? '', 'opencode');
  const configDir = path.join(process.env['XDG_CONFIG_HOME'] ?? '', 'opencode');
  await fs.mkdir(dataDir, { recursive: true });
  await fs.mkdir(configDir, { recursive: true });
  await fs.writeFile(path.join(dataDir, 'opencode.db'), db.export());
  db.close();
  await fs.copyFile(path.join(home, '.config', 'opencode', 'opencode.json'), path.join(configDir, 'opencode.json'));
  return [dataDir, configDir];
}

/** The workbench files that would speak for the session: set aside while the agent's own session does. */
const WORKBENCH = ['agent_state.json', 'feedback_record.jsonl', 'feature_list.json', 'task_board.json'];

describe('Copilot Chat and OpenCode with nothing set up (in the extension host)', () => {
  const made: string[] = [];
  const aside: [string, string][] = [];

  before(async () => {
    const tmp = await fs.mkdtemp(path.join(path.dirname(inHostEnv().workspace), 'aside-'));
    made.push(tmp);
    for (const n of WORKBENCH) {
      const from = path.join(inHostEnv().workspace, n);
      const to = path.join(tmp, n);
      if (await fs.rename(from, to).then(() => true, () => false)) aside.push([to, from]);
    }
  });

  after(async () => {
    for (const [to, from] of aside) await fs.rename(to, from);
    for (const d of made) await fs.rm(d, { recursive: true, force: true });
    if (!process.env['HANDOFF_KEEP_RUN']) await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  it("a Copilot Chat session of the open folder fills the packet and the Handoffs view; then an OpenCode database drives the meter", async function () {
    this.timeout(120_000);
    const folder = inHostEnv().workspace;
    const api = await extensionApi();
    // Copilot Chat: the session VS Code itself keeps for this folder, in the editor's workspace storage.
    const file = await placeGen1(workspaceStorage(), folder, 'gen1-session-inhost');
    made.push(path.dirname(path.dirname(file)));
    const refreshUntil = <T>(probe: () => T | undefined, what: string) =>
      waitFor(async () => {
        const v = probe();
        if (!v) await vscode.commands.executeCommand('sessionHandoff.refresh');
        return v;
      }, 40_000, what);
    const folderUri = vscode.workspace.workspaceFolders?.[0];
    await refreshUntil(() => {
      const s = api.services.state.get(folderUri);
      return s?.session?.agent === 'copilot-chat' ? s : undefined;
    }, "the Copilot Chat session's facts");
    const r = await generateAccepting();
    assert.equal(r.kind, 'written');
    assert.ok(r.packetId);
    const packet = await readPacket(r.packetId);
    // The workbench's feedback_record.jsonl gives the commands here; the session gives the rest.
    assert.ok(Object.values(packet.sources).some((v) => String(v) === 'copilot-chat:gen1-session-inhost'), JSON.stringify(packet.sources));
    assert.equal(packet.closing?.text, CHAT.closing);
    assert.equal(packet.human_words?.find((w) => w.kind === 'first-request')?.text, CHAT.request);
    const listed = await stateWhere(api, (x) => x.packets.some((p) => p.id === r.packetId), 'the packet in the Handoffs view', 20_000);
    assert.ok(listed);
    const rows = api.views.handoffs.getChildren().flatMap((k) => (k.kind === 'key' ? api.views.handoffs.getChildren(k) : [k]));
    assert.ok(rows.some((n) => n.kind === 'packet' && n.packetId === r.packetId), 'a row of the Handoffs view is the packet');
    // OpenCode: its database where it keeps it by default, the newer session: the meter reads it.
    made.push(...(await placeOpencode(folder)));
    const s = await refreshUntil(() => {
      const x = api.services.state.get(folderUri);
      return x?.context.known && x.context.source === 'opencode' ? x : undefined;
    }, 'a reading from the OpenCode database');
    assert.ok(s.context.known);
    assert.equal(s.context.sessionId, OPENCODE_SESSION);
    assert.equal(s.context.usedTokens, 9041);
    assert.equal(s.context.windowTokens, 131_072);
    const view = await waitFor(() => (api.statusBar.current.text.includes('7%') ? api.statusBar.current : undefined), 15_000, 'status bar at 7%');
    assert.match(view.tooltip, /OpenCode/);
    assert.match(view.tooltip, /9,041 of 131,072/);
  });
});
