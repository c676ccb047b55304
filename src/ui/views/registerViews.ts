import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import { redactingProvider } from '../redactUi';
import type { Services } from '../services';
import { CleanStateProvider } from './cleanStateView';
import { HandoffsProvider } from './handoffsView';
import { RisksProvider } from './risksView';

/**
 * The three sidebar views, their badge, and the `sessionHandoff.state` context key the welcome
 * messages depend on (so empty, untrusted and not-a-repository states never need a pop-up).
 */
export class SidebarViews extends Disposable {
  readonly cleanState: CleanStateProvider;
  readonly risks: RisksProvider;
  readonly handoffs: HandoffsProvider;
  private readonly risksView: vscode.TreeView<unknown>;
  private readonly allViews: vscode.TreeView<unknown>[];

  constructor(private readonly services: Services) {
    super();
    this.cleanState = this._register(new CleanStateProvider(services));
    this.risks = this._register(new RisksProvider(services));
    this.handoffs = this._register(new HandoffsProvider(services));
    const clean = this._register(vscode.window.createTreeView('sessionHandoff.cleanState', { treeDataProvider: redactingProvider(this.cleanState), showCollapseAll: true }));
    this.risksView = this._register(vscode.window.createTreeView('sessionHandoff.openRisks', { treeDataProvider: redactingProvider(this.risks) }) as vscode.TreeView<unknown>);
    const handoffs = this._register(vscode.window.createTreeView('sessionHandoff.handoffs', { treeDataProvider: redactingProvider(this.handoffs), showCollapseAll: true }));
    this.allViews = [clean as vscode.TreeView<unknown>, this.risksView, handoffs as vscode.TreeView<unknown>];
    this._register(this.risks.onDidChangeBadge((n) => this.setBadge(n)));
    this._register(services.state.onDidChange(() => this.updateContext()));
    this._register(services.state.onDidChangeActiveFolder(() => this.updateContext()));
    this.updateContext();
  }

  private setBadge(n: number): void {
    this.risksView.badge = n > 0 ? { value: n, tooltip: `${n} unacknowledged block/high risk${n === 1 ? '' : 's'}` } : undefined;
  }

  private updateContext(): void {
    const s = this.services.state.get();
    void vscode.commands.executeCommand('setContext', 'sessionHandoff.state', s?.phase ?? 'loading');
    // In a multi-root workspace the views show the active editor's folder: say which.
    const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
    for (const v of this.allViews) v.description = multi ? s?.folder.name : undefined;
    this.setBadge(this.risks.badge());
  }
}
