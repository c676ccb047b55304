import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, toDisposable } from '../disposable';
import type { UiSettings } from '../settings';
import type { SessionWatch } from './sessionWatchPlan';
import { concernsFolder, sessionWatchPlan } from './sessionWatchPlan';

/** Writes to session files other than the one followed arrive with every line an agent appends: at most one refresh per this. */
export const SESSION_WRITE_THROTTLE_MS = 2_000;

/**
 * Looks again this long after a session folder (or a task folder) appeared: its first file can be written
 * before the watcher of the new folder is in place (an agent makes `sessions/<y>/<m>/<d>/` and its rollout in
 * one go), and that file would otherwise wait for the slow fallback.
 */
export const APPEARED_RECHECKS_MS = [1_000, 4_000];

const isDir = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
};
const list = (dir: string): string[] => {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
};

/**
 * Watches the agents' session folders of one workspace folder, read-only and outside the workspace
 * (see `sessionWatchPlan`): a session file created there refreshes at once, a write to one at most
 * every SESSION_WRITE_THROTTLE_MS, and a folder that appears makes the plan again. `onSession` is the
 * folder's debounced context refresh, the same one the followed transcript feeds.
 */
export class SessionFolderWatch extends Disposable {
  private watchers: vscode.Disposable[] = [];
  private lastWrite = 0;
  private rechecks: ReturnType<typeof setTimeout>[] = [];

  constructor(
    private readonly folder: string,
    private readonly settings: UiSettings,
    private readonly onSession: (reason: string) => void,
    private readonly trace: (message: string) => void = () => undefined,
  ) {
    super();
    this._register(toDisposable(() => {
      this.clear();
      this.rechecks.splice(0).forEach(clearTimeout);
    }));
    this.plan();
  }

  private plan(): void {
    this.clear();
    const plan = sessionWatchPlan({
      folder: this.folder,
      sources: this.settings.context.sources,
      claudeConfigDir: this.settings.context.claudeConfigDir,
      codexHome: this.settings.context.codexHome,
      isDir,
      list,
    });
    for (const w of plan) this.add(w);
    if (plan.length) this.trace(`watching for new sessions: ${plan.map((w) => path.join(w.base, w.pattern)).join(', ')}`);
  }

  private add(w: SessionWatch): void {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(w.base), w.pattern));
    const name = (uri: vscode.Uri) => path.basename(uri.fsPath);
    const subs: vscode.Disposable[] = [watcher];
    if (w.kind === 'session') {
      subs.push(watcher.onDidCreate((uri) => this.onSession(`new session file: ${name(uri)}`)));
      subs.push(watcher.onDidChange((uri) => this.written(name(uri))));
    } else if (w.kind === 'folders') {
      // Only folders count: a rollout's own creation is the `session` watch's.
      subs.push(watcher.onDidCreate((uri) => {
        if (!this.isDisposed && isDir(uri.fsPath)) this.appeared(name(uri));
      }));
    } else {
      const appeared = (uri: vscode.Uri) => {
        if (this.isDisposed || !concernsFolder(w, name(uri))) return;
        // Planned again after the current event is handled: the watcher that reported it is disposed.
        setTimeout(() => {
          if (this.isDisposed) return;
          this.plan();
          this.appeared(name(uri));
        }, 0);
      };
      subs.push(watcher.onDidCreate(appeared));
    }
    this.watchers.push(...subs);
  }

  /** A session folder appeared: a refresh now, and again after each of APPEARED_RECHECKS_MS. */
  private appeared(folder: string): void {
    this.onSession(`new session folder: ${folder}`);
    this.rechecks.splice(0).forEach(clearTimeout);
    this.rechecks = APPEARED_RECHECKS_MS.map((ms) => setTimeout(() => {
      if (!this.isDisposed) this.onSession(`new session folder: ${folder} (looked again after ${ms} ms)`);
    }, ms));
  }

  private written(file: string): void {
    const now = Date.now();
    if (now - this.lastWrite < SESSION_WRITE_THROTTLE_MS) return;
    this.lastWrite = now;
    this.onSession(`session file written: ${file}`);
  }

  private clear(): void {
    for (const d of this.watchers.splice(0)) d.dispose();
  }
}
