import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { WorkbenchUiState } from '../state/types';
import { resolveInside } from '../../core/safePath';
import { defaultClaudeConfigDir, defaultCodexHome } from '../../core/context/discovery';
import { openableSource } from '../../core/packet/openSource';
import type { Packet } from '../../core/packet/schema';

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

/**
 * Opens a source the packet names (a session file or a workbench file) at its line, as the risks do:
 * only a file the packet names, inside the workspace, or an agent session file under the agent homes
 * (the settings', `$CLAUDE_CONFIG_DIR`/`~/.claude`, `$CODEX_HOME`/`~/.codex`). Returns a one-sentence
 * problem for the page, or null when it opened.
 */
export async function openPacketSource(
  packet: Packet,
  state: WorkbenchUiState | undefined,
  folder: vscode.WorkspaceFolder,
  file: string,
  line: number | null,
  configuredHomes: readonly string[],
): Promise<string | null> {
  const name = file.slice(file.replace(/\\/g, '/').lastIndexOf('/') + 1);
  const homes = [...configuredHomes.filter(Boolean), defaultClaudeConfigDir(), defaultCodexHome()];
  const abs = openableSource(packet, file, {
    folder: folder.uri.fsPath,
    workbenchDir: state?.workbenchDir ?? folder.uri.fsPath,
    agentHomes: homes,
    sessionFile: state?.session?.file ?? null,
    session: state?.session ?? null,
  });
  if (!abs) return `${name} is not a session or workbench file of this packet, so it was not opened.`;
  try {
    const st = await fs.stat(abs);
    if (!st.isFile()) return `${name} is not a file.`;
  } catch {
    return `${name} no longer exists (the session file was moved or deleted).`;
  }
  const at = Math.max(0, (line ?? 1) - 1);
  const range = new vscode.Range(at, 0, at, 0);
  await vscode.window.showTextDocument(vscode.Uri.file(abs), { selection: range, preview: true, viewColumn: vscode.ViewColumn.One });
  return null;
}
