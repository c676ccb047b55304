import * as vscode from 'vscode';
import type { Log } from '../log';

/** A failure meant for the user: one sentence, optionally with one action that helps. */
export class UserFacingError extends Error {
  constructor(
    message: string,
    readonly action?: { title: string; run: () => unknown },
  ) {
    super(message);
    this.name = 'UserFacingError';
  }
}

/**
 * Wraps a command handler: errors are logged with context and shown as one short message with an
 * action (the helpful one, else Show Log), never as a stack trace or an unhandled rejection.
 */
export function commandBoundary<A extends unknown[], R>(
  log: Log,
  id: string,
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R | undefined> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (err) {
      const known = err instanceof UserFacingError ? err : null;
      logFailure(log, 'command', `${id}`, err);
      const message = known?.message ?? `${titleOf(id)} failed: ${err instanceof Error ? err.message : String(err)}`;
      const action = known?.action ?? { title: 'Show Log', run: () => log.show() };
      void vscode.window.showErrorMessage(message, action.title).then((picked) => {
        if (picked === action.title) void action.run();
      });
      return undefined;
    }
  };
}

/**
 * Logs a failed action: an expected refusal (a `UserFacingError`: no packet yet, untrusted, …) is
 * information, one line without a stack; anything else is an error with its stack.
 */
export function logFailure(log: Log, component: string, what: string, err: unknown): void {
  if (err instanceof UserFacingError) log.info(component, `${what} refused: ${err.message}`);
  else log.error(component, `${what} failed`, err);
}

function titleOf(id: string): string {
  const name = id.replace(/^sessionHandoff\./, '');
  return name.charAt(0).toUpperCase() + name.slice(1).replace(/([A-Z])/g, ' $1').toLowerCase();
}
