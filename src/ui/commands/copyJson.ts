import * as path from 'node:path';
import * as vscode from 'vscode';
import { readIfExists } from '../../core/fsx';
import type { Services } from '../services';
import { UserFacingError } from './boundary';
import type { PacketArg } from './packetRef';
import { resolvePacket } from './packetRef';
import { redactDocument } from '../../core/redact';

/**
 * `sessionHandoff.copyJson`: copies the packet's handoff.json exactly as written (the JSON is the
 * truth, so the bytes on disk are copied rather than a re-serialization). Resolves true when copied.
 */
export function copyJsonCommand(services: Services): (arg?: PacketArg) => Promise<boolean> {
  return async (arg) => {
    const { entry } = await resolvePacket(services, arg);
    const file = path.join(entry.dir, 'handoff.json');
    let text: string | null;
    try {
      // Never a blocking read: a FIFO or device in place of the packet is refused with a sentence.
      text = await readIfExists(file, { root: entry.dir });
    } catch (err) {
      throw new UserFacingError((err as Error).message);
    }
    if (text === null) throw new UserFacingError(`${file} can no longer be read.`);
    // A packet written by an older version, or edited by hand, is redacted on its way out too.
    await vscode.env.clipboard.writeText(redactDocument(text));
    vscode.window.setStatusBarMessage('$(check) Handoff JSON copied', 3000);
    services.log.info('copyJson', `copied ${file}`);
    return true;
  };
}
