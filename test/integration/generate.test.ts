import assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { CleanFinding } from '../../src/core/clean/types';
import { outputDir, packetCommands, readPacket, removeOutputs } from './helpers/packetHarness';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { inHostEnv } from './helpers/testEnv';
import { userStateDir } from '../../src/core/ownLog';
import { LEDGER_KEY_FILE } from '../../src/core/registry/ownership';

describe('Generate Handoff (in the extension host)', () => {
  const scratch = () => path.join(inHostEnv().workspace, 'notes.tmp');

  before(async () => {
    await removeOutputs();
    // An untracked temp file: the working tree and temp-artifact checks both fail.
    await fs.writeFile(scratch(), 'scratch\n');
  });

  after(async () => {
    await fs.rm(scratch(), { force: true });
    if (!process.env.HANDOFF_KEEP_RUN) await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  it('asks before generating on a dirty workbench and writes nothing when declined', async () => {
    const api = await packetCommands();
    let seen: readonly CleanFinding[] = [];
    const restore = api.overrideConfirmDirty(async (_folder, findings) => {
      seen = findings;
      return undefined;
    });
    try {
      const r = await vscode.commands.executeCommand<{ kind: string }>('sessionHandoff.generateHandoff');
      assert.equal(r?.kind, 'cancelled');
    } finally {
      restore.dispose();
    }
    assert.ok(seen.length > 0, 'the modal got the findings');
    const dirtyPaths = seen.flatMap((f) => f.paths ?? []);
    assert.ok(dirtyPaths.includes('notes.tmp'), `findings name notes.tmp: ${JSON.stringify(seen)}`);
    assert.equal(existsSync(outputDir()) && (await fs.readdir(outputDir())).some((d) => existsSync(path.join(outputDir(), d, 'handoff.json'))), false);
  });

  it('Generate Anyway writes the packet with every finding as a block risk and opens the panel', async () => {
    const api = await packetCommands();
    let asked = 0;
    const restore = api.overrideConfirmDirty(async () => {
      asked++;
      return 'generateAnyway';
    });
    let r: { kind: string; packetId?: string } | undefined;
    try {
      r = await vscode.commands.executeCommand<{ kind: string; packetId?: string }>('sessionHandoff.generateHandoff');
    } finally {
      restore.dispose();
    }
    assert.equal(asked, 1);
    assert.equal(r?.kind, 'written');
    assert.ok(r?.packetId);
    const packet = await readPacket(r.packetId);
    const fixtureState = JSON.parse(await fs.readFile(path.join(inHostEnv().workspace, 'agent_state.json'), 'utf8')) as { next_action: string };
    assert.equal(packet.next_action, fixtureState.next_action);
    const blocks = packet.open_risks.filter((x) => x.severity === 'block' && x.source === 'clean_state');
    assert.ok(blocks.some((b) => (b.paths ?? []).includes('notes.tmp')), `clean-state block risks: ${JSON.stringify(blocks)}`);
    const shown = api.panels.panel?.lastMessage;
    assert.equal(shown?.type, 'render');
    assert.equal(shown?.type === 'render' && shown.model.packet.packet_id, r.packetId);
  });

  it('reports an unchanged packet instead of writing another one', async () => {
    const api = await packetCommands();
    const restore = api.overrideConfirmDirty(async () => 'generateAnyway');
    try {
      const before = await fs.readdir(outputDir());
      const r = await vscode.commands.executeCommand<{ kind: string }>('sessionHandoff.generateHandoff');
      assert.equal(r?.kind, 'unchanged');
      assert.deepEqual(await fs.readdir(outputDir()), before);
    } finally {
      restore.dispose();
    }
  });

  it('says so when the packet cannot be vouched for as written here (a ledger key others can read), and not once the key is private again', async () => {
    const key = path.join(userStateDir(), LEDGER_KEY_FILE);
    assert.ok(existsSync(key), 'the first generate made the ledger key');
    const api = await packetCommands();
    const restore = api.overrideConfirmDirty(async () => 'generateAnyway');
    await fs.chmod(key, 0o644);
    try {
      const r = await vscode.commands.executeCommand<{ kind: string; keyProblem?: string }>('sessionHandoff.generateHandoff');
      assert.match(r?.keyProblem ?? '', /cannot be recorded as written here: the ledger key .*ledger\.key can be read or changed by others \(mode 644\)/);
    } finally {
      await fs.chmod(key, 0o600);
    }
    try {
      const r = await vscode.commands.executeCommand<{ kind: string; keyProblem?: string }>('sessionHandoff.generateHandoff');
      assert.equal(r?.keyProblem, undefined);
    } finally {
      restore.dispose();
    }
  });

  it('with no next action in the workbench, derives one from the agent session; without a session, refuses and writes nothing', async () => {
    const ws = inHostEnv().workspace;
    const files = ['agent_state.json', 'feedback_record.jsonl', 'verification_report.json'].map((f) => path.join(ws, f));
    const saved = await Promise.all(files.map((f) => fs.readFile(f, 'utf8')));
    const cfg = () => vscode.workspace.getConfiguration('sessionHandoff');
    await removeOutputs();
    try {
      const state = JSON.parse(saved[0] ?? '{}') as Record<string, unknown>;
      delete state.next_action;
      await fs.writeFile(files[0] ?? '', JSON.stringify(state));
      await fs.writeFile(files[1] ?? '', '');
      await fs.rm(files[2] ?? '');
      const api = await packetCommands();
      const restore = api.overrideConfirmDirty(async () => 'generateAnyway');
      try {
        // The workspace's Claude Code transcript holds a failing pytest run: that is the next step.
        await vscode.commands.executeCommand('sessionHandoff.refresh');
        const made = await vscode.commands.executeCommand<{ kind: string; packetId?: string }>('sessionHandoff.generateHandoff');
        assert.equal(made?.kind, 'written');
        const packet = await readPacket(made?.packetId ?? '');
        assert.equal(packet.next_action_source, 'derived');
        assert.match(packet.next_action, /pytest tests\/test_refund\.py/);
        assert.equal(packet.sources['next_action'], 'newest failure');
        assert.match(packet.sources['commands'] ?? '', /^claude:/);
        await removeOutputs();

        // Without the agent's session (only context_usage.json is read), nothing is left to derive from.
        await cfg().update('context.sources', ['generic'], vscode.ConfigurationTarget.Global);
        const ext = await extensionApi();
        await stateWhere(ext, (s) => s.session === null && s.phase === 'ready', 'the state without a session');
        const r = await vscode.commands.executeCommand<{ kind: string; reason?: string }>('sessionHandoff.generateHandoff');
        assert.equal(r?.kind, 'refused');
        assert.match(r?.reason ?? '', /next_action.*agent_state\.json/);
      } finally {
        restore.dispose();
        await cfg().update('context.sources', undefined, vscode.ConfigurationTarget.Global);
      }
      assert.equal(existsSync(outputDir()) && (await fs.readdir(outputDir())).some((d) => existsSync(path.join(outputDir(), d, 'handoff.json'))), false);
    } finally {
      await Promise.all(files.map((f, i) => fs.writeFile(f, saved[i] ?? '')));
    }
  });
});
