import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveInside } from '../../core/safePath';
import { globMatcher } from '../../core/clean/glob';
import { fixOffer, type OfferedCommand } from '../../core/clean/fixOffer';
import type { CleanFinding } from '../../core/clean/types';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';

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
 * Shows a fix offer — a modal when something could run, else a plain message — and returns the item
 * picked. Injectable so in-host tests can see the exact offer and answer at the edge.
 */
export type PickFix = (offer: { message: string; detail?: string; modal: boolean; items: string[] }) => Promise<string | undefined>;

/** The real dialogs. */
export const pickFixDialog: PickFix = async ({ message, detail, modal, items }) =>
  modal ? vscode.window.showWarningMessage(message, { modal: true, detail }, ...items) : vscode.window.showInformationMessage(message, ...items);

/**
 * Offers a clean-state finding's fix, never behind the user's back, decided on the finding's kind and
 * structured data (`fixOffer`), never on its text: temporary files can be moved to the trash after a
 * confirmation (deleted after a second one where there is no trash); a single simple command is shown
 * with its exact text and run (or typed, when it needs something filled in) in a visible terminal only
 * when the user picks it; anything else — a compound command, an unknown tool, advice — can be copied.
 */
export async function applyFix(
  services: Services,
  arg?: { finding?: CleanFinding; folderUri?: vscode.Uri },
  confirmDelete: ConfirmDelete = confirmDeleteModal,
  pick: PickFix = pickFixDialog,
): Promise<void> {
  const finding = arg?.finding;
  if (!finding?.fix) throw new UserFacingError('This item has no fix to apply.');
  if (!vscode.workspace.isTrusted) throw new UserFacingError('This workspace is not trusted, so no fix is run.');
  const folder = services.folderFor(arg?.folderUri);
  const state = folder ? services.state.get(folder) : undefined;
  const root = state?.git?.ok ? state.git.facts.root : folder?.uri.fsPath;
  const offer = fixOffer(finding);
  switch (offer.kind) {
    case 'delete-temp-files': {
      // Only paths the temp globs match: never a source file.
      const isTemp = globMatcher(services.config.get(folder?.uri).options.tempGlobs);
      const temp = offer.paths.filter(isTemp);
      if (temp.length && root) await removeTempFiles(services, root, temp, confirmDelete);
      else await offerCopy(finding.fix, pick);
      return;
    }
    case 'commands':
      await offerCommands(services, folder, finding, offer.commands, pick);
      return;
    case 'advice':
      await offerCopy(offer.text, pick);
      return;
  }
}

/** Advice, or a command not to be run from here: shown, with Copy. */
async function offerCopy(text: string, pick: PickFix): Promise<void> {
  const picked = await pick({ message: text, modal: false, items: ['Copy'] });
  if (picked === 'Copy') await vscode.env.clipboard.writeText(text);
}

/**
 * The fix's commands, each on a button with its exact text: Run / Type for a single simple command of
 * a known tool, Copy for anything else. Nothing runs unless the user picks that button.
 */
async function offerCommands(
  services: Services,
  folder: vscode.WorkspaceFolder | undefined,
  finding: CleanFinding,
  commands: readonly OfferedCommand[],
  pick: PickFix,
): Promise<void> {
  const first = commands[0];
  if (!first) return;
  if (!commands.some((c) => c.how !== 'copy')) {
    const why = commands.length === 1 ? 'It is not a single simple command, so it is offered to copy only:' : 'They are not single simple commands, so they are offered to copy only:';
    const picked = await pick({ message: `${finding.fix} ${why} ${commands.map((c) => c.command).join(' / ')}`, modal: false, items: ['Copy Command'] });
    if (picked === 'Copy Command') await vscode.env.clipboard.writeText(first.command);
    return;
  }
  const label = (c: OfferedCommand): string => `${c.how === 'run' ? 'Run' : c.how === 'type' ? 'Type' : 'Copy'}: ${c.command}`;
  const typed = commands.some((c) => c.how === 'type') ? '\n\n"Type" puts the command in a terminal without running it: fill in the <…> part, then press Enter.' : '';
  const picked = await pick({
    message: commands.length === 1 ? 'Apply this fix in a terminal?' : 'Apply one of these fixes in a terminal?',
    detail: `${finding.detail}\n\n${finding.fix}\n\nExact text:\n${commands.map((c) => c.command).join('\n')}${typed}`,
    modal: true,
    items: [...commands.map(label), 'Copy Command'],
  });
  if (picked === 'Copy Command') {
    await vscode.env.clipboard.writeText(first.command);
    return;
  }
  const chosen = commands.find((c) => label(c) === picked);
  if (!chosen) return;
  if (chosen.how === 'copy') {
    await vscode.env.clipboard.writeText(chosen.command);
    return;
  }
  const terminal = vscode.window.createTerminal({ name: 'Session Handoff: fix', cwd: folder?.uri });
  terminal.show();
  terminal.sendText(chosen.command, chosen.how === 'run');
  services.log.info('fix', `${chosen.how === 'run' ? 'ran' : 'typed'} "${chosen.command}" in ${folder?.name ?? 'the window'}`);
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
