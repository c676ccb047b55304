import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension';
import type { WorkbenchUiState } from '../../../src/ui/state/types';
import { waitFor } from './testEnv';

/** The activated extension's API (what activate() returns). */
export async function extensionApi(): Promise<ExtensionApi> {
  const ext = vscode.extensions.getExtension<ExtensionApi>('session-handoff.session-handoff');
  if (!ext) throw new Error('extension session-handoff.session-handoff is not loaded');
  return ext.activate();
}

/** Waits until the first folder's state satisfies `ok` (the pipeline publishes asynchronously). */
export async function stateWhere(api: ExtensionApi, ok: (s: WorkbenchUiState) => boolean, what: string, timeoutMs = 15000): Promise<WorkbenchUiState> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return waitFor(() => {
    const s = api.services.state.get(folder);
    return s && ok(s) ? s : undefined;
  }, timeoutMs, what);
}
