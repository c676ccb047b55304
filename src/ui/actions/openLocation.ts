import * as path from 'node:path';
import * as vscode from 'vscode';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';

/** What Open Location accepts: a location, or a tree node carrying one. */
export type LocationArg = { file: string; line?: number } | { uiRisk: { location: { file: string; line?: number } | null } } | { file?: undefined };

/** Opens a file from a view at the given 1-based line; only files inside a workspace folder. */
export async function openLocation(services: Services, arg: LocationArg | undefined): Promise<void> {
  const loc = arg && 'uiRisk' in arg ? arg.uiRisk.location : arg && arg.file ? (arg as { file: string; line?: number }) : null;
  if (!loc) throw new UserFacingError('This item has no file to open.');
  const uri = vscode.Uri.file(path.resolve(loc.file));
  if (!vscode.workspace.getWorkspaceFolder(uri)) {
    throw new UserFacingError(`${loc.file} is outside the workspace, so it is not opened.`);
  }
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    throw new UserFacingError(`${vscode.workspace.asRelativePath(uri)} no longer exists.`, {
      title: 'Refresh',
      run: () => services.state.refresh(undefined, 'missing file'),
    });
  }
  const line = Math.max(0, (loc.line ?? 1) - 1);
  const range = new vscode.Range(line, 0, line, 0);
  await vscode.window.showTextDocument(uri, { selection: range, preview: true });
}
