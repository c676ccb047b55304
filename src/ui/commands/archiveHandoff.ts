import * as vscode from 'vscode';
import { archivePacket } from '../../core/registry/registry';
import type { Services } from '../services';
import type { PacketEntry, WorkbenchUiState } from '../state/types';
import { UserFacingError } from './boundary';
import type { PacketArg } from './packetRef';
import { folderOf, packetIdOf, stateOf } from './packetRef';

/**
 * `sessionHandoff.archiveHandoff`: marks a packet `archived` (nothing is deleted). Without a packet
 * argument the user picks one of the folder's packets that are not archived yet.
 * Resolves with the archived packet id, or undefined when nothing was picked.
 */
export function archiveHandoffCommand(services: Services): (arg?: PacketArg) => Promise<string | undefined> {
  return async (arg) => {
    const folder = folderOf(services, arg);
    if (!vscode.workspace.isTrusted) throw new UserFacingError('Session Handoff writes nothing in an untrusted workspace.');
    const state = await stateOf(services, folder);
    const id = packetIdOf(arg) ?? (await pick(state));
    if (!id) return undefined;
    const result = await archivePacket(state.outputDir, id);
    if (!result.ok) throw new UserFacingError(result.reason);
    services.log.info('archive', `${id}: ${result.already ? 'was already archived' : 'archived'}`);
    await services.state.refresh(folder, 'archived');
    void vscode.window.showInformationMessage(result.already ? `Handoff ${id} was already archived.` : `Handoff ${id} archived.`);
    return id;
  };
}

/** A quick pick of the packets that can still be archived, the active one first. */
async function pick(state: WorkbenchUiState): Promise<string | undefined> {
  const open = state.packets.filter((p) => p.packet.status !== 'archived');
  if (!open.length) throw new UserFacingError(`No handoff packet to archive in ${state.folder.name}.`);
  const items = open.map((p: PacketEntry) => ({
    label: p.id,
    description: `${p.packet.status}${p.freshness.stale ? ', stale' : ''} · ${p.packet.branch ?? 'no branch'} · ${p.packet.topic}`,
    detail: p.packet.next_action,
    id: p.id,
  }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Archive Handoff', placeHolder: 'Pick the packet to archive' });
  return picked?.id;
}
