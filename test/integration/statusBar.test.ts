import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { claudeCall } from '../unit/helpers/agentLines';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { inHostEnv, waitFor } from './helpers/testEnv';

describe('context status bar and wrap-up prompt (in the extension host)', () => {
  it("shows the fixture transcript's 49.6 % as 50% with the warning background", async () => {
    const api = await extensionApi();
    await stateWhere(api, (s) => s.context.known, 'a context reading');
    const view = await waitFor(() => (api.statusBar.current.text.includes('50%') ? api.statusBar.current : undefined), 10000, 'status bar at 50%');
    assert.equal(view.background, 'warning');
    assert.match(view.tooltip, /Claude Code/);
    assert.match(view.tooltip, /99,212 of 200,000/);
  });

  it('moves when the agent appends a line, and raises the urgent prompt once per session', async () => {
    const api = await extensionApi();
    const s = await stateWhere(api, (x) => x.context.known, 'a context reading');
    assert.ok(s.context.known);
    const file = s.context.file;
    assert.ok(file?.startsWith(inHostEnv().claudeDir), `reading comes from the test agent home (${file})`);
    const line = (tokens: number, id: string) =>
      claudeCall({ sessionId: s.context.known ? s.context.sessionId : '', cwd: inHostEnv().workspace, id, cacheRead: tokens, timestamp: new Date().toISOString() });
    const urgentBefore = api.wrapUp.prompts.filter((p) => p.level === 'urgent').length;
    await fs.appendFile(file!, line(160_000, 'msg_up1'));
    const view = await waitFor(() => (api.statusBar.current.text.includes('80%') ? api.statusBar.current : undefined), 10000, 'status bar at 80%');
    assert.equal(view.background, 'error');
    await waitFor(() => api.wrapUp.prompts.filter((p) => p.level === 'urgent').length === urgentBefore + 1, 20000, 'one urgent prompt');
    await fs.appendFile(file!, line(170_000, 'msg_up2'));
    await waitFor(() => api.statusBar.current.text.includes('85%'), 10000, 'status bar at 85%');
    assert.equal(api.wrapUp.prompts.filter((p) => p.level === 'urgent').length, urgentBefore + 1, 'no second urgent prompt in the same session');
  });
});
