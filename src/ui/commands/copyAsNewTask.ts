import * as vscode from 'vscode';
import { renderRestartPrompt, vscodeTaskAgent } from '../../core/render/prompt';
import type { Services } from '../services';
import type { PacketArg } from './packetRef';
import { resolvePromptPacket, trustNote } from './packetRef';
import { uiText } from '../redactUi';

/**
 * `sessionHandoff.copyAsNewTask`: the restart prompt for the new-task flow of the agents that live in
 * VS Code (Cline, Roo Code, Kilo Code): a new task opens with a context block as its first message, so
 * the prompt goes to the clipboard and the message says where to paste it. Resolves true when copied.
 */
export function copyAsNewTaskCommand(services: Services): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    const { entry, extra, trust, frame } = await resolvePromptPacket(services, arg);
    const prompt = frame(renderRestartPrompt(entry.packet, extra));
    await vscode.env.clipboard.writeText(uiText(prompt));
    const agent = vscodeTaskAgent(entry.packet) ?? 'Cline, Roo Code, Zoo Code or Kilo Code';
    const stale = trustNote(trust);
    void vscode.window.showInformationMessage(`Restart prompt copied as a new task: in ${agent}, start a new task and paste it as the task's first message.${stale}`);
    services.log.info('copyAsNewTask', `copied the prompt of ${entry.id} for a new ${agent} task (${prompt.length} chars)`);
    return true;
  };
}
