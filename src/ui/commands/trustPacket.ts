import * as path from 'node:path';
import * as vscode from 'vscode';
import { readIfExists } from '../../core/fsx';
import { trustPacket } from '../../core/registry/trustPacket';
import type { Services } from '../services';
import { UserFacingError } from './boundary';
import type { PacketArg } from './packetRef';
import { resolvePacket } from './packetRef';

/** Asks before trusting: true only on the explicit button. */
export type ConfirmTrust = (message: string, detail: string) => Thenable<boolean>;

const TRUST = 'Trust This Packet';

/** The real confirmation: a modal naming what the next session would be told to do. */
export const confirmTrustModal: ConfirmTrust = async (message, detail) => (await vscode.window.showWarningMessage(message, { modal: true, detail }, TRUST)) === TRUST;

/**
 * `sessionHandoff.trustPacket`: a packet not written here (a teammate's, committed; one imported or
 * copied from another machine) is trusted here after review, on the user's explicit word in a modal;
 * from then on the next agent session is handed it while it matches the branch and HEAD. Never
 * silently: resolves true only when the user confirmed and the trust was recorded.
 */
export function trustPacketCommand(services: Services, confirm: () => ConfirmTrust = () => confirmTrustModal): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    if (!vscode.workspace.isTrusted) throw new UserFacingError('Session Handoff writes nothing in an untrusted workspace.');
    const { state, entry } = await resolvePacket(services, arg);
    if (entry.owned !== false) {
      void vscode.window.showInformationMessage(`Handoff ${entry.id} was written here (or is trusted already): nothing to do.`);
      return false;
    }
    const p = entry.packet;
    const message = `Trust handoff ${entry.id}? It was not written here: it was committed, copied or imported.`;
    const detail = [
      `Branch ${p.branch ?? '(none)'}, topic ${p.topic}, made at ${p.head_commit?.slice(0, 7) ?? 'no commit'}${p.remote ? ` in a clone of ${p.remote}` : ''}.`,
      `The next agent session will be told to act on: ${p.next_action}`,
      '',
      'Trust it only after reading it (Open Handoff). It is handed over only while it matches the branch and HEAD.',
    ].join('\n');
    if (!(await confirm()(message, detail))) return false;
    const text = await readIfExists(path.join(entry.dir, 'handoff.json'), { root: entry.dir }).catch((err: Error) => {
      throw new UserFacingError(err.message);
    });
    if (text === null) throw new UserFacingError(`${entry.dir} no longer holds the packet.`);
    if (!(await trustPacket(entry.dir, text))) throw new UserFacingError(`Handoff ${entry.id} could not be recorded as trusted: is the folder in a git repository?`);
    services.log.info('trustPacket', `trusted ${entry.dir}`);
    await services.state.refresh(state.folder, 'trusted a packet');
    void vscode.window.showInformationMessage(`Handoff ${entry.id} is trusted here: the next agent session is handed it while it matches the branch and HEAD.`);
    return true;
  };
}
