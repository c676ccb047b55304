import * as vscode from 'vscode';
import { Disposable } from './disposable';
import type { Services } from './services';
import { statusView } from './statusView';
import type { StatusView } from './statusView';
import { safeTooltip } from './tooltip';
import { uiText } from './redactUi';

/** The one status bar item: the active folder's context reading and clean-state glyph. */
export class StatusBarController extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('sessionHandoff.context', vscode.StatusBarAlignment.Left, 50));
  private view: StatusView = statusView(undefined);

  constructor(private readonly services: Services) {
    super();
    this.item.name = 'Session Handoff: Context';
    this._register(services.state.onDidChange((s) => s.folder.uri.toString() === services.state.get()?.folder.uri.toString() && this.render()));
    this._register(services.state.onDidChangeActiveFolder(() => this.render()));
    this.render();
  }

  /** What the item shows now (for tests and the accessibility tree). */
  get current(): StatusView {
    return this.view;
  }

  private render(): void {
    const s = this.services.state.get();
    if (!vscode.workspace.workspaceFolders?.length) {
      this.item.hide();
      return;
    }
    this.view = statusView(s);
    this.item.text = uiText(this.view.text);
    // Not trusted beyond the one command link allowed: Generate Handoff (after a compaction).
    this.item.tooltip = safeTooltip(uiText(this.view.tooltip), true, ['sessionHandoff.generateHandoff']);
    this.item.backgroundColor =
      this.view.background === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : this.view.background === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.accessibilityInformation = { label: this.view.accessibility, role: 'button' };
    // With no active packet the panel itself offers Generate Handoff.
    this.item.command = { command: 'sessionHandoff.openActiveHandoff', title: 'Open Active Handoff', arguments: [{ folderUri: s?.folder.uri }] };
    this.item.show();
  }
}
