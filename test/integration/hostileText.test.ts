import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { CleanNode } from '../../src/ui/views/cleanStateView';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { generateAccepting, packetCommands, removeOutputs } from './helpers/packetHarness';
import { inHostEnv } from './helpers/testEnv';

// What an agent (or a checked-out repository) can put in an artifact to make a tooltip or the panel act.
const LINK = '[run me](command:sessionHandoff.applyFix)';
const HTML = '<img src=x onerror=alert(1)>';
const PAYLOAD = `${LINK} ${HTML} https://evil.example`;

/** Renders Markdown with the built-in Markdown extension (HTML enabled, as in its preview). */
async function render(md: vscode.MarkdownString): Promise<string> {
  await vscode.extensions.getExtension('vscode.markdown-language-features')?.activate();
  return vscode.commands.executeCommand<string>('markdown.api.render', md.value);
}

describe('artifact text stays text (in the extension host)', () => {
  const file = () => path.join(inHostEnv().workspace, 'agent_state.json');
  let original = '';

  before(async () => {
    original = await fs.readFile(file(), 'utf8');
    const state = JSON.parse(original) as Record<string, unknown>;
    // The branch the agent expects shows up in the Branch check's summary, detail and fix.
    state['branch'] = `feat/x ${PAYLOAD}`;
    state['next_action'] = `Fix the refund rounding ${PAYLOAD}`;
    await fs.writeFile(file(), JSON.stringify(state, null, 2));
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  after(async () => {
    (await packetCommands()).panels.panel?.panel.dispose();
    await fs.writeFile(file(), original);
    await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  it('a Clean State tooltip shows a markdown link and HTML from an artifact as text, untrusted and without HTML', async () => {
    const api = await extensionApi();
    await stateWhere(api, (s) => !!s.clean?.checks.some((c) => c.check === 'branch' && c.summary.includes(HTML)), 'the branch check quoting the payload');
    const provider = api.views.cleanState;
    const check = (provider.getChildren() as Extract<CleanNode, { kind: 'check' }>[]).find((c) => c.check.check === 'branch');
    assert.ok(check);
    const finding = provider.getChildren(check)[0];
    assert.ok(finding);
    for (const node of [check, finding]) {
      const tip = provider.getTreeItem(node).tooltip;
      assert.ok(tip instanceof vscode.MarkdownString, 'a Markdown tooltip');
      assert.ok(!tip.isTrusted, 'never trusted');
      assert.ok(!tip.supportHtml, 'never HTML');
      const html = await render(tip);
      assert.doesNotMatch(html, /<a\b|<img\b/i, html);
      // The characters are all there, as text.
      const text = html.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/&quot;/g, '"');
      assert.ok(text.includes(LINK), text);
      assert.ok(text.includes(HTML), text);
    }
  });

  it('the panel gets the packet text as data and its page holds none of it', async () => {
    const r = await generateAccepting();
    assert.ok(r.packetId, JSON.stringify(r));
    await vscode.commands.executeCommand('sessionHandoff.openActiveHandoff');
    const view = (await packetCommands()).panels.panel;
    assert.ok(view);
    const msg = view.lastMessage;
    assert.ok(msg?.type === 'render');
    // Exactly as written: not turned into a link or markup on the way (the page sets it as textContent).
    assert.ok(msg.model.packet.next_action.includes(PAYLOAD), msg.model.packet.next_action);
    const page = view.panel.webview.html;
    assert.ok(!page.includes('onerror') && !page.includes('command:sessionHandoff.applyFix'), 'packet text in the page source');
    assert.match(page, /Content-Security-Policy/);
    assert.doesNotMatch(page, /unsafe-inline|unsafe-eval/);
  });
});
