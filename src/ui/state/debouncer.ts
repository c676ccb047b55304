import type * as vscode from 'vscode';

/**
 * Coalesces bursts (an agent appending, git rewriting the index) into one run after `delayMs` of
 * quiet, with at most one run in flight: a request during a run schedules exactly one more.
 */
export class Debouncer implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private disposed = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly delayMs: number,
    private readonly task: () => Promise<void>,
  ) {}

  /** Schedules a run; the promise resolves when a run that started after this call has finished. */
  trigger(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.fire(), this.delayMs);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Runs now (skipping the delay); resolves when that run has finished. */
  now(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const p = new Promise<void>((resolve) => this.waiters.push(resolve));
    void this.fire();
    return p;
  }

  private async fire(): Promise<void> {
    this.timer = undefined;
    if (this.running) {
      this.again = true;
      return;
    }
    const waiters = this.waiters.splice(0);
    this.running = this.task().catch(() => undefined);
    await this.running;
    this.running = undefined;
    for (const w of waiters) w();
    if (this.again && !this.disposed) {
      this.again = false;
      await this.fire();
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w();
  }
}
