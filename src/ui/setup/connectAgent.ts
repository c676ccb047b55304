import * as path from 'node:path';
import * as vscode from 'vscode';
import { readIfExists } from '../../core/fsx';
import { redact } from '../../core/redact';
import { applyPlans, writeRefusal } from '../../core/setup/apply';
import { planClaudeRemove, planClaudeSetup } from '../../core/setup/claude';
import { isOurNotify, planCodexFullRemove, planCodexHooksSetup, planCodexSetup } from '../../core/setup/codex';
import { codexHasHooks, codexHasSessionEnd, detectCodexVersion, versionNote } from '../../core/setup/codexVersion';
import { ourEvents } from '../../core/setup/hookEntries';
import { claudeSettingsFile, codexConfigFile, ensureLauncher, findOnPath, NO_NODE_MESSAGE } from '../../core/setup/launcher';
import type { PlanResult, SetupPlan } from '../../core/setup/plan';
import { backupFileOf, isNoop, plansOf } from '../../core/setup/plan';
import { shellQuote } from '../../core/setup/shell';
import { parseTomlFile } from '../../core/setup/toml';
import { commandBoundary, UserFacingError } from '../commands/boundary';
import type { Services } from '../services';
import { continueInAgentCommand } from './continueInAgent';

/** Context keys the walkthrough and the Handoffs view's title menu show Connect or Disconnect by. */
const CONNECTED_KEY = { claude: 'sessionHandoff.claudeConnected', codex: 'sessionHandoff.codexConnected' } as const;

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
    const storage = context.globalStorageUri.fsPath;
    this.disposables.push(
      vscode.commands.registerCommand('sessionHandoff.continueInCodex', commandBoundary(services.log, 'sessionHandoff.continueInCodex', continueInAgentCommand(services, storage, 'codex'))),
      vscode.commands.registerCommand('sessionHandoff.continueInClaudeCode', commandBoundary(services.log, 'sessionHandoff.continueInClaudeCode', continueInAgentCommand(services, storage, 'claude'))),
      // Settings edited by hand (or by `handoff setup` in a terminal) show when the window comes back.
      vscode.window.onDidChangeWindowState((w) => {
        if (w.focused) void this.refreshConnected();
      }),
    );
    void this.refreshConnected();
  }

  /** Whether each agent is connected (its settings hold our hooks), as context keys for menus and the walkthrough. */
  async refreshConnected(): Promise<{ claude: boolean; codex: boolean }> {
    const claude = await this.claudeConnected().catch(() => false);
    const codex = await this.codexConnected().catch(() => false);
    await vscode.commands.executeCommand('setContext', CONNECTED_KEY.claude, claude);
    await vscode.commands.executeCommand('setContext', CONNECTED_KEY.codex, codex);
    return { claude, codex };
  }

  private async claudeConnected(): Promise<boolean> {
    const configDir = this.services.config.get().context.claudeConfigDir;
    const files = [claudeSettingsFile({ configDir: configDir || undefined, env: process.env })];
    const folder = this.services.folderFor();
    if (folder) files.push(claudeSettingsFile({ project: folder.uri.fsPath, env: process.env }));
    for (const f of files) {
      const text = await readIfExists(f).catch(() => null);
      if (text && ourEvents((JSON.parse(text) as { hooks?: unknown }).hooks).length) return true;
    }
    return false;
  }

  private async codexConnected(): Promise<boolean> {
    const home = this.services.config.get().context.codexHome;
    const config = codexConfigFile({ codexHome: home || undefined, env: process.env });
    const hooks = await readIfExists(path.join(path.dirname(config), 'hooks.json')).catch(() => null);
    if (hooks && ourEvents((JSON.parse(hooks) as { hooks?: unknown }).hooks).length) return true;
    const toml = parseTomlFile(config, await readIfExists(config).catch(() => null));
    return toml.ok && isOurNotify(toml.value['notify']);
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
    const plans = plansOf(planned);
    const plan = planned.plan;
    if (plans.every(isNoop)) {
      void vscode.window.showInformationMessage(plan.notes.join(' ') || `${name} settings already say so; nothing to change.`);
      await this.refreshConnected();
      return { kind: 'unchanged', file: plan.file };
    }
    for (const p of plans) {
      const refusal = isNoop(p) ? null : await writeRefusal(p.file);
      if (refusal) throw new UserFacingError(redact(refusal));
    }
    const changing = plans.filter((p) => !isNoop(p));
    const diffEditors: vscode.Uri[] = [];
    for (const p of changing) diffEditors.push(await this.showDiff(p, `${path.basename(p.file)}: ${remove ? `disconnect ${name}` : `connect ${name}`}`));
    const detail = [
      ...changing.map((p) => (remove ? `Session Handoff's entries are removed from ${p.file}.` : `Writes ${p.file}.`)),
      ...changing.filter((p) => p.writeBackup !== null).map((p) => `A backup of the current file goes to ${p.backupFile} first.`),
      ...plans.flatMap((p) => p.notes),
    ].filter(Boolean).join('\n');
    const ok = await this.confirm(remove ? `Disconnect ${name}?` : `Connect ${name}?`, redact(detail), remove ? 'Remove' : 'Write');
    if (!ok) {
      for (const d of diffEditors) await closeTab(d);
      return { kind: 'cancelled' };
    }
    await applyPlans(plans);
    for (const d of diffEditors) await closeTab(d);
    await this.refreshConnected();
    this.services.log.info('setup', `${remove ? 'disconnected' : 'connected'} ${name}: ${changing.map((p) => `${p.file}${p.writeBackup !== null ? ` (backup ${p.backupFile})` : ''}`).join(', ')}`);
    const codexNotify = agent === 'codex' && !remove && path.basename(plan.file) === 'config.toml';
    const done = remove
      ? `${name} disconnected${changing.every((p) => p.removeBackup || p.after === null) ? ': its settings are as they were before.' : '.'}`
      : codexNotify
        ? `${name} connected: after each turn past the wrap-up threshold the handoff is regenerated.`
        : `${name} connected. New sessions get the handoff at start, the agent is told when to wrap up, and a handoff is written before compaction and at the end.${agent === 'codex' ? ' Trust the new hooks once in Codex (/hooks).' : ''}`;
    void vscode.window.showInformationMessage(done);
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
    const hooksFile = path.join(path.dirname(file), 'hooks.json');
    const text = await readIfExists(file);
    const backup = await readIfExists(backupFileOf(file));
    const hooksText = await readIfExists(hooksFile);
    const hooksBackup = await readIfExists(backupFileOf(hooksFile));
    if (remove) return planCodexFullRemove({ hooksFile, hooksText, hooksBackup, configFile: file, configText: text, configBackup: backup });
    // Hooks where the installed Codex has them (codex --version, else the newest rollout), else notify.
    const version = await detectCodexVersion(process.env, path.dirname(file));
    this.services.log.info('setup', versionNote(version));
    const launcher = await this.launcher();
    const result = codexHasHooks(version)
      ? planCodexHooksSetup({ hooksFile, hooksText, hooksBackupExists: hooksBackup !== null, configFile: file, configText: text, configBackup: backup, launcher: shellQuote(launcher), sessionEnd: codexHasSessionEnd(version) })
      : planCodexSetup({ file, text, argv: [launcher, 'notify'], backupExists: backup !== null });
    if (result.ok) result.plan.notes.unshift(versionNote(version));
    return result;
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
