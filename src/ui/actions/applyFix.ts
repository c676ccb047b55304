import * as path from 'node:path';
import * as vscode from 'vscode';
import { globMatcher } from '../../core/clean/glob';
import type { CleanFinding } from '../../core/clean/types';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';
import { fixCommand } from './fixCommand';

/**
 * Offers a clean-state finding's fix, never behind the user's back: temporary files can be moved
 * to the trash after a confirmation; a suggested command is typed into a visible terminal (run
 * only when it needs nothing filled in and the user chose Run); advice is shown and can be copied.
 */
export async function applyFix(services: Services, arg?: { finding?: CleanFinding; folderUri?: vscode.Uri }): Promise<void> {
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
    await trashTempFiles(services, root, temp);
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

async function trashTempFiles(services: Services, root: string, paths: readonly string[]): Promise<void> {
  const files = paths.map((p) => path.resolve(root, p)).filter((f) => !path.relative(root, f).startsWith('..'));
  const choice = 'Move to Trash';
  const picked = await vscode.window.showWarningMessage(
    `Move ${files.length} temporary file${files.length === 1 ? '' : 's'} to the trash?`,
    { modal: true, detail: paths.join('\n') },
    choice,
  );
  if (picked !== choice) return;
  for (const f of files) await vscode.workspace.fs.delete(vscode.Uri.file(f), { useTrash: true, recursive: true });
  services.log.info('fix', `moved ${files.length} temporary file(s) to the trash`);
  await services.state.refresh(undefined, 'temporary files removed');
}
