import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { isOwnPacket } from '../../src/core/registry/ownership';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { generateAccepting, outputDir, packetCommands, readPacket, removeOutputs } from './helpers/packetHarness';

describe('Trust This Packet and Copy PR Summary (in the extension host)', () => {
  const TEAMMATE = 'teammate-7';
  let dir = '';
  let sha = '';

  before(async () => {
    await removeOutputs();
    const own = await generateAccepting();
    assert.ok(own.packetId, 'a packet of our own to copy from');
    // A teammate's packet, committed to the repository: written by someone else, never recorded here.
    const packet = { ...(await readPacket(own.packetId)), packet_id: TEAMMATE, session_id: TEAMMATE, next_action: 'Finish the teammate refund tests' };
    dir = path.join(outputDir(), TEAMMATE);
    await fs.mkdir(dir, { recursive: true });
    const json = `${JSON.stringify(packet, null, 2)}\n`;
    sha = createHash('sha256').update(json).digest('hex');
    await fs.writeFile(path.join(dir, 'handoff.json'), json);
  });

  after(async () => {
    await removeOutputs();
  });

  it('a packet not written here is marked so; declining the modal trusts nothing, confirming records it and the state follows', async () => {
    const api = await extensionApi();
    const folderUri = vscode.workspace.workspaceFolders?.[0]?.uri;
    await stateWhere(api, (s) => s.packets.some((p) => p.id === TEAMMATE && p.owned === false), 'the teammate packet shown as not written here');
    const commands = await packetCommands();
    let asked: { message: string; detail: string } | null = null;
    const decline = commands.overrideConfirmTrust(async (message, detail) => {
      asked = { message, detail };
      return false;
    });
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>('sessionHandoff.trustPacket', { packetId: TEAMMATE, folderUri }), false);
    } finally {
      decline.dispose();
    }
    const shown = asked as { message: string; detail: string } | null;
    assert.ok(shown, 'the modal was shown');
    assert.match(shown.message, /^Trust handoff teammate-7\? It was not written here/);
    assert.match(shown.detail, /The next agent session will be told to act on: Finish the teammate refund tests/);
    assert.equal(await isOwnPacket(dir, sha), false, 'declined: nothing recorded');

    const accept = commands.overrideConfirmTrust(async () => true);
    try {
      assert.equal(await vscode.commands.executeCommand<boolean>('sessionHandoff.trustPacket', { packetId: TEAMMATE, folderUri }), true);
    } finally {
      accept.dispose();
    }
    assert.equal(await isOwnPacket(dir, sha), true, 'confirmed: recorded as trusted here');
    await stateWhere(api, (s) => s.packets.some((p) => p.id === TEAMMATE && p.owned === true), 'the teammate packet trusted');
  });

  it('Copy PR Summary puts the short redacted summary on the clipboard', async () => {
    const folderUri = vscode.workspace.workspaceFolders?.[0]?.uri;
    await vscode.env.clipboard.writeText('');
    assert.equal(await vscode.commands.executeCommand<boolean>('sessionHandoff.copyPrSummary', { packetId: TEAMMATE, folderUri }), true);
    const text = await vscode.env.clipboard.readText();
    assert.match(text, /^### Session handoff: /);
    assert.match(text, /\*\*Next step\*\*\n\nFinish the teammate refund tests\n/);
  });
});
