import * as vscode from 'vscode';
import type { ConfigService } from '../config';
import { Disposable, toDisposable } from '../disposable';
import type { Log } from '../log';
import type { StateService } from '../services';
import { FolderState } from './folderState';
import type { StatePorts } from './ports';
import type { WorkbenchUiState } from './types';
import { pickActiveFolder } from './activeFolder';

/**
 * One refresh pipeline per workspace folder, and the notion of the active folder (the one of the
 * active editor) that the status bar follows in a multi-root workspace.
 */
/** Settings that move what is watched or read for the context meter. */
const PIPELINE_SETTINGS = ['sessionHandoff.workbenchDir', 'sessionHandoff.outputDir', 'sessionHandoff.context'];

export class WorkbenchStateService extends Disposable implements StateService {
  private readonly folders = new Map<string, FolderState>();
  private readonly changed = this._register(new vscode.EventEmitter<WorkbenchUiState>());
  readonly onDidChange = this.changed.event;
  private readonly activeChanged = this._register(new vscode.EventEmitter<vscode.WorkspaceFolder | undefined>());
  readonly onDidChangeActiveFolder = this.activeChanged.event;
  private active: vscode.WorkspaceFolder | undefined;

  constructor(
    private readonly config: ConfigService,
    private readonly ports: StatePorts,
    private readonly log: Log,
  ) {
    super();
    this._register(toDisposable(() => this.folders.forEach((f) => f.dispose())));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.syncFolders()));
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.updateActive()));
    // Trust granted: git may run now, so everything is read again.
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.refresh(undefined, 'trust granted')));
    this._register(
      config.onDidChange((e) => {
        for (const f of this.folders.values()) {
          if (!e.affectsConfiguration('sessionHandoff', f.folder.uri)) continue;
          const rebuild = PIPELINE_SETTINGS.some((key) => e.affectsConfiguration(key, f.folder.uri));
          void f.reconfigure(rebuild);
        }
      }),
    );
  }

  /**
   * Starts reading the folders. Called once the views and the status bar are registered, so they
   * exist (empty, "loading") the moment the workbench shows them and fill in as the first refresh
   * of each folder lands.
   */
  start(): void {
    this.syncFolders();
  }

  get(folder?: vscode.WorkspaceFolder): WorkbenchUiState | undefined {
    const f = folder ?? this.active;
    return f ? this.folders.get(f.uri.toString())?.state : undefined;
  }

  all(): readonly WorkbenchUiState[] {
    return [...this.folders.values()].flatMap((f) => (f.state ? [f.state] : []));
  }

  /** The folder of the active editor, else the first folder. */
  get activeFolder(): vscode.WorkspaceFolder | undefined {
    return this.active;
  }

  async refresh(folder?: vscode.WorkspaceFolder, reason = 'requested'): Promise<void> {
    const targets = folder ? [this.folders.get(folder.uri.toString())] : [...this.folders.values()];
    await Promise.all(targets.map((f) => f?.refresh(reason, true)));
  }

  private syncFolders(): void {
    const wanted = new Map((vscode.workspace.workspaceFolders ?? []).map((f) => [f.uri.toString(), f]));
    for (const [key, fs] of this.folders) {
      if (!wanted.has(key)) {
        fs.dispose();
        this.folders.delete(key);
      }
    }
    for (const [key, folder] of wanted) {
      if (this.folders.has(key)) continue;
      const fs = new FolderState(folder, this.config, this.ports, this.log, (s) => this.changed.fire(s));
      this.folders.set(key, fs);
      // Deferred: activation must not wait for git or the file system.
      void fs.refresh('opened', true);
    }
    this.updateActive();
  }

  private updateActive(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const fromEditor = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    const next = pickActiveFolder(fromEditor, this.active, vscode.workspace.workspaceFolders ?? []);
    if (next?.uri.toString() === this.active?.uri.toString()) return;
    this.active = next;
    this.activeChanged.fire(next);
  }
}
