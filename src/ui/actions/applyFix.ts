import * as vscode from 'vscode';
import type { CleanFinding } from '../../core/clean/types';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';

/** A fix that is a shell command (`git stash push -m "…"`, or text in backticks) rather than advice. */
export function fixCommand(fix: string): string | null {
  const quoted = /`([^`]+)`/.exec(fix)?.[1];
  if (quoted) return quoted.trim();
  return /^(git|rm|mv|npm|pnpm|yarn|pytest|handoff)\s/.test(fix.trim()) ? fix.trim() : null;
}

/**
 * Offers a clean-state finding's fix. A command runs only after the user confirms, in a visible
 * terminal in the folder; advice is shown (and can be copied). Nothing runs behind the user's back.
 */
export async function applyFix(services: Services, arg?: { finding?: CleanFinding; folderUri?: vscode.Uri }): Promise<void> {
  const finding = arg?.finding;
  if (!finding?.fix) throw new UserFacingError('This item has no fix to apply.');
  if (!vscode.workspace.isTrusted) throw new UserFacingError('This workspace is not trusted, so no fix is run.');
  const folder = services.folderFor(arg?.folderUri);
  const cmd = fixCommand(finding.fix);
  if (!cmd) {
    const picked = await vscode.window.showInformationMessage(finding.fix, 'Copy');
    if (picked === 'Copy') await vscode.env.clipboard.writeText(finding.fix);
    return;
  }
  const picked = await vscode.window.showWarningMessage(
    `Run \`${cmd}\` in a terminal?`,
    { modal: true, detail: finding.detail },
    'Run in Terminal',
    'Copy Command',
  );
  if (picked === 'Copy Command') await vscode.env.clipboard.writeText(cmd);
  if (picked !== 'Run in Terminal') return;
  const terminal = vscode.window.createTerminal({ name: 'Session Handoff: fix', cwd: folder?.uri });
  terminal.show();
  terminal.sendText(cmd, true);
  services.log.info('fix', `ran "${cmd}" in ${folder?.name ?? 'the window'}`);
}
