import type * as vscode from 'vscode';

/**
 * Base class for everything that owns listeners, emitters, watchers or timers: whatever is passed to
 * `_register()` is disposed with the owner, in reverse order, exactly once.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposedFlag = false;

  protected get isDisposed(): boolean {
    return this.disposedFlag;
  }

  /** Takes ownership of `d`; when the owner is already disposed, `d` is disposed at once. */
  protected _register<T extends vscode.Disposable>(d: T): T {
    if (this.disposedFlag) d.dispose();
    else this.owned.push(d);
    return d;
  }

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    // Reverse order: later registrations may depend on earlier ones.
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // One failing disposable must not keep the others alive.
      }
    }
  }
}

/** Wraps a cleanup function as a disposable (for timers and other non-vscode resources). */
export function toDisposable(fn: () => void): vscode.Disposable {
  return { dispose: fn };
}
