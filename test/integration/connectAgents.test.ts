import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { ConnectResult } from '../../src/ui/setup/connectAgent';
import { extensionApi } from './helpers/extensionApi';
import { inHostEnv } from './helpers/testEnv';

// The run's CODEX_HOME is empty and no `codex` is on PATH: the version is unknown, so set-up takes a
// current Codex and writes its hooks. The confirmation modal is answered at the edge.
describe('Connect / Disconnect Codex CLI (in the extension host)', () => {
  let api: ExtensionApi;
  let restore: ExtensionApi['agentSetup']['confirm'];
  const asked: string[] = [];

  before(async () => {
    api = await extensionApi();
    restore = api.agentSetup.confirm;
    api.agentSetup.confirm = async (message, detail) => {
      asked.push(`${message}\n${detail}`);
      return true;
    };
  });

  after(() => {
    api.agentSetup.confirm = restore;
  });

  it('connects through hooks.json (with the diff and a confirmation), shows it as connected, and disconnects exactly', async () => {
    const hooksFile = path.join(inHostEnv().codexHome, 'hooks.json');
    assert.equal((await api.agentSetup.refreshConnected()).codex, false, 'not connected before');
    const r = await vscode.commands.executeCommand<ConnectResult>('sessionHandoff.connectCodex');
    assert.equal(r.kind, 'written');
    assert.equal(r.file, hooksFile);
    assert.match(asked[0] ?? '', /^Connect Codex CLI\?\nWrites .*hooks\.json\./);
    assert.match(asked[0] ?? '', /Codex version unknown/);
    assert.match(asked[0] ?? '', /open \/hooks in Codex and trust/);
    const hooks = JSON.parse(await fs.readFile(hooksFile, 'utf8')) as { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> };
    // An unknown version is taken as a current Codex: SessionEnd too, within its 3 s cap.
    assert.deepEqual(Object.keys(hooks.hooks), ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'Stop', 'SessionEnd']);
    assert.equal(hooks.hooks['SessionEnd']![0]!.hooks[0]!.timeout, 3);
    assert.equal(await fs.readFile(path.join(inHostEnv().codexHome, 'config.toml'), 'utf8'), '[features]\nhooks = true\n');
    assert.match(hooks.hooks['Stop']![0]!.hooks[0]!.command, /globalStorage.*[/\\]bin[/\\]handoff'? hook$/);
    assert.equal((await api.agentSetup.refreshConnected()).codex, true, 'connected');

    const again = await vscode.commands.executeCommand<ConnectResult>('sessionHandoff.connectCodex');
    assert.equal(again.kind, 'unchanged');

    const off = await vscode.commands.executeCommand<ConnectResult>('sessionHandoff.disconnectCodex');
    assert.equal(off.kind, 'written');
    await assert.rejects(fs.stat(hooksFile), 'the file set-up created is gone again');
    await assert.rejects(fs.stat(path.join(inHostEnv().codexHome, 'config.toml')), 'and so is the config.toml it created');
    assert.equal((await api.agentSetup.refreshConnected()).codex, false);
  });
});
