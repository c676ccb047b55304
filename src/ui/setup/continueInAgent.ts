import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentTitle, renderForAgent, type PromptAgent } from '../../core/render/forAgent';
import { atomicWrite } from '../../core/fsx';
import { findOnPath } from '../../core/setup/launcher';
import { shellQuote } from '../../core/setup/shell';
import type { PacketArg } from '../commands/packetRef';
import { resolvePromptPacket, trustNote } from '../commands/packetRef';
import type { Services } from '../services';
import { uiText } from '../redactUi';

/** The agent CLI each target runs in a terminal. */
const CLI: Record<PromptAgent, string> = { claude: 'claude', codex: 'codex', gemini: 'gemini', qwen: 'qwen', copilot: 'copilot' };

/**
 * `Session Handoff: Continue in Codex` / `Continue in Claude Code`: the active packet's restart prompt
 * rendered for that agent (its tool names, its way of running tests in the background, which agent
 * and session the packet came from) goes on the clipboard; where the agent's CLI is on PATH, a
 * terminal can be opened with the agent command typed in, the prompt as its first message, ready to run.
 */
export function continueInAgentCommand(services: Services, storageDir: string, target: PromptAgent): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    const { state, entry, extra, trust, frame } = await resolvePromptPacket(services, arg);
    const prompt = uiText(frame(renderForAgent(entry.packet, target, extra, { packetDir: path.relative(state.folder.uri.fsPath, entry.dir) || '.' })));
    await vscode.env.clipboard.writeText(prompt);
    services.log.info('continue', `copied the prompt of ${entry.id} for ${agentTitle(target)} (${prompt.length} chars)`);
    const exe = await findOnPath(CLI[target], process.env);
    const stale = trustNote(trust);
    if (!exe) {
      void vscode.window.showInformationMessage(`Restart prompt for ${agentTitle(target)} copied: paste it as the first message of a new ${agentTitle(target)} session.${stale}`);
      return true;
    }
    const open = 'Open Terminal';
    const pick = await vscode.window.showInformationMessage(`Restart prompt for ${agentTitle(target)} copied.${stale} Start ${agentTitle(target)} with it in a terminal?`, open);
    if (pick !== open) return true;
    // The prompt goes through a file: a terminal line cannot hold it safely (newlines, quotes).
    const file = path.join(storageDir, 'prompts', `continue-${target}.md`);
    await atomicWrite(file, Buffer.from(prompt, 'utf8'), { mode: 0o600 });
    const terminal = vscode.window.createTerminal({ name: `${agentTitle(target)} (handoff)`, cwd: state.folder.uri });
    terminal.show();
    const line =
      process.platform === 'win32'
        ? `${CLI[target]} (Get-Content -Raw '${file.replace(/'/g, "''")}')`
        : `${CLI[target]} "$(cat ${shellQuote(file)})"`;
    // Typed, not run: the person presses Enter.
    terminal.sendText(line, false);
    return true;
  };
}
