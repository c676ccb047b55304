import type { Services } from '../services';
import type { PanelController } from '../panel/panelController';
import type { PacketArg } from './packetRef';
import { folderOf, packetIdOf, stateOf } from './packetRef';

/** What the open commands resolve with: the packet shown (null for the empty page) once the page drew it. */
export interface OpenResult {
  packetId: string | null;
  /** `render`, `empty`, or null when the page did not answer in time. */
  shown: 'render' | 'empty' | null;
}

/**
 * `sessionHandoff.openActiveHandoff` (no id: follow the active packet of the folder, or show the
 * empty page that offers Generate) and `sessionHandoff.openPacket` (a given packet id, pinned
 * unless it is the active one).
 */
export function openPacketCommand(services: Services, panels: PanelController): (arg?: PacketArg) => Promise<OpenResult> {
  return async (arg) => {
    const folder = folderOf(services, arg);
    const state = await stateOf(services, folder);
    const id = packetIdOf(arg);
    // Opening the active packet by id still follows the active one, so a regenerate updates the page.
    const pinned = id && id !== state.activePacket?.id ? id : undefined;
    const msg = await panels.show({ folder, packetId: pinned });
    const packetId = msg?.type === 'render' ? msg.model.packet.packet_id : null;
    return { packetId, shown: msg?.type === 'render' || msg?.type === 'empty' ? msg.type : null };
  };
}
