import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';
import { UserFacingError } from './boundary';
import type { PacketArg } from './packetRef';
import { resolvePacket } from './packetRef';

/**
 * `sessionHandoff.copyJson`: copies the packet's handoff.json exactly as written (the JSON is the
 * truth, so the bytes on disk are copied rather than a re-serialization). Resolves true when copied.
 */
export function copyJsonCommand(services: Services): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    const { entry } = await resolvePacket(services, arg);
    const file = path.join(entry.dir, 'handoff.json');
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch {
      throw new UserFacingError(`${file} can no longer be read.`);
    }
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage('$(check) Handoff JSON copied', 3000);
    services.log.info('copyJson', `copied ${file}`);
    return true;
  };
}
