import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { qwenProjectName } from '../../src/core/session/qwen';
import { moreAgentsHome } from '../unit/session/moreAgentsFixture';
import { extensionApi } from './helpers/extensionApi';
import { generateAccepting, readPacket, removeOutputs } from './helpers/packetHarness';
import { inHostEnv, waitFor } from './helpers/testEnv';

/** The workbench files that would speak for the session: set aside while the agent's own session does. */
const WORKBENCH = ['agent_state.json', 'feedback_record.jsonl', 'feature_list.json', 'task_board.json'];

/** One agent's recorded store, its paths rewritten to the open folder, laid out in the editor's HOME where the agent keeps it. */
async function place(agent: 'gemini' | 'qwen' | 'copilot', folder: string): Promise<string> {
  const copy = await moreAgentsHome(agent, { cwd: folder, rename: (n) => (n === '-home-dev-src-slugkit' ? qwenProjectName(folder) : n) });
  const name = `.${agent}`;
  const into = path.join(process.env['HOME'] ?? '', name);
  await fs.cp(path.join(copy, name), into, { recursive: true });
  await fs.rm(copy, { recursive: true, force: true });
  return into;
}

describe('Gemini CLI, Qwen Code and Copilot CLI with nothing set up (in the extension host)', () => {
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

  it("each store in the agent's own folder drives the meter and the status bar; a Gemini CLI session fills the packet", async function () {
    this.timeout(180_000);
    const folder = inHostEnv().workspace;
    const api = await extensionApi();
    const folderUri = vscode.workspace.workspaceFolders?.[0];
    const refreshUntil = <T>(probe: () => T | undefined, what: string) =>
      waitFor(async () => {
        const v = probe();
        if (!v) await vscode.commands.executeCommand('sessionHandoff.refresh');
        return v;
      }, 40_000, what);
    made.push(await place('gemini', folder));
    const g = await refreshUntil(() => {
      const s = api.services.state.get(folderUri);
      return s?.context.known && s.context.source === 'gemini' && s.session?.agent === 'gemini' ? s : undefined;
    }, 'a reading and the facts from the Gemini CLI session');
    assert.ok(g.context.known);
    assert.equal(g.context.usedTokens, 13_694);
    assert.equal(g.context.windowTokens, 1_048_576);
    const r = await generateAccepting();
    assert.equal(r.kind, 'written');
    assert.ok(r.packetId);
    const packet = await readPacket(r.packetId);
    assert.equal(packet.sources['commands'], 'gemini:73004524-c1e8-4736-88a8-7cf8556ef0e0');
    assert.deepEqual(packet.commands_run.map((c) => c.exit_code), [1, 0]);
    assert.match(packet.closing?.text ?? '', /fall back to `'untitled'`/);
    // The newer sessions of the other two agents take the meter over in turn.
    made.push(await place('qwen', folder));
    const q = await refreshUntil(() => {
      const s = api.services.state.get(folderUri);
      return s?.context.known && s.context.source === 'qwen' ? s : undefined;
    }, 'a reading from the Qwen Code session');
    assert.ok(q.context.known);
    assert.equal(q.context.windowTokens, 1_000_000);
    made.push(await place('copilot', folder));
    const c = await refreshUntil(() => {
      const s = api.services.state.get(folderUri);
      return s?.context.known && s.context.source === 'copilot-cli' ? s : undefined;
    }, 'a reading from the Copilot CLI session');
    assert.ok(c.context.known);
    assert.equal(c.context.usedTokens, 13_413);
    const view = await waitFor(() => (api.statusBar.current.text.includes('21%') ? api.statusBar.current : undefined), 15_000, 'status bar at 21%');
    assert.match(view.tooltip, /Copilot CLI/);
    assert.match(view.tooltip, /13,413 of 64,000/);
  });
});
