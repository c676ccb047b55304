import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { Services } from '../services';
import type { WorkbenchUiState } from '../state/types';

/**
 * What every sidebar view shares: it shows the active folder's state and redraws when that state
 * changes or another folder becomes active. Subclasses only say how to draw.
 */
export abstract class StateTreeProvider<T> extends Disposable implements vscode.TreeDataProvider<T> {
  private readonly changed = this._register(new vscode.EventEmitter<T | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(protected readonly services: Services) {
    super();
    this._register(services.state.onDidChange((s) => s.folder.uri.toString() === this.state()?.folder.uri.toString() && this.redraw()));
    this._register(services.state.onDidChangeActiveFolder(() => this.redraw()));
  }

  /** Asks the tree to draw every row again. */
  protected redraw(): void {
    this.changed.fire(undefined);
    this.onRedraw();
  }

  /** Called after each redraw request, for views that keep derived UI (a badge) in step. */
  protected onRedraw(): void {}

  protected state(): WorkbenchUiState | undefined {
    return this.services.state.get();
  }

  abstract getChildren(node?: T): T[];
  abstract getTreeItem(node: T): vscode.TreeItem;
}
