import * as vscode from 'vscode';
import { renderForPr } from '../../core/render/forPr';
import type { Services } from '../services';
import type { PacketArg } from './packetRef';
import { resolvePacket } from './packetRef';

/**
 * `sessionHandoff.copyPrSummary`: copies the packet as a short, redacted markdown summary for a pull
 * request description or a review comment (what was done, what failed or was rejected, open risks, the
 * next step), as `handoff show --for-pr` prints it. Resolves true when copied.
 */
export function copyPrSummaryCommand(services: Services): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    const { entry } = await resolvePacket(services, arg);
    await vscode.env.clipboard.writeText(renderForPr(entry.packet));
    vscode.window.setStatusBarMessage('$(check) Pull request summary copied', 3000);
    services.log.info('copyPrSummary', `copied the summary of ${entry.dir}`);
    return true;
  };
}
