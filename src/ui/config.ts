import * as vscode from 'vscode';
import { parseSettings } from './settings';
import type { UiSettings } from './settings';
import { Disposable } from './disposable';
import type { Log } from './log';

export type { UiSettings } from './settings';
export { parseSettings } from './settings';

/** The one settings reader: typed, validated, per workspace folder, with a change event. */
export class ConfigService extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<vscode.ConfigurationChangeEvent>());
  /** Fires when any `sessionHandoff.*` setting changes; listeners re-read with `get()`. */
  readonly onDidChange = this.changed.event;
  private readonly reported = new Set<string>();
  /** Parsed settings per scope: views, the status bar and the prompter read them on every update. */
  private readonly cache = new Map<string, UiSettings>();

  constructor(private readonly log: Log) {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('sessionHandoff')) return;
        this.cache.clear();
        this.changed.fire(e);
      }),
    );
  }

  /**
   * Current settings for a workspace folder (or the window). Invalid values are logged once.
   * `fresh` reads them again instead of trusting the cache (used when a reading stays unknown: a
   * setting may have arrived after activation without a change event reaching the cache).
   */
  get(scope?: vscode.Uri, fresh = false): UiSettings {
    const key = scope?.toString() ?? '';
    const cached = this.cache.get(key);
    if (cached && !fresh) return cached;
    const cfg = vscode.workspace.getConfiguration('sessionHandoff', scope);
    const settings = parseSettings((key) => cfg.get(key), scope?.scheme === 'file' ? scope.fsPath : undefined);
    for (const p of settings.problems) {
      if (this.reported.has(p)) continue;
      this.reported.add(p);
      this.log.warn('config', p);
    }
    this.cache.set(key, settings);
    return settings;
  }
}
