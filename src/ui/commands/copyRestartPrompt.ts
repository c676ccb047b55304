import * as vscode from 'vscode';
import { renderRestartPrompt } from '../../core/render/prompt';
import type { Services } from '../services';
import type { PacketArg } from './packetRef';
import { resolvePromptPacket, trustNote } from './packetRef';
import { uiText } from '../redactUi';

/**
 * `sessionHandoff.copyRestartPrompt`: renders the restart prompt of a packet (default: the active
 * one) with its current freshness and the risk acknowledgements, and puts it on the clipboard.
 * Resolves true when copied, so the panel can show "Copied".
 */
export function copyRestartPromptCommand(services: Services): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    const { entry, extra, trust, frame } = await resolvePromptPacket(services, arg);
    const prompt = frame(renderRestartPrompt(entry.packet, extra));
    await vscode.env.clipboard.writeText(uiText(prompt));
    const note = trustNote(trust);
    vscode.window.setStatusBarMessage(`$(check) Restart prompt copied.${note}`, 4000);
    services.log.info('copyRestartPrompt', `copied the prompt of ${entry.id} (${prompt.length} chars, trust=${trust.kind})`);
    return true;
  };
}
