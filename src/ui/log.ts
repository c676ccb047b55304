import * as vscode from 'vscode';
import { redact } from '../core/redact';

/** The extension's log: one output channel, each line tagged with the component that wrote it. */
export interface Log {
  trace(component: string, message: string): void;
  info(component: string, message: string): void;
  warn(component: string, message: string): void;
  error(component: string, message: string, err?: unknown): void;
  /** Reveals the output channel. */
  show(): void;
}

/** Creates the `Session Handoff` log output channel; the caller owns (disposes) it. */
export function createLog(): Log & vscode.Disposable {
  const channel = vscode.window.createOutputChannel('Session Handoff', { log: true });
  // The log shows commands, reasons and artifact text: redacted like every other output.
  const tag = (component: string, message: string) => redact(`[${component}] ${message}`);
  return {
    trace: (c, m) => channel.trace(tag(c, m)),
    info: (c, m) => channel.info(tag(c, m)),
    warn: (c, m) => channel.warn(tag(c, m)),
    error: (c, m, err) => {
      const detail = err instanceof Error ? `: ${err.stack ?? err.message}` : err === undefined ? '' : `: ${String(err)}`;
      channel.error(tag(c, m + detail));
    },
    show: () => channel.show(true),
    dispose: () => channel.dispose(),
  };
}
