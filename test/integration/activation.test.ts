import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as vscode from 'vscode';
import { inHostEnv } from './helpers/testEnv';

interface Manifest {
  publisher: string;
  name: string;
  contributes?: { commands?: { command: string }[] };
}

async function manifest(): Promise<Manifest> {
  return JSON.parse(await readFile(path.join(inHostEnv().extensionPath, 'package.json'), 'utf8')) as Manifest;
}

describe('activation (in the extension host)', () => {
  it('finds the extension by its manifest id and activates it', async () => {
    const m = await manifest();
    const ext = vscode.extensions.getExtension(`${m.publisher}.${m.name}`);
    assert.ok(ext, `extension ${m.publisher}.${m.name} is loaded`);
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('registers every command contributed in package.json', async () => {
    const m = await manifest();
    const ext = vscode.extensions.getExtension(`${m.publisher}.${m.name}`);
    await ext?.activate();
    const contributed = (m.contributes?.commands ?? []).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('opens the fresh test workspace with the agent home in its environment', () => {
    const env = inHostEnv();
    assert.equal(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, env.workspace);
    assert.equal(process.env.CLAUDE_CONFIG_DIR, env.claudeDir);
    assert.equal(process.env.CODEX_HOME, env.codexHome);
  });
});
