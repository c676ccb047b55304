import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { doorLine } from '../../src/core/render/prompt';
import { HANDOFF_TOOL, MCP_PROVIDER_ID } from '../../src/ui/agentTools';
import { extensionApi } from './helpers/extensionApi';
import { generateAccepting, readPacket, removeOutputs } from './helpers/packetHarness';
import { inHostEnv } from './helpers/testEnv';

interface LmForTest {
  tools: readonly { name: string; tags: readonly string[] }[];
  invokeTool(name: string, options: { input: object; toolInvocationToken: undefined }): Thenable<{ content: { value?: string }[] }>;
}

describe('MCP server definition and #handoff chat tool (in the extension host)', () => {
  before(removeOutputs);
  after(async () => {
    if (!process.env.HANDOFF_KEEP_RUN) await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  it('both are contributed and registered; each returns the active packet, saying which door it came through', async function () {
    this.timeout(120_000);
    const api = await extensionApi();
    const manifest = JSON.parse(await fs.readFile(path.join(inHostEnv().extensionPath, 'package.json'), 'utf8')) as {
      contributes: { mcpServerDefinitionProviders: { id: string }[]; languageModelTools: { name: string; toolReferenceName: string }[] };
    };
    assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders.map((p) => p.id), [MCP_PROVIDER_ID]);
    assert.deepEqual(manifest.contributes.languageModelTools.map((t) => [t.name, t.toolReferenceName]), [[HANDOFF_TOOL, 'handoff']]);
    assert.equal(api.agentTools.mcpRegistered, true, 'this VS Code has the MCP server API');
    assert.equal(api.agentTools.toolRegistered, true, 'this VS Code has the language-model tool API');

    const written = await generateAccepting();
    assert.equal(written.kind, 'written');
    const packet = await readPacket(written.packetId!);

    // The chat tool, as a chat calls it (VS Code's own tool registry).
    const lm = (vscode as unknown as { lm: LmForTest }).lm;
    assert.ok(lm.tools.some((t) => t.name === HANDOFF_TOOL), `registered: ${lm.tools.map((t) => t.name).join(', ')}`);
    const result = await lm.invokeTool(HANDOFF_TOOL, { input: {}, toolInvocationToken: undefined });
    const text = result.content.map((p) => p.value ?? '').join('');
    assert.equal(text.trimEnd().split('\n').at(-1), doorLine('chat-tool'));
    assert.ok(text.includes(`> ${packet.next_action.replace(/\s+/g, ' ').trim().slice(0, 40)}`), text);

    // The MCP server VS Code would start: run exactly that definition and ask it through the SDK's client.
    const defs = api.agentTools.definitions();
    assert.equal(defs.length, 1);
    const def = defs[0]!;
    assert.deepEqual(def.args.slice(1, 4), ['mcp', '--dir', inHostEnv().workspace]);
    const client = new Client({ name: 'in-host-test', version: '1' });
    const env = { ...(process.env as Record<string, string>), ...(def.env as Record<string, string>) };
    await client.connect(new StdioClientTransport({ command: def.command, args: def.args, cwd: def.cwd?.fsPath ?? inHostEnv().workspace, env, stderr: 'pipe' }));
    try {
      const prompt = (await client.callTool({ name: 'handoff_prompt', arguments: {} }, undefined, { timeout: 60_000 })) as { content: { text: string }[] };
      const mcpText = prompt.content.map((c) => c.text).join('');
      assert.equal(mcpText.trimEnd().split('\n').at(-1), doorLine('mcp'));
      assert.ok(mcpText.includes(`> ${packet.next_action.replace(/\s+/g, ' ').trim().slice(0, 40)}`), mcpText);
      const json = await client.readResource({ uri: 'handoff://active/handoff.json' });
      assert.equal((JSON.parse((json.contents[0] as { text: string }).text) as { packet_id: string }).packet_id, packet.packet_id);
    } finally {
      await client.close();
    }
  });

  it('Copy MCP Server Entry puts the exact entry for Cline and Kilo Code on the clipboard: the launcher, `mcp`, this folder', async () => {
    const api = await extensionApi();
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('sessionHandoff.copyMcpEntry');
    const entry = JSON.parse(await vscode.env.clipboard.readText()) as { mcpServers: { handoff: { command: string; args: string[]; disabled: boolean } } };
    const launcher = await api.agentSetup.launcher();
    assert.deepEqual(entry, { mcpServers: { handoff: { command: launcher, args: ['mcp', '--dir', inHostEnv().workspace], disabled: false } } });
    await fs.access(launcher);
  });
});
