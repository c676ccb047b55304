import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { HandoffNode } from '../../src/ui/views/handoffsView';
import { claudeCall } from '../unit/helpers/agentLines';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { generateAccepting, removeOutputs } from './helpers/packetHarness';
import { inHostEnv, waitFor } from './helpers/testEnv';

describe('after an auto-compaction (in the extension host)', () => {
  let file = '';
  let original = '';

  after(async () => {
    // Later tests read the fixture transcript as it was; a shrunk file is read afresh.
    if (file) await fs.writeFile(file, original);
    if (!process.env.HANDOFF_KEEP_RUN) await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
    await stateWhere(await extensionApi(), (x) => x.context.known && x.context.percent === 49.6 && x.packets.length === 0, 'the fixture reading back');
  });

  it('says "compacted at N % without a handoff" in the status bar tooltip and the Handoffs view, until a handoff is written', async () => {
    await removeOutputs();
    const api = await extensionApi();
    const s = await stateWhere(api, (x) => x.context.known, 'a context reading');
    assert.ok(s.context.known && s.context.file?.startsWith(inHostEnv().claudeDir));
    file = s.context.file ?? '';
    original = await fs.readFile(file, 'utf8');
    const sessionId = s.context.sessionId;
    const now = new Date().toISOString();
    const boundary = JSON.stringify({
      isSidechain: false, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted',
      compactMetadata: { trigger: 'auto', preTokens: 168_000 }, timestamp: now, sessionId, cwd: inHostEnv().workspace,
    });
    await fs.appendFile(file, `${boundary}\n${claudeCall({ sessionId, cwd: inHostEnv().workspace, id: 'msg_after', cacheRead: 30_000, timestamp: now })}`);
    // Right after start-up the transcript watcher may not be listening yet (watchers are tested elsewhere).
    await vscode.commands.executeCommand('sessionHandoff.refresh');

    const view = await waitFor(() => (/without a handoff/.test(api.statusBar.current.tooltip) ? api.statusBar.current : undefined), 10000, 'the compaction notice in the tooltip');
    assert.match(view.tooltip, /Compacted at 84 % without a handoff\.\*\* \[Generate Handoff\]\(command:sessionHandoff\.generateHandoff\)/);
    const first = api.views.handoffs.getChildren()[0] as HandoffNode;
    assert.equal(first?.kind, 'compacted');
    const item = api.views.handoffs.getTreeItem(first);
    assert.equal(item.label, 'Compacted at 84 % without a handoff');
    assert.equal(item.command?.command, 'sessionHandoff.generateHandoff');

    const r = await generateAccepting();
    assert.ok(r.kind === 'written' || r.kind === 'unchanged', JSON.stringify(r));
    await waitFor(() => !/without a handoff/.test(api.statusBar.current.tooltip), 10000, 'the notice to go once a handoff is written');
    assert.notEqual((api.views.handoffs.getChildren()[0] as HandoffNode | undefined)?.kind, 'compacted');
  });
});
