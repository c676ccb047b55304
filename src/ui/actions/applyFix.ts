import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveInside } from '../../core/safePath';
import { globMatcher } from '../../core/clean/glob';
import type { CleanFinding } from '../../core/clean/types';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';
import { fixCommand } from './fixCommand';

/**
 * Asks before removing temporary files (relative paths); true means go ahead. `how` is 'trash'
 * first; 'permanently' only after the trash failed (`reason`), e.g. on remote hosts whose file
 * system has no trash. Injectable so in-host tests can confirm or decline at the edge: a modal
 * cannot be clicked from the extension host.
 */
export type ConfirmDelete = (paths: readonly string[], how: 'trash' | 'permanently', reason?: string) => Promise<boolean>;

/** The real modals: Move to Trash, or Delete Permanently with the trash's error (Cancel is implicit). */
export const confirmDeleteModal: ConfirmDelete = async (paths, how, reason) => {
  const n = `${paths.length} temporary file${paths.length === 1 ? '' : 's'}`;
  const choice = how === 'trash' ? 'Move to Trash' : 'Delete Permanently';
  const picked = await vscode.window.showWarningMessage(
    how === 'trash' ? `Move ${n} to the trash?` : `The trash is not available here. Delete ${n} permanently?`,
    { modal: true, detail: [reason, paths.join('\n')].filter(Boolean).join('\n\n') },
    choice,
  );
  return picked === choice;
};

/**
 * Offers a clean-state finding's fix, never behind the user's back: temporary files can be moved
 * to the trash after a confirmation (deleted after a second one where there is no trash); a suggested command is typed into a visible terminal (run
 * only when it needs nothing filled in and the user chose Run); advice is shown and can be copied.
 */
export async function applyFix(
  services: Services,
  arg?: { finding?: CleanFinding; folderUri?: vscode.Uri },
  confirmDelete: ConfirmDelete = confirmDeleteModal,
): Promise<void> {
  const finding = arg?.finding;
  if (!finding?.fix) throw new UserFacingError('This item has no fix to apply.');
  if (!vscode.workspace.isTrusted) throw new UserFacingError('This workspace is not trusted, so no fix is run.');
  const folder = services.folderFor(arg?.folderUri);
  const state = folder ? services.state.get(folder) : undefined;
  const root = state?.git?.ok ? state.git.facts.root : folder?.uri.fsPath;
  // Only the temporary-files finding, and only paths the temp globs match: never a source file
  // named by a debug-print finding.
  const isTemp = globMatcher(services.config.get(folder?.uri).options.tempGlobs);
  const temp = finding.check === 'temp-artifacts' && /^\d+ temporary files?:/.test(finding.detail) ? (finding.paths ?? []).filter(isTemp) : [];
  if (temp.length && root) {
    await removeTempFiles(services, root, temp, confirmDelete);
    return;
  }
  const suggested = fixCommand(finding.fix);
  if (!suggested) {
    const picked = await vscode.window.showInformationMessage(finding.fix, 'Copy');
    if (picked === 'Copy') await vscode.env.clipboard.writeText(finding.fix);
    return;
  }
  const run = suggested.placeholder ? 'Type in Terminal' : 'Run in Terminal';
  const picked = await vscode.window.showWarningMessage(
    suggested.placeholder ? `Type \`${suggested.command}\` into a terminal? Fill in the <…> part before pressing Enter.` : `Run \`${suggested.command}\` in a terminal?`,
    { modal: true, detail: `${finding.detail}\n\n${finding.fix}` },
    run,
    'Copy Command',
  );
  if (picked === 'Copy Command') await vscode.env.clipboard.writeText(suggested.command);
  if (picked !== run) return;
  const terminal = vscode.window.createTerminal({ name: 'Session Handoff: fix', cwd: folder?.uri });
  terminal.show();
  terminal.sendText(suggested.command, !suggested.placeholder);
  services.log.info('fix', `${suggested.placeholder ? 'typed' : 'ran'} "${suggested.command}" in ${folder?.name ?? 'the window'}`);
}

/**
 * Moves the files to the trash after a confirmation. Where the trash fails (remote file systems
 * have none), asks again before deleting permanently, as the Explorer does; then refreshes so the
 * Clean State view turns green without waiting for a watcher.
 */
async function removeTempFiles(services: Services, root: string, paths: readonly string[], confirmDelete: ConfirmDelete): Promise<void> {
  const files = paths.map((p) => resolveInside(root, p)).filter((f): f is string => f !== null);
  const rel = (list: readonly string[]) => list.map((f) => path.relative(root, f));
  if (!(await confirmDelete(rel(files), 'trash'))) return;
  const failed: string[] = [];
  let reason = '';
  for (const f of files) {
    try {
      await vscode.workspace.fs.delete(vscode.Uri.file(f), { useTrash: true, recursive: true });
    } catch (err) {
      failed.push(f);
      reason ||= err instanceof Error ? err.message : String(err);
    }
  }
  services.log.info('fix', `moved ${files.length - failed.length} temporary file(s) to the trash`);
  if (failed.length) {
    services.log.warn('fix', `could not trash ${failed.length} file(s): ${reason}`);
    if (await confirmDelete(rel(failed), 'permanently', reason)) {
      for (const f of failed) await vscode.workspace.fs.delete(vscode.Uri.file(f), { useTrash: false, recursive: true });
      services.log.info('fix', `deleted ${failed.length} temporary file(s) permanently`);
    }
  }
  await services.state.refresh(undefined, 'temporary files removed');
}
