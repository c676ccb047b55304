import * as vscode from 'vscode';
import { UserFacingError } from '../commands/boundary';
import type { Services } from '../services';
import type { UiRisk } from '../state/types';

/**
 * Acknowledges a risk: the one of the clicked row, else one picked from the active folder's
 * unacknowledged risks. The record (who/when) goes to the sidecar next to the packet.
 */
export async function acknowledgeRisk(services: Services, arg?: { uiRisk?: UiRisk; folderUri?: vscode.Uri }): Promise<void> {
  const folder = services.folderFor(arg?.folderUri);
  const state = folder ? services.state.get(folder) : undefined;
  if (!state) throw new UserFacingError('Open a folder with a workbench first.');
  let risk = arg?.uiRisk ? state.risks.find((r) => r.risk.id === arg.uiRisk?.risk.id) ?? arg.uiRisk : undefined;
  if (!risk) {
    const open = state.risks.filter((r) => !r.ack);
    if (!open.length) {
      void vscode.window.showInformationMessage('There are no unacknowledged risks.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      open.map((r) => ({ label: r.risk.detail, description: `${r.risk.severity} · ${r.risk.source}`, risk: r })),
      { title: 'Acknowledge Risk', placeHolder: 'Which risk do you accept for now?' },
    );
    if (!picked) return;
    risk = picked.risk;
  }
  const ack = await services.acks.acknowledge(state, risk);
  vscode.window.setStatusBarMessage(`$(check) Risk acknowledged by ${ack.by}`, 3000);
}
