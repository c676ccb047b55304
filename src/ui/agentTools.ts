import * as vscode from 'vscode';
import { handoverOf, currentWithTrust } from '../core/workflow/restartPrompt';
import { outputDirOf } from '../core/workflow/paths';
import { MCP_SERVER_NAME, mcpEntry } from '../core/setup/mcp';
import { createGitClient } from '../git/gitClient';
import { Disposable } from './disposable';
import { uiText } from './redactUi';
import type { Services } from './services';

/** The ids in package.json's `mcpServerDefinitionProviders` and `languageModelTools`. */
export const MCP_PROVIDER_ID = 'sessionHandoff.mcp';
export const HANDOFF_TOOL = 'sessionHandoff_handoff';

// The parts of VS Code's MCP and language-model tool API used here. @types/vscode is pinned at the
// oldest supported host (1.90), which has neither: they are declared here and looked up at run time,
// so an older host still activates the extension, only without these two doors.
interface McpStdioDefinition {
  label: string;
  command: string;
  args: string[];
  cwd?: vscode.Uri;
  env: Record<string, string | number | null>;
  version?: string;
}
interface McpProvider {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<McpStdioDefinition[]>;
}
interface ToolInvocation {
  input: { folder?: string } | undefined;
}
interface LmTool {
  invoke(options: ToolInvocation, token: vscode.CancellationToken): vscode.ProviderResult<unknown>;
}
interface LmApi {
  registerMcpServerDefinitionProvider?(id: string, provider: McpProvider): vscode.Disposable;
  registerTool?(name: string, tool: LmTool): vscode.Disposable;
}
interface LmClasses {
  McpStdioServerDefinition?: new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => McpStdioDefinition;
  LanguageModelToolResult?: new (parts: unknown[]) => unknown;
  LanguageModelTextPart?: new (value: string) => unknown;
}

const lmApi = (): LmApi | undefined => (vscode as unknown as { lm?: LmApi }).lm;

/**
 * Session Handoff's doors inside VS Code's own agents: the MCP server (`handoff mcp`, one per
 * workspace folder) for Copilot agent mode and VS Code's agent sessions without any file edited, and
 * the `#handoff` chat tool. Each is registered only where the host has its API.
 */
export class AgentTools extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly mcpRegistered: boolean;
  readonly toolRegistered: boolean;

  constructor(private readonly services: Services, private readonly launcher: () => Promise<string>) {
    super();
    this._register(vscode.commands.registerCommand('sessionHandoff.copyMcpEntry', () => this.copyMcpEntry()));
    const lm = lmApi();
    const classes = vscode as unknown as LmClasses;
    this.mcpRegistered = false;
    this.toolRegistered = false;
    if (lm?.registerMcpServerDefinitionProvider && classes.McpStdioServerDefinition) {
      this._register(lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, { onDidChangeMcpServerDefinitions: this.changed.event, provideMcpServerDefinitions: () => this.definitions() }));
      this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.changed.fire()));
      this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()));
      this._register(services.config.onDidChange(() => this.changed.fire()));
      this.mcpRegistered = true;
    }
    if (lm?.registerTool && classes.LanguageModelToolResult && classes.LanguageModelTextPart) {
      this._register(lm.registerTool(HANDOFF_TOOL, { invoke: async (options) => {
        const text = await this.handover(options.input?.folder);
        return new classes.LanguageModelToolResult!([new classes.LanguageModelTextPart!(text)]);
      } }));
      this.toolRegistered = true;
    }
    if (!this.mcpRegistered || !this.toolRegistered) services.log.info('agentTools', `this VS Code has ${this.mcpRegistered ? '' : 'no MCP server API'}${!this.mcpRegistered && !this.toolRegistered ? ' and ' : ''}${this.toolRegistered ? '' : 'no language-model tool API'}: that door is left out`);
  }

  /**
   * One server per trusted workspace folder: this extension's own CLI (`dist/cli.js mcp --dir`), run
   * by the editor's own runtime as Node, so no `node` on PATH is needed. The folder's outputDir goes along.
   */
  definitions(): McpStdioDefinition[] {
    const Def = (vscode as unknown as LmClasses).McpStdioServerDefinition;
    if (!Def || !vscode.workspace.isTrusted) return [];
    const cli = vscode.Uri.joinPath(this.services.extensionUri, 'dist', 'cli.js').fsPath;
    const folders = vscode.workspace.workspaceFolders ?? [];
    return folders.filter((f) => f.uri.scheme === 'file').map((f) => {
      const options = this.services.config.get(f.uri).options;
      const def = new Def(
        folders.length > 1 ? `Session Handoff (${f.name})` : 'Session Handoff',
        process.execPath,
        [cli, 'mcp', '--dir', f.uri.fsPath, '--output-dir', options.outputDir],
        { ELECTRON_RUN_AS_NODE: '1' },
      );
      def.cwd = f.uri;
      return def;
    });
  }

  /**
   * The exact entry for an agent that keeps its own MCP settings (Cline's cline_mcp_settings.json,
   * Kilo Code's mcp_settings.json or .kilocode/mcp.json): the launcher this editor keeps up to date,
   * with this folder, since such agents may start the server in any folder.
   */
  async mcpEntryText(folder = this.services.folderFor()): Promise<string> {
    const entry = mcpEntry(await this.launcher());
    const args = folder ? [...entry.args, '--dir', folder.uri.fsPath] : entry.args;
    return `${JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: { command: entry.command, args, disabled: false } } }, null, 2)}\n`;
  }

  private async copyMcpEntry(): Promise<string> {
    const text = await this.mcpEntryText();
    await vscode.env.clipboard.writeText(uiText(text));
    void vscode.window.showInformationMessage('Session Handoff: the MCP entry is on the clipboard. Paste it into Cline\'s or Kilo Code\'s MCP settings (merge it into "mcpServers" when there are others).');
    return text;
  }

  /** What `#handoff` hands the chat: the active packet's restart prompt under the SessionStart rule. */
  async handover(folderName?: string): Promise<string> {
    const folder = (folderName && vscode.workspace.workspaceFolders?.find((f) => f.name === folderName || f.uri.fsPath === folderName)) || this.services.folderFor();
    if (!folder) return uiText('Session Handoff: no workspace folder is open.');
    if (!vscode.workspace.isTrusted) return uiText('Session Handoff: this workspace is not trusted, so its handoff is not read.');
    const dir = folder.uri.fsPath;
    const options = this.services.config.get(folder.uri).options;
    const { current } = await currentWithTrust(dir, options, createGitClient(dir));
    if (!current) return uiText(`Session Handoff: no handoff packet in ${outputDirOf(dir, options)} yet. Write one with Session Handoff: Generate Handoff.`);
    const { text } = await handoverOf(dir, options, current, { door: 'chat-tool' });
    return uiText(text);
  }
}
