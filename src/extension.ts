import type * as vscode from 'vscode';

/** Composition root: builds services and registers views and commands. */
export function activate(_context: vscode.ExtensionContext): void {
  // Views and commands are registered by the UI layer.
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
