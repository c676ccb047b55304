import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Services } from '../services';
import { UserFacingError } from './boundary';
import type { PacketArg } from './packetRef';
import { resolvePacket } from './packetRef';

/** `sessionHandoff.openMarkdown`: opens the packet's handoff.md in an editor. */
export function openMarkdownCommand(services: Services): (arg?: PacketArg) => Promise<void> {
  return async (arg) => {
    const { state, entry } = await resolvePacket(services, arg);
    const uri = vscode.Uri.file(path.join(entry.dir, 'handoff.md'));
    try {
      await vscode.window.showTextDocument(uri, { preview: true, viewColumn: vscode.ViewColumn.One });
    } catch (err) {
      services.log.error('openMarkdown', `could not open ${uri.fsPath}`, err);
      throw new UserFacingError(`handoff.md of ${entry.id} is missing.`, {
        title: 'Regenerate',
        run: () => vscode.commands.executeCommand('sessionHandoff.regenerate', { folderUri: state.folder.uri }),
      });
    }
  };
}
