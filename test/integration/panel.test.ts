import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { writeAck } from '../../src/core/acks';
import { doorLine } from '../../src/core/render/prompt';
import type { HandoffPanel } from '../../src/ui/panel/handoffPanel';
import type { HostMessage } from '../../src/ui/protocol';
import { generateAccepting, outputDir, packetCommands, readPacket, removeOutputs } from './helpers/packetHarness';
import { inHostEnv, waitFor } from './helpers/testEnv';

/** Collects what the host posts to the page while a test acts. */
function recordPosts(view: HandoffPanel): { list: HostMessage[]; dispose(): void } {
  const list: HostMessage[] = [];
  const sub = view.onDidPost((m) => list.push(m));
  return { list, dispose: () => sub.dispose() };
}

describe('handoff panel (in the extension host)', () => {
  let packetId = '';
  const scratch = () => path.join(inHostEnv().workspace, 'panel-notes.tmp');

  before(async () => {
    await removeOutputs();
    await fs.writeFile(scratch(), 'x\n');
    const r = await generateAccepting();
    assert.ok(r.packetId, `generated: ${JSON.stringify(r)}`);
    packetId = r.packetId;
  });

  after(async () => {
    (await packetCommands()).panels.panel?.panel.dispose();
    await fs.rm(scratch(), { force: true });
    await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  it('opens on the active packet of the fixture and the page draws it', async () => {
    const r = await vscode.commands.executeCommand<{ packetId: string | null; shown: string | null }>('sessionHandoff.openActiveHandoff');
    assert.deepEqual(r, { packetId, shown: 'render' });
    const api = await packetCommands();
    const msg = api.panels.panel?.lastMessage;
    assert.ok(msg?.type === 'render');
    assert.match(msg.model.packet.next_action, /pytest tests\/test_refund\.py::test_partial/);
    assert.equal(api.panels.panel?.panel.viewType, 'sessionHandoff.panel');
  });

  it('keeps one panel and reveals it when opened again', async () => {
    const api = await packetCommands();
    const first = api.panels.panel;
    await vscode.commands.executeCommand('sessionHandoff.openActiveHandoff');
    assert.equal(api.panels.panel, first);
  });

  it('does not redraw the page when nothing it shows changed, but does when asked to', async () => {
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    const posts = recordPosts(view);
    try {
      // What a meter update does: a new state for the folder with the same packet.
      await view.render();
      assert.equal(posts.list.length, 0, 'an identical drawing was posted again');
      await view.render(true);
      assert.deepEqual(posts.list.map((m) => m.type), ['render']);
    } finally {
      posts.dispose();
    }
  });

  it('drops malformed messages and refuses paths outside the workspace', async () => {
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    const answers = recordPosts(view);
    for (const bad of [{ type: 'eval', code: 'alert(1)' }, { type: 'openFile' }, 'copyPrompt', null]) await view.receive(bad);
    assert.deepEqual(answers.list.filter((m) => m.type !== 'render' && m.type !== 'empty'), [], 'nothing answered a malformed message');
    await view.receive({ type: 'openFile', path: '../../../etc/passwd' });
    const failed = answers.list.find((m) => m.type === 'failed');
    answers.dispose();
    assert.ok(failed?.type === 'failed' && /outside the workspace/.test(failed.message), JSON.stringify(answers.list));
  });

  it('opens a changed file of the packet in an editor, and says so when one is gone', async () => {
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    await view.receive({ type: 'openFile', path: 'panel-notes.tmp' });
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === scratch(), 10000, 'panel-notes.tmp in an editor');
    const answers = recordPosts(view);
    await view.receive({ type: 'openFile', path: 'payments/refund.py' });
    answers.dispose();
    assert.ok(answers.list.some((m) => m.type === 'failed' && /no longer exists/.test(m.message)), JSON.stringify(answers.list));
  });

  it('copies the restart prompt into the clipboard and tells the page', async () => {
    await vscode.env.clipboard.writeText('');
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    const answers = recordPosts(view);
    await view.receive({ type: 'copyPrompt' });
    answers.dispose();
    const prompt = await vscode.env.clipboard.readText();
    const lines = prompt.split('\n');
    assert.match(lines.slice(0, 3).join('\n'), /continuing work handed off/);
    assert.match(prompt, /NEXT ACTION[^\n]*\n> Run pytest tests\/test_refund\.py::test_partial/);
    assert.equal(prompt.trimEnd().split('\n').at(-1), doorLine('clipboard'), 'it says it came through the clipboard');
    assert.ok(answers.list.some((m) => m.type === 'copied' && m.what === 'prompt'), JSON.stringify(answers.list));
  });

  it('copies handoff.json exactly as written', async () => {
    assert.equal(await vscode.commands.executeCommand('sessionHandoff.copyJson'), true);
    const onDisk = await fs.readFile(path.join(outputDir(), packetId, 'handoff.json'), 'utf8');
    assert.equal(await vscode.env.clipboard.readText(), onDisk);
  });

  it('redraws live when an acknowledgement is recorded next to the packet', async () => {
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    // Recorded as the Open Risks view records one (a hand-written sidecar would be of unknown origin).
    await writeAck(path.join(outputDir(), packetId), { risk_id: 'blocker:1', by: 'tester', at: '2026-01-01T00:00:00Z' });
    await vscode.commands.executeCommand('sessionHandoff.refresh');
    await waitFor(() => {
      const m = view.lastMessage;
      return m?.type === 'render' && m.model.acks.some((a) => a.id === 'blocker:1' && a.by === 'tester');
    }, 10000, 'the panel to show the acknowledgement');
  });

  it('turns stale live when an input artifact changes, and fresh again when it is restored', async () => {
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    const review = path.join(inHostEnv().workspace, 'review_report.json');
    const original = await fs.readFile(review, 'utf8');
    const freshness = () => (view.lastMessage?.type === 'render' ? view.lastMessage.model.freshness : null);
    try {
      await fs.writeFile(review, `${original}\n`);
      await vscode.commands.executeCommand('sessionHandoff.refresh');
      const stale = await waitFor(() => (freshness()?.stale ? freshness() : null), 10000, 'a stale render');
      assert.ok(stale.reasons.some((r) => r.includes('review_report.json')), JSON.stringify(stale.reasons));
    } finally {
      await fs.writeFile(review, original);
    }
    await vscode.commands.executeCommand('sessionHandoff.refresh');
    await waitFor(() => freshness()?.stale === false, 10000, 'a fresh render again');
  });

  it('archives the packet on disk and the panel stops showing it as active', async () => {
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    assert.equal(await vscode.commands.executeCommand('sessionHandoff.archiveHandoff', { packetId, folderUri: vscode.Uri.file(inHostEnv().workspace) }), packetId);
    assert.equal((await readPacket(packetId)).status, 'archived');
    await waitFor(() => view.lastMessage?.type === 'empty', 10000, 'the panel to drop the archived packet');
  });
});
