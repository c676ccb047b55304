import * as path from 'node:path';
import * as vscode from 'vscode';
import { readIfExists } from '../../core/fsx';
import { redact } from '../../core/redact';
import { applyPlan } from '../../core/setup/apply';
import { planClaudeRemove, planClaudeSetup } from '../../core/setup/claude';
import { planCodexRemove, planCodexSetup } from '../../core/setup/codex';
import { claudeSettingsFile, codexConfigFile, ensureLauncher, findOnPath, NO_NODE_MESSAGE } from '../../core/setup/launcher';
import type { PlanResult, SetupPlan } from '../../core/setup/plan';
import { backupFileOf, isNoop } from '../../core/setup/plan';
import { shellQuote } from '../../core/setup/shell';
import { commandBoundary, UserFacingError } from '../commands/boundary';
import type { Services } from '../services';

const SCHEME = 'session-handoff-setup';

/** What a connect command resolves with (tests and the walkthrough chain on it). */
export type ConnectResult = { kind: 'written' | 'unchanged' | 'cancelled'; file?: string };

/**
 * Keeps the launcher the agent's hooks call — `<global storage>/bin/handoff`, running the CLI this
 * version of the extension ships — and connects or disconnects Claude Code and Codex CLI: the change
 * is shown in a diff view and written (backup first) only after the person says so.
 */
export class AgentSetup implements vscode.Disposable {
  private readonly proposed = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  private launcherReady: Promise<string> | undefined;
  private counter = 0;
  /** Replaces the confirmation modal; only tests do, to answer at the edge. */
  confirm: (message: string, detail: string, action: string) => Thenable<boolean> = async (message, detail, action) =>
    (await vscode.window.showInformationMessage(message, { modal: true, detail }, action)) === action;

  constructor(
    private readonly services: Services,
    private readonly context: vscode.ExtensionContext,
  ) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, { provideTextDocumentContent: (uri) => this.proposed.get(uri.toString()) ?? '' }),
    );
    const commands: Record<string, () => Promise<ConnectResult>> = {
      'sessionHandoff.connectClaudeCode': () => this.run('claude', false),
      'sessionHandoff.disconnectClaudeCode': () => this.run('claude', true),
      'sessionHandoff.connectCodex': () => this.run('codex', false),
      'sessionHandoff.disconnectCodex': () => this.run('codex', true),
    };
    for (const [id, fn] of Object.entries(commands)) this.disposables.push(vscode.commands.registerCommand(id, commandBoundary(services.log, id, fn)));
  }

  /** Writes (or refreshes) the launcher; called once on activation, off the activation path. */
  launcher(): Promise<string> {
    this.launcherReady ??= ensureLauncher(
      path.join(this.context.globalStorageUri.fsPath, 'bin'),
      vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'cli.js').fsPath,
    ).then(
      (file) => {
        this.services.log.info('setup', `launcher ready: ${file}`);
        return file;
      },
      (err: unknown) => {
        this.launcherReady = undefined;
        throw err;
      },
    );
    return this.launcherReady;
  }

  private async run(agent: 'claude' | 'codex', remove: boolean): Promise<ConnectResult> {
    const name = agent === 'claude' ? 'Claude Code' : 'Codex CLI';
    const planned = agent === 'claude' ? await this.planClaude(remove) : await this.planCodex(remove);
    if (!planned) return { kind: 'cancelled' };
    if (!planned.ok) throw new UserFacingError(redact(planned.message), this.openFileAction(planned.message));
    const plan = planned.plan;
    if (isNoop(plan)) {
      void vscode.window.showInformationMessage(plan.notes.join(' ') || `${name} settings already say so; nothing to change.`);
      return { kind: 'unchanged', file: plan.file };
    }
    const diffEditor = await this.showDiff(plan, `${path.basename(plan.file)}: ${remove ? `disconnect ${name}` : `connect ${name}`}`);
    const detail = [
      remove ? `Session Handoff's entries are removed from ${plan.file}.` : `Writes ${plan.file}.`,
      plan.writeBackup !== null ? `A backup of the current file goes to ${plan.backupFile} first.` : '',
      ...plan.notes,
    ].filter(Boolean).join('\n');
    const ok = await this.confirm(remove ? `Disconnect ${name}?` : `Connect ${name}?`, redact(detail), remove ? 'Remove' : 'Write');
    if (!ok) {
      await closeTab(diffEditor);
      return { kind: 'cancelled' };
    }
    await applyPlan(plan);
    await closeTab(diffEditor);
    this.services.log.info('setup', `${remove ? 'disconnected' : 'connected'} ${name}: ${plan.file}${plan.writeBackup !== null ? ` (backup ${plan.backupFile})` : ''}`);
    const done = remove
      ? `${name} disconnected${plan.removeBackup ? ': its settings are as they were before.' : '.'}`
      : `${name} connected. New sessions get the handoff at start; PreCompact and SessionEnd write one.`;
    void vscode.window.showInformationMessage(agent === 'codex' && !remove ? `${name} connected: after each turn past the wrap-up threshold the handoff is regenerated.` : done);
    if (!remove && !(await findOnPath('node', process.env))) {
      void vscode.window.showWarningMessage(NO_NODE_MESSAGE, 'Open nodejs.org').then((pick) => {
        if (pick) void vscode.env.openExternal(vscode.Uri.parse('https://nodejs.org/'));
      });
    }
    return { kind: 'written', file: plan.file };
  }

  private async planClaude(remove: boolean): Promise<PlanResult | undefined> {
    const folder = this.services.folderFor();
    let project: string | undefined;
    if (folder) {
      const configDir = this.services.config.get().context.claudeConfigDir;
      const user = claudeSettingsFile({ configDir: configDir || undefined, env: process.env });
      const pick = await vscode.window.showQuickPick(
        [
          { label: 'Your Claude Code settings', description: user, scope: 'user' as const },
          { label: `This workspace (${folder.name})`, description: path.join(folder.uri.fsPath, '.claude', 'settings.json'), scope: 'project' as const },
        ],
        { title: remove ? 'Disconnect Claude Code' : 'Connect Claude Code', placeHolder: 'Which settings file?' },
      );
      if (!pick) return undefined;
      if (pick.scope === 'project') project = folder.uri.fsPath;
    }
    const configDir = this.services.config.get().context.claudeConfigDir;
    const file = claudeSettingsFile({ project, configDir: configDir || undefined, env: process.env });
    const text = await readIfExists(file);
    const backup = await readIfExists(backupFileOf(file));
    if (remove) return planClaudeRemove({ file, text, backup });
    return planClaudeSetup({ file, text, launcher: shellQuote(await this.launcher()), backupExists: backup !== null });
  }

  private async planCodex(remove: boolean): Promise<PlanResult> {
    const home = this.services.config.get().context.codexHome;
    const file = codexConfigFile({ codexHome: home || undefined, env: process.env });
    const text = await readIfExists(file);
    const backup = await readIfExists(backupFileOf(file));
    if (remove) return planCodexRemove({ file, text, backup });
    return planCodexSetup({ file, text, argv: [await this.launcher(), 'notify'], backupExists: backup !== null });
  }

  /** The current file (or an empty one) against the proposed text, side by side. */
  private async showDiff(plan: SetupPlan, title: string): Promise<vscode.Uri> {
    const n = ++this.counter;
    const right = vscode.Uri.from({ scheme: SCHEME, path: `/${n}/proposed/${path.basename(plan.file)}` });
    this.proposed.set(right.toString(), plan.after ?? '');
    let left = vscode.Uri.file(plan.file);
    if (plan.before === null) {
      left = vscode.Uri.from({ scheme: SCHEME, path: `/${n}/current/${path.basename(plan.file)}` });
      this.proposed.set(left.toString(), '');
    }
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
    return right;
  }

  private openFileAction(message: string): { title: string; run: () => unknown } | undefined {
    const m = /^(.*?\.(?:json|toml))(?::(\d+))?:/.exec(message);
    if (!m) return undefined;
    const line = m[2] ? Number(m[2]) - 1 : 0;
    return {
      title: 'Open File',
      run: () => vscode.window.showTextDocument(vscode.Uri.file(m[1]!), { selection: new vscode.Range(line, 0, line, 0) }),
    };
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Closes the diff whose right side is `right`, if it is still open. */
async function closeTab(right: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === right.toString());
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
}
