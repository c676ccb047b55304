import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { OWN_PACKETS_FILE } from '../../src/core/registry/ownership';
import { NOT_WRITTEN_HERE } from '../../src/core/registry/trust';
import { generateAccepting, removeOutputs } from './helpers/packetHarness';
import { inHostEnv } from './helpers/testEnv';

/** The clipboard after running a prompt command on the active packet. */
async function copiedBy(command: string): Promise<string> {
  await vscode.env.clipboard.writeText('');
  assert.equal(await vscode.commands.executeCommand(command), true, command);
  return vscode.env.clipboard.readText();
}

describe('prompt commands and a packet not written here (in the extension host)', () => {
  const ledger = () => path.join(inHostEnv().workspace, '.git', OWN_PACKETS_FILE);

  before(async () => {
    await removeOutputs();
    const r = await generateAccepting();
    assert.ok(r.packetId, `generated: ${JSON.stringify(r)}`);
  });

  after(async () => {
    await removeOutputs();
    await vscode.commands.executeCommand('sessionHandoff.refresh');
  });

  it('Copy Restart Prompt, Copy as New Task and Continue in Claude Code / Codex: a foreign packet opens with the not-written-here line, never "act right away"', async () => {
    // Written here: the prompt is one to act on, with no such line.
    const own = await copiedBy('sessionHandoff.copyRestartPrompt');
    assert.ok(!own.includes(NOT_WRITTEN_HERE), own.slice(0, 400));
    assert.match(own, /NEXT ACTION/);
    // The same packet as if it came with a clone or an archive: this user's ledger does not vouch for it.
    const saved = await fs.readFile(ledger());
    await fs.writeFile(ledger(), '');
    try {
      for (const command of ['sessionHandoff.copyRestartPrompt', 'sessionHandoff.copyAsNewTask', 'sessionHandoff.continueInClaudeCode', 'sessionHandoff.continueInCodex']) {
        const prompt = await copiedBy(command);
        assert.ok(prompt.startsWith(`${NOT_WRITTEN_HERE}\n\n`), `${command}: ${prompt.slice(0, 300)}`);
        assert.doesNotMatch(prompt, /right away/, command);
        assert.match(prompt, /stale/, command);
      }
    } finally {
      await fs.writeFile(ledger(), saved);
    }
  });
});
