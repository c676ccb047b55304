import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConfigService, UiSettings } from '../config';
import { Disposable, toDisposable } from '../disposable';
import type { Log } from '../log';
import { Debouncer } from './debouncer';
import type { SessionFacts } from '../../core/session/model';
import type { ContextResult } from '../../core/context/types';
import type { ContextPort, StatePorts } from './ports';
import type { WorkbenchUiState } from './types';
import { workbenchFingerprint } from './fingerprint';
import { ARTIFACT_GLOB, isOwnNoise, isTaskFile, TASK_GLOB } from './watchPatterns';
import { ReadingWatch } from './readingWatch';
import { APPEARED_RECHECKS_MS, SessionFolderWatch } from './sessionFolderWatch';
import { loadingState } from './load';
import { diagnosticsToLog } from './diagnosticLog';

/**
 * The slow fallback: catches a new session the session-folder watchers could not see (one that moved
 * into the folder from elsewhere), and any change a lost watcher event hid (a full refresh when the
 * workbench fingerprint moved). Never faster. `SESSION_HANDOFF_FALLBACK_MS` in the extension host's
 * environment may only make it slower: a test of the watchers sets it far out, so that nothing but a
 * watcher can move the meter within the test and a watcher removed makes it fail however slow the
 * machine is.
 */
export const FALLBACK_INTERVAL_MS = fallbackInterval(process.env.SESSION_HANDOFF_FALLBACK_MS);

/** The fallback period: 30 s, or a longer one the environment asks for (a shorter one is ignored). */
export function fallbackInterval(env: string | undefined): number {
  const asked = Number(env);
  return Number.isFinite(asked) && asked > 30_000 ? Math.min(asked, 2 ** 31 - 1) : 30_000;
}

/** The settings a meter and the watchers are built from; a change means rebuilding them. */
function pipelineKey(s: UiSettings): string {
  return JSON.stringify([s.options.workbenchDir, s.options.outputDir, s.context]);
}

/**
 * The refresh pipeline of one workspace folder: watchers → debounced refresh → one immutable state.
 * A full refresh (artifacts, git, clean check, packets) follows workbench, output-dir and git
 * changes; a context-only refresh follows the transcript in use, which the agent appends to often.
 */
export class FolderState extends Disposable {
  private current: WorkbenchUiState | undefined;
  private settings: UiSettings;
  private meter: ContextPort;
  private context: Awaited<ReturnType<ContextPort['read']>> = { result: { known: false, reason: 'Not read yet.' }, candidates: [], session: null };
  private readonly watchers: vscode.Disposable[] = [];
  private transcriptWatcher: { file: string; watcher: vscode.Disposable } | undefined;
  private watchedGitRoot = '';
  /** Bumped on every rebuild of the watchers: an older async watch set-up adds nothing. */
  private watchGeneration = 0;
  private loggedDiagnostics = new Set<string>();
  private loggedPhase = '';
  /** The workbench fingerprint taken when the last full refresh started. */
  private refreshedFingerprint = '';
  private meterQueue: Promise<unknown> = Promise.resolve();
  private readonly readings = new ReadingWatch();
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private taskRechecks: ReturnType<typeof setTimeout>[] = [];
  private readonly full = this._register(new Debouncer(400, () => this.runFull()));
  private readonly contextOnly = this._register(new Debouncer(150, () => this.runContext()));

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly config: ConfigService,
    private readonly ports: StatePorts,
    private readonly log: Log,
    private readonly publish: (state: WorkbenchUiState) => void,
  ) {
    super();
    this.settings = config.get(folder.uri);
    this.meter = ports.createContext(folder, this.settings, () => void this.contextOnly.trigger());
    this._register(toDisposable(() => this.meter.dispose()));
    this._register(toDisposable(() => this.disposeWatchers()));
    this.watch();
    const timer = setInterval(() => void this.fallback(), FALLBACK_INTERVAL_MS);
    this._register(toDisposable(() => clearInterval(timer)));
    this._register(toDisposable(() => clearTimeout(this.retryTimer)));
    this._register(toDisposable(() => this.taskRechecks.splice(0).forEach(clearTimeout)));
  }

  get state(): WorkbenchUiState | undefined {
    return this.current;
  }

  /** A full refresh; resolves when the new state is published. `immediate` skips the debounce. */
  refresh(reason: string, immediate = false): Promise<void> {
    this.log.trace('state', `${this.folder.name}: refresh (${reason})`);
    return immediate ? this.full.now() : this.full.trigger();
  }

  /**
   * Settings changed: a full refresh with the new settings. Only when the paths or the context
   * sources changed (`rebuild`) are the meter and the watchers replaced — a new meter forgets its
   * tail offsets and reads the transcripts again.
   */
  reconfigure(rebuild: boolean): Promise<void> {
    this.settings = this.config.get(this.folder.uri);
    if (rebuild) {
      this.meter.dispose();
      this.meter = this.ports.createContext(this.folder, this.settings, () => void this.contextOnly.trigger());
      this.meterQueue = Promise.resolve();
      this.readings.reset();
      this.disposeWatchers();
      this.watch();
    }
    return this.refresh('settings changed', true);
  }

  /**
   * Reads the meter, one read at a time: the full and the context-only refresh run on their own
   * debouncers, and two overlapping reads would both apply the same appended lines.
   */
  private readMeter(): Promise<Awaited<ReturnType<ContextPort['read']>>> {
    const meter = this.meter;
    const next = this.meterQueue.then(() => meter.read());
    this.meterQueue = next.catch(() => undefined);
    return next.then((r) => {
      if (meter === this.meter) this.afterReading(r.result);
      return r;
    });
  }

  /**
   * Logs a reading that was found or lost, and while it is unknown looks again on its own, soon at
   * first: after a window reload the meter must not wait for the slow fallback or the next append.
   */
  private afterReading(result: ContextResult): void {
    const step = this.readings.next(result, this.meter.places());
    if (step.log) this.log.info('context', `${this.folder.name}: ${step.log}`);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (step.retryInMs === null || this.isDisposed) return;
    this.retryTimer = setTimeout(() => void this.retryUnknown(), step.retryInMs);
  }

  /**
   * One retry of an unknown reading. The settings are read afresh first: a setting that arrived
   * after activation (a remote window's machine settings) without a change event reaching the
   * cache would otherwise keep the meter looking in the wrong place.
   */
  private async retryUnknown(): Promise<void> {
    this.retryTimer = undefined;
    if (this.isDisposed) return;
    const fresh = this.config.get(this.folder.uri, true);
    if (pipelineKey(fresh) !== pipelineKey(this.settings)) {
      this.log.info('context', `${this.folder.name}: the context settings changed since the meter was set up; setting it up again`);
      await this.reconfigure(true);
      return;
    }
    void this.contextOnly.trigger();
  }

  private async runFull(): Promise<void> {
    try {
      // Taken before reading: a change made while the refresh runs still differs afterwards.
      this.refreshedFingerprint = await this.fingerprint();
      // The session read feeds the workbench (facts derived from the agent's own logs), so git waits for it.
      const read = await this.readMeter();
      this.context = read;
      const input = { folder: this.folder, settings: this.settings, trusted: vscode.workspace.isTrusted, context: read };
      // The first refresh after activation (a window reload): show the meter now, not after git.
      if (!this.current && !this.isDisposed) {
        this.current = loadingState(input, this.ports.budget(read.result, this.settings));
        this.publish(this.current);
      }
      let state = await this.ports.load(input);
      if (this.isDisposed) return;
      // A context-only refresh may have published a newer reading while git ran: keep the newer one,
      // so the meter never steps back.
      if (this.context !== read) {
        state = { ...state, context: this.context.result, candidates: this.context.candidates, budget: this.ports.budget(this.context.result, this.settings) };
      }
      this.logDiagnostics(state);
      this.current = state;
      // The repository may live above the folder: watch its .git once it is known.
      const root = state.git?.ok ? state.git.facts.root : this.folder.uri.fsPath;
      if (root !== this.watchedGitRoot) {
        this.disposeWatchers();
        this.watch();
      }
      this.followTranscript();
      this.publish(state);
    } catch (err) {
      this.log.error('state', `${this.folder.name}: refresh failed`, err);
    }
  }

  private async fallback(): Promise<void> {
    void this.contextOnly.trigger();
    if (this.current && (await this.fingerprint()) !== this.refreshedFingerprint) {
      this.log.trace('state', `${this.folder.name}: a change was missed by the watchers; refreshing`);
      void this.full.trigger();
    }
  }

  private fingerprint(): Promise<string> {
    const workbenchDir = path.resolve(this.folder.uri.fsPath, this.settings.options.workbenchDir);
    return workbenchFingerprint({
      workbenchDir,
      outputDir: path.resolve(workbenchDir, this.settings.options.outputDir),
      gitDir: path.join(this.watchedGitRoot || this.folder.uri.fsPath, '.git'),
    });
  }

  private async runContext(): Promise<void> {
    try {
      const next = await this.readMeter();
      this.context = next;
      this.followTranscript();
      const prev = this.current;
      if (!prev || this.isDisposed) return;
      // The session's facts moved (a command ran, a file was edited, the task list changed): the
      // workbench derived from it changed too, so the views need a full refresh.
      if (sessionChanged(prev.session, next.session)) void this.full.trigger();
      if (JSON.stringify(prev.context) === JSON.stringify(next.result) && prev.candidates.length === next.candidates.length) return;
      const state: WorkbenchUiState = {
        ...prev,
        context: next.result,
        candidates: next.candidates,
        budget: this.ports.budget(next.result, this.settings),
        updatedAt: Date.now(),
      };
      this.current = state;
      this.publish(state);
    } catch (err) {
      this.log.error('state', `${this.folder.name}: context reading failed`, err);
    }
  }

  private watch(): void {
    const workbench = vscode.Uri.file(path.resolve(this.folder.uri.fsPath, this.settings.options.workbenchDir));
    const output = vscode.Uri.file(path.resolve(workbench.fsPath, this.settings.options.outputDir));
    const onChange = (reason: string) => (uri: vscode.Uri) => {
      if (isOwnNoise(uri.fsPath)) return;
      void this.refresh(`${reason}: ${path.basename(uri.fsPath)}`);
    };
    const add = (pattern: vscode.GlobPattern, reason: string) => {
      const w = vscode.workspace.createFileSystemWatcher(pattern);
      const h = onChange(reason);
      this.watchers.push(w, w.onDidChange(h), w.onDidCreate(h), w.onDidDelete(h));
    };
    add(new vscode.RelativePattern(workbench, ARTIFACT_GLOB), 'artifact');
    add(new vscode.RelativePattern(output, '**/*'), 'output');
    // HEAD moves on checkout, the index on add/commit; refs on commit. Git may live above the folder.
    this.watchedGitRoot = this.current?.git?.ok ? this.current.git.facts.root : this.folder.uri.fsPath;
    const gitDir = vscode.Uri.file(path.join(this.watchedGitRoot, '.git'));
    add(new vscode.RelativePattern(gitDir, '{HEAD,index,refs/heads/**}'), 'git');
    // Working-tree edits change the clean state (untracked files, temp artifacts); VS Code already
    // watches the folder, so this costs no extra OS watches. The debounce absorbs bursts.
    add(new vscode.RelativePattern(this.folder, '**/*'), 'file');
    // A brand-new agent session of the folder: the agents' own session folders, outside the workspace.
    const trace = (m: string) => this.log.trace('state', `${this.folder.name}: ${m}`);
    this.watchers.push(new SessionFolderWatch(this.folder.uri.fsPath, this.settings, (reason) => {
      trace(`context refresh (${reason})`);
      void this.contextOnly.trigger();
    }, trace));
    void this.watchTasks(++this.watchGeneration);
  }

  /**
   * The VS Code agents (Cline, Roo Code, Kilo Code) keep their tasks in the editor's global storage,
   * outside the workspace: their task files are watched read-only there, and a change reads the meter
   * and the session again with the same debounce as a transcript. A new task shows up this way too.
   */
  private async watchTasks(generation: number): Promise<void> {
    let dirs: string[];
    try {
      dirs = (await this.meter.taskDirs?.()) ?? [];
    } catch {
      return;
    }
    // Rebuilt meanwhile: the new set of watchers has its own.
    if (generation !== this.watchGeneration || this.isDisposed || !dirs.length) return;
    const look = () => {
      void this.contextOnly.trigger();
      // The agents write a task file whole, but the event can come between its creation and its
      // content (one event for both on a busy machine), and the files of a new task folder can be
      // written before the watcher follows that folder: a few more looks shortly after read them.
      this.taskRechecks.splice(0).forEach(clearTimeout);
      this.taskRechecks = APPEARED_RECHECKS_MS.map((ms) => setTimeout(() => void this.contextOnly.trigger(), ms));
    };
    const h = (uri: vscode.Uri) => {
      if (isTaskFile(uri.fsPath)) look();
    };
    for (const dir of dirs) {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), TASK_GLOB));
      this.watchers.push(w, w.onDidChange(h), w.onDidCreate(h), w.onDidDelete(h));
      // A new task folder (`tasks/<id>`, a Cline SDK `<sessions>/<id>`): its files may come before
      // the recursive watcher follows it, so its creation alone is worth a look.
      for (const pattern of ['*', 'tasks/*']) {
        const folders = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), pattern), false, true, true);
        this.watchers.push(folders, folders.onDidCreate(look));
      }
    }
    this.log.trace('state', `${this.folder.name}: watching agent tasks in ${dirs.join(', ')}`);
  }

  /**
   * Input problems (bad JSON lines, invalid fields) go to the log once per file state: a problem
   * already logged is not logged again while it stays (a half-written last line is the same warning
   * on every refresh until the agent finishes it), and comes back only after it went away.
   */
  private logDiagnostics(state: WorkbenchUiState): void {
    const { lines, now } = diagnosticsToLog(this.loggedDiagnostics, state.diagnostics);
    for (const line of lines) this.log.warn('workbench', line);
    this.loggedDiagnostics = now;
    const phase = state.phase !== 'ready' && state.phaseMessage ? `${state.phase}: ${state.phaseMessage}` : '';
    if (phase && phase !== this.loggedPhase) this.log.info('state', `${this.folder.name}: ${state.phaseMessage}`);
    this.loggedPhase = phase;
  }

  /**
   * Watches the transcript the reading came from and the session the workbench is derived from
   * (usually the same file), so appends move the meter and the views without polling.
   */
  private followTranscript(): void {
    const files = [...new Set([this.context.result.file, this.context.session?.file].filter((f): f is string => !!f))];
    const key = files.join('\n');
    if (this.transcriptWatcher?.file === key) return;
    this.transcriptWatcher?.watcher.dispose();
    this.transcriptWatcher = undefined;
    if (!files.length) return;
    const subs: vscode.Disposable[] = [];
    const h = () => void this.contextOnly.trigger();
    for (const file of files) {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)));
      subs.push(w, w.onDidChange(h), w.onDidCreate(h), w.onDidDelete(h));
    }
    this.transcriptWatcher = { file: key, watcher: toDisposable(() => subs.forEach((s) => s.dispose())) };
    this.log.trace('state', `${this.folder.name}: following ${files.join(', ')}`);
  }

  private disposeWatchers(): void {
    this.watchGeneration++;
    for (const w of this.watchers.splice(0)) w.dispose();
    this.transcriptWatcher?.watcher.dispose();
    this.transcriptWatcher = undefined;
  }
}

/**
 * True when a newer read of the session changed what the views show (commands and their outcomes,
 * edits, the task list, declines, requests) — not on every line of assistant text, which would run
 * git on each refresh while the agent is talking.
 */
export function sessionChanged(before: SessionFacts | null, after: SessionFacts | null): boolean {
  if (!before || !after) return before !== after;
  return viewKey(before) !== viewKey(after);
}

function viewKey(f: SessionFacts): string {
  const recent = f.commands.slice(-3).map((c) => `${c.ordinal}:${c.exit_code}:${c.unfinished}`).join(',');
  const todos = (f.todos ?? []).map((t) => `${t.status}:${t.content}`).join('\n');
  return [f.file, f.commandCount, recent, f.filesTouched.length, todos, f.rejectedCount, f.latestUserRequest ?? ''].join('|');
}
