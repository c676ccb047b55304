import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { readAcks } from '../../src/core/acks';
import { ackDirOf } from '../../src/ui/state/ackService';
import { FALLBACK_INTERVAL_MS } from '../../src/ui/state/folderState';
import type { RiskNode } from '../../src/ui/views/risksView';
import type { CleanNode } from '../../src/ui/views/cleanStateView';
import { buildTestPacket } from '../unit/helpers/packetBuilder';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { inHostEnv, waitFor } from './helpers/testEnv';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('sidebar views (in the extension host)', () => {
  it('Clean State lists the failing checks with their paths and turns green after a commit, without a reload', async () => {
    const api = await extensionApi();
    const ws = inHostEnv().workspace;
    await fs.writeFile(path.join(ws, 'refund_notes.tmp'), 'scratch\n');
    await fs.writeFile(path.join(ws, 'refund_calc.py'), 'def paise(x):\n    return int(x * 100)\n');
    await stateWhere(api, (s) => !!s.clean?.findings.some((f) => f.paths?.includes('refund_calc.py')), 'a working-tree finding for refund_calc.py');
    const provider = api.views.cleanState;
    const checks = provider.getChildren().filter((n): n is Extract<CleanNode, { kind: 'check' }> => n.kind === 'check');
    assert.deepEqual(checks.map((c) => c.check.check), ['working-tree', 'temp-artifacts', 'tests', 'feature-board', 'branch']);
    const byId = (id: string) => checks.find((c) => c.check.check === id);
    assert.equal(byId('working-tree')?.check.passed, false);
    assert.equal(byId('temp-artifacts')?.check.passed, false);
    const paths = (check: CleanNode) => provider.getChildren(check).flatMap((f) => provider.getChildren(f)).map((p) => (p.kind === 'path' ? p.path : ''));
    assert.ok(paths(byId('working-tree')!).includes('refund_calc.py'));
    assert.ok(paths(byId('temp-artifacts')!).includes('refund_notes.tmp'));
    const item = provider.getTreeItem(provider.getChildren(provider.getChildren(byId('working-tree')!)[0]!)[0]!);
    assert.equal(item.command?.command, 'sessionHandoff.openLocation');

    // No refresh command: the watchers on the folder and .git/index must notice.
    await fs.rm(path.join(ws, 'refund_notes.tmp'));
    git(ws, 'add', 'refund_calc.py');
    git(ws, 'commit', '-q', '-m', 'Add the paise helper');
    const after = await stateWhere(
      api,
      (s) => !!s.clean && s.clean.checks.find((c) => c.check === 'working-tree')?.passed === true && s.clean.checks.find((c) => c.check === 'temp-artifacts')?.passed === true,
      'working tree and temp artifacts green after the commit',
    );
    assert.equal(after.phase, 'ready');
  });

  it('Clean State lists a credential found in a workbench file as a finding of its own, opening its line, with no secret in any label', async () => {
    const api = await extensionApi();
    // The fixture's feedback log holds a provider key in a curl command.
    const s = await stateWhere(api, (x) => (x.snapshot?.secrets ?? []).length > 0, 'a masked credential');
    const provider = api.views.cleanState;
    const node = provider.getChildren().find((n) => n.kind === 'secrets');
    assert.ok(node, 'a Credentials in workbench files row');
    assert.equal(provider.getTreeItem(node).label, 'Credentials in workbench files');
    const [first] = provider.getChildren(node);
    assert.ok(first && first.kind === 'secret');
    const item = provider.getTreeItem(first);
    const found = s.snapshot!.secrets![0]!;
    assert.equal(item.label, `${found.label.charAt(0).toUpperCase()}${found.label.slice(1)} in ${found.file} line ${found.line}`);
    const tip = (item.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' ');
    assert.match(tip, /rotate the credential now/);
    // The fixture's key (a `sk-live-…` value) is named by kind only.
    for (const text of [String(item.label), tip, String(provider.getTreeItem(node).description)]) assert.doesNotMatch(text, /sk-live-[0-9a-f]{4}/);
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const editor = await waitFor(() => vscode.window.activeTextEditor, 20000, 'an editor');
    assert.equal(path.basename(editor.document.uri.fsPath), found.file);
    assert.equal(editor.selection.active.line + 1, found.line);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    // Live risks carry it too, as a block.
    assert.ok(s.risks.some((r) => r.risk.id.startsWith('leak:') && r.risk.severity === 'block'));
  });

  it("Open Risks groups the fixture's risks by severity; Acknowledge moves one to Acknowledged and it survives a reload", async () => {
    const api = await extensionApi();
    const s = await stateWhere(api, (x) => x.risks.some((r) => r.risk.id === 'verify:acceptance.failed'), 'the verification risk');
    const provider = api.views.risks;
    const groups = provider.getChildren() as Extract<RiskNode, { kind: 'group' }>[];
    assert.equal(groups[0]?.group, 'block');
    const severities = groups.map((g) => g.group);
    assert.ok(severities.includes('warn'), severities.join(','));
    const blockRisks = provider.getChildren(groups[0]) as Extract<RiskNode, { kind: 'risk' }>[];
    const target = blockRisks.find((r) => r.uiRisk.risk.id === 'verify:acceptance.failed');
    assert.ok(target, 'the block verification finding is listed under Block');
    const item = provider.getTreeItem(target);
    assert.match(String(item.contextValue), /\bunacknowledged\b/);
    assert.equal(item.command?.command, 'sessionHandoff.openLocation');
    // Clicking the row opens the source artifact at the line that mentions the risk.
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const editor = await waitFor(() => vscode.window.activeTextEditor, 20000, 'an editor');
    assert.equal(editor.document.uri.fsPath, path.join(inHostEnv().workspace, 'verification_report.json'));
    assert.match(editor.document.lineAt(editor.selection.active.line).text, /exit 1 on pytest/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const badgeBefore = provider.badge();
    assert.ok(badgeBefore >= 1);

    await vscode.commands.executeCommand('sessionHandoff.acknowledgeRisk', target);
    const after = await stateWhere(api, (x) => !!x.risks.find((r) => r.risk.id === 'verify:acceptance.failed')?.ack, 'the acknowledgement');
    const ackGroup = (provider.getChildren() as Extract<RiskNode, { kind: 'group' }>[]).find((g) => g.group === 'acknowledged');
    assert.ok(ackGroup);
    assert.ok((provider.getChildren(ackGroup) as Extract<RiskNode, { kind: 'risk' }>[]).some((r) => r.uiRisk.risk.id === 'verify:acceptance.failed'));
    assert.equal(provider.badge(), badgeBefore - 1);

    // Persisted next to the packet (or in the output dir before one exists) with who and when…
    const sidecar = await readAcks(ackDirOf(after));
    assert.ok(sidecar.ok);
    const rec = sidecar.value.acks.find((a) => a.risk_id === 'verify:acceptance.failed');
    assert.ok(rec?.by && rec.at);
    // …so a state rebuilt from disk still has it.
    await api.services.state.refresh(s.folder, 'test reload');
    assert.ok(api.services.state.get(s.folder)?.risks.find((r) => r.risk.id === 'verify:acceptance.failed')?.ack);
  });

  it('Handoffs groups packets per branch + topic, active first, and marks a stale one with the reason', async function () {
    this.timeout(FALLBACK_INTERVAL_MS + 30_000);
    const api = await extensionApi();
    const s = await stateWhere(api, (x) => x.phase === 'ready', 'ready state');
    const dirs = ['test-view-old', 'test-view-new'].map((id) => path.join(s.outputDir, id));
    try {
      const head = git(inHostEnv().workspace, 'rev-parse', 'HEAD').trim();
      const base = { branch: 'feat/upi-refund', topic: 'T-view' };
      await fs.mkdir(dirs[0]!, { recursive: true });
      await fs.mkdir(dirs[1]!, { recursive: true });
      await fs.writeFile(path.join(dirs[0]!, 'handoff.json'), JSON.stringify(buildTestPacket({ ...base, packet_id: 'test-view-old', status: 'superseded', superseded_by: 'test-view-new', head_commit: head })));
      await fs.writeFile(path.join(dirs[1]!, 'handoff.json'), JSON.stringify(buildTestPacket({ ...base, packet_id: 'test-view-new', generated_at: '2026-02-01T00:00:00.000Z', head_commit: 'f'.repeat(40) })));
      // Normally the output-dir watcher refreshes within a second; should inotify miss files made in
      // a brand-new folder, the slow fallback's fingerprint check must still bring them in.
      await stateWhere(api, (x) => x.packets.filter((p) => p.id.startsWith('test-view-')).length === 2, 'both test packets listed', FALLBACK_INTERVAL_MS + 10_000).catch((err: Error) => {
        const now = api.services.state.get(s.folder);
        throw new Error(`${err.message}; listed: ${now?.packets.map((p) => p.id).join(', ')}; diagnostics: ${now?.diagnostics.map((d) => `${d.file}: ${d.message}`).join('; ')}`);
      });
      const provider = api.views.handoffs;
      const key = provider.getChildren().find((n) => n.kind === 'key' && n.label.includes('T-view'));
      assert.ok(key);
      const packets = provider.getChildren(key);
      assert.deepEqual(packets.map((p) => (p.kind === 'packet' ? p.packetId : '')), ['test-view-new', 'test-view-old']);
      const active = provider.getTreeItem(packets[0]!);
      // Written by the test, not by Session Handoff here: the row says so (Trust This Packet is offered).
      assert.match(String(active.description), /^active, stale · written (just now|\d+ min ago) · not written here$/);
      // The reason is a row of its own under the packet, not a cut-off tail of its row.
      const reasons = provider.getChildren(packets[0]).map((n) => (n.kind === 'reason' ? n.text : ''));
      assert.ok(reasons.some((r) => /^HEAD/.test(r)), reasons.join(' | '));
      assert.match(String(active.contextValue), /\bpacket\b.*\bstale\b/);
      assert.equal(active.command?.command, 'sessionHandoff.openPacket');
      assert.match(String(provider.getTreeItem(packets[1]!).description), /^superseded/);
    } finally {
      for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
    }
  });
});
