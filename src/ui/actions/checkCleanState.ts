import * as vscode from 'vscode';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';

/**
 * Runs the clean-state check now (no debounce), reveals the Clean State view and says the verdict
 * in the status bar; findings stay in the view, not in a pop-up.
 */
export async function checkCleanState(services: Services, arg?: { folderUri?: vscode.Uri }): Promise<void> {
  const folder = services.folderFor(arg?.folderUri);
  if (!folder) throw new UserFacingError('Open a folder first: Session Handoff works on a workspace folder.');
  if (!vscode.workspace.isTrusted) throw new UserFacingError('This workspace is not trusted, so Session Handoff runs no git.');
  await vscode.commands.executeCommand('sessionHandoff.cleanState.focus');
  await services.state.refresh(folder, 'Check Clean State');
  const s = services.state.get(folder);
  if (!s?.clean) {
    throw new UserFacingError(s?.phaseMessage ?? 'The clean-state check could not run.', { title: 'Show Log', run: () => services.log.show() });
  }
  const n = s.clean.findings.length;
  vscode.window.setStatusBarMessage(n ? `$(warning) Workbench not clean: ${n} finding(s)` : '$(pass) Workbench is clean', 5000);
}
