import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { WorkbenchUiState } from '../state/types';
import { resolveInside } from '../../core/safePath';

/**
 * Opens a changed file named by a packet. Packet paths are relative to the repository root and
 * agent-written, so the result must stay inside the workspace folder. Returns a one-sentence problem
 * for the page, or null when the file opened.
 */
export async function openPacketFile(
  state: WorkbenchUiState | undefined,
  folder: vscode.WorkspaceFolder,
  relPath: string,
): Promise<string | null> {
  const folderPath = folder.uri.fsPath;
  const repoRoot = state?.git?.ok ? state.git.facts.root : folderPath;
  const fromRoot = resolveInside(repoRoot, relPath);
  // The repository may be wider than the workspace folder: only files inside the folder are opened.
  const abs = fromRoot && resolveInside(folderPath, fromRoot) ? fromRoot : resolveInside(folderPath, relPath);
  if (!abs) return `${relPath} is outside the workspace and was not opened.`;
  try {
    const st = await fs.stat(abs);
    if (!st.isFile()) return `${relPath} is not a file.`;
  } catch {
    return `${relPath} no longer exists (deleted or renamed since the packet).`;
  }
  await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(abs), { preview: true, viewColumn: vscode.ViewColumn.One });
  return null;
}
