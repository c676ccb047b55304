import * as vscode from 'vscode';
import { describeReading } from '../core/context/format';
import { redact } from '../core/redact';
import type { Services } from './services';

const OPENED_KEY = 'sessionHandoff.walkthroughOpened';

/**
 * Opens the "Get started" walkthrough on the first activation, never again (remembered in global
 * state). VS Code's own `workbench.welcomePage.walkthroughs.openOnInstall` off means: do not open it.
 */
export async function openWalkthroughOnce(context: vscode.ExtensionContext, services: Services): Promise<boolean> {
  if (context.globalState.get<boolean>(OPENED_KEY)) return false;
  await context.globalState.update(OPENED_KEY, true);
  if (!vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall', true)) return false;
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${context.extension.id}#start`, false);
  services.log.info('walkthrough', 'opened the walkthrough on first activation');
  return true;
}

/** `sessionHandoff.showContextUsage`: the meter's reading in one sentence (the walkthrough's first step). */
export function registerShowContextUsage(services: Services): vscode.Disposable {
  return vscode.commands.registerCommand('sessionHandoff.showContextUsage', async () => {
    const s = services.state.get();
    const text = s ? describeReading(s.context) : 'not read yet — open a folder where an agent works';
    void vscode.window.showInformationMessage(redact(`Context: ${text}`));
  });
}
