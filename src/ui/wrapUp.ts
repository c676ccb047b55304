import * as vscode from 'vscode';
import { LevelTracker, checkBudget } from '../core/context/budget';
import type { LevelChange } from '../core/context/budget';
import type { ContextReading } from '../core/context/types';
import { Disposable, toDisposable } from './disposable';
import type { Services } from './services';
import { asShown } from '../core/context/format';
import { writeWrapUpSnooze } from '../core/setup/wrapUpSnooze';

/** How long Snooze silences the prompt; afterwards the current level may prompt once more. */
export const SNOOZE_MS = 15 * 60_000;

/** A prompt that was shown (for the log and tests). */
export interface WrapUpPrompt {
  level: LevelChange['level'];
  source: string;
  sessionId: string;
  percent: number;
  at: number;
}

/**
 * Shows one wrap-up notification and resolves to the picked button (undefined when dismissed).
 * Injectable so in-host tests can see what was shown and pick a button: a real notification
 * cannot be clicked from the extension host.
 */
export type ShowWrapUp = (level: LevelChange['level'], message: string, actions: readonly string[]) => Thenable<string | undefined>;

/** The real notification: a warning for the urgent level, information before that. */
const showNotification: ShowWrapUp = (level, message, actions) =>
  level === 'urgent' ? vscode.window.showWarningMessage(message, ...actions) : vscode.window.showInformationMessage(message, ...actions);

const GENERATE = 'Generate Handoff';
const GENERATE_WITH_GOAL = 'Generate with a Goal…';
const CHECK = 'Check Clean State';
const SNOOZE = 'Snooze';

/**
 * The wrap-up prompter: when an agent session's reading crosses `warnAt` (information) and again
 * `urgeAt` (warning), one notification per level per session. Driven by state changes, which follow
 * the transcript watcher, so it never polls on its own.
 */
export class WrapUpPrompter extends Disposable {
  private readonly tracker: LevelTracker;
  private readonly shown: WrapUpPrompt[] = [];
  private snoozedUntil = 0;
  private lastReading: ContextReading | undefined;
  private reportedConfig = '';
  private show: ShowWrapUp = showNotification;
  private snoozeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly services: Services) {
    super();
    this._register(toDisposable(() => clearTimeout(this.snoozeTimer)));
    this.tracker = new LevelTracker(this.budget());
    this._register(toDisposable(this.tracker.onLevelChange((c) => void this.prompt(c))));
    this._register(services.config.onDidChange(() => this.tracker.setBudget(this.budget())));
    this._register(services.state.onDidChange((s) => this.feed(s.context.known ? s.context : undefined)));
    for (const s of services.state.all()) this.feed(s.context.known ? s.context : undefined);
  }

  /** Every prompt shown so far, oldest first. */
  get prompts(): readonly WrapUpPrompt[] {
    return this.shown;
  }

  /** Replaces the notification (only tests do, to pick a button); the disposable restores the real one. */
  overrideShow(fn: ShowWrapUp): vscode.Disposable {
    this.show = fn;
    return { dispose: () => void (this.show = showNotification) };
  }

  /** Silences prompts for a while; the level current when it ends may prompt again. */
  snooze(ms = SNOOZE_MS): void {
    // A later snooze replaces an earlier one: one timer at a time.
    clearTimeout(this.snoozeTimer);
    this.snoozedUntil = Date.now() + ms;
    // The agent's own wrap-up hook (UserPromptSubmit) holds back for the same time.
    void writeWrapUpSnooze(this.snoozedUntil, process.env);
    this.snoozeTimer = setTimeout(() => {
      // Cleared here rather than left to the clock check in prompt(): a timer may fire a
      // millisecond before Date.now() gets there.
      this.snoozeTimer = undefined;
      this.snoozedUntil = 0;
      // Re-arm the session read now, not the one read at Snooze: the agent may have started a new
      // session meanwhile, whose crossings the snooze swallowed.
      const reading = this.lastReading;
      if (!reading) return;
      this.tracker.reset(reading.source, reading.sessionId);
      this.tracker.update(asShown(reading));
    }, ms);
    this.services.log.info('wrapUp', `snoozed for ${Math.round(ms / 60_000)} min`);
  }

  private budget() {
    const { warnAt, urgeAt } = this.services.config.get().wrapUp;
    return { warnAt, urgeAt };
  }

  private feed(reading: ContextReading | undefined): void {
    if (!reading) return;
    this.lastReading = reading;
    this.reportConfig(reading);
    // Tracked even while disabled or snoozed: turning prompts back on must not replay old crossings.
    this.tracker.update(asShown(reading));
  }

  /** A threshold at or above the agent's compaction point is a configuration error: say so once. */
  private reportConfig(reading: ContextReading): void {
    const check = checkBudget(this.budget(), reading);
    const message = check.ok ? check.warnings.join(' ') : check.error;
    if (!message || message === this.reportedConfig) return;
    this.reportedConfig = message;
    this.services.log.warn('wrapUp', message);
    void vscode.window.showWarningMessage(`Session Handoff: ${message}`, 'Open Settings').then((p) => {
      if (p) void vscode.commands.executeCommand('workbench.action.openSettings', 'sessionHandoff.wrapUp');
    });
  }

  private async prompt(change: LevelChange): Promise<void> {
    const settings = this.services.config.get();
    if (!settings.wrapUp.enabled || Date.now() < this.snoozedUntil) return;
    const pct = Math.round(change.reading.percent);
    this.shown.push({ level: change.level, source: change.source, sessionId: change.sessionId, percent: pct, at: Date.now() });
    this.services.log.info('wrapUp', `${change.level} at ${pct}% (${change.source} ${change.sessionId})`);
    const picked = await this.show(
      change.level,
      change.level === 'urgent'
        ? `Context at ${pct}%: wrap up now. Generate a handoff before the agent compacts its context.`
        : `Context at ${pct}%: time to wrap up. A handoff written now keeps the next session on track.`,
      [GENERATE, GENERATE_WITH_GOAL, CHECK, SNOOZE],
    );
    if (picked === GENERATE) await vscode.commands.executeCommand('sessionHandoff.generateHandoff');
    else if (picked === GENERATE_WITH_GOAL) await vscode.commands.executeCommand('sessionHandoff.generateHandoffWithGoal');
    else if (picked === CHECK) await vscode.commands.executeCommand('sessionHandoff.checkCleanState');
    else if (picked === SNOOZE) this.snooze();
  }
}
