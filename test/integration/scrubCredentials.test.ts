import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { claudeProjectSlug } from '../../src/core/context/discovery';
import type { ScrubOutcome } from '../../src/core/workflow/secrets';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { packetCommands } from './helpers/packetHarness';
import { inHostEnv } from './helpers/testEnv';

describe('Scrub Credentials from Agent Sessions… (in the extension host)', () => {
  let file = '';
  let original = '';
  /** The folder's reading before this suite added a session of its own. */
  let sessionBefore = '';

  before(async () => {
    const api = await extensionApi();
    const s = await stateWhere(api, (x) => x.context.known, 'a context reading');
    sessionBefore = s.context.known ? s.context.sessionId : '';
    const env = inHostEnv();
    const dir = path.join(env.claudeDir, 'projects', claudeProjectSlug(env.workspace));
    await fs.mkdir(dir, { recursive: true });
    file = path.join(dir, 'scrub-test-0000.jsonl');
    original = (await fs.readFile(path.join(env.fixtures, 'transcripts', 'claude-tasks.jsonl'), 'utf8')).split('__CWD__').join(JSON.stringify(env.workspace).slice(1, -1));
    await fs.writeFile(file, original);
    // Last written an hour ago: the agent is done with it.
    const t = new Date(Date.now() - 3_600_000);
    await fs.utimes(file, t, t);
  });

  after(async () => {
    await fs.rm(file, { force: true });
    // The scrubbed transcript was the folder's newest session while it existed: once it is gone the
    // meter goes back to the session it read before (later suites expect that reading).
    const api = await extensionApi();
    await stateWhere(api, (x) => x.context.known && x.context.sessionId === sessionBefore, 'the earlier session read again once the scrubbed one is gone');
  });

  it('lists the credential in the confirmation and writes nothing when declined', async () => {
    const api = await packetCommands();
    let asked: { message: string; detail: string } | null = null;
    const restore = api.overrideConfirmScrub(async (message, detail) => {
      asked = { message, detail };
      return false;
    });
    try {
      const r = await vscode.commands.executeCommand<ScrubOutcome[] | undefined>('sessionHandoff.scrubCredentials');
      assert.equal(r, undefined);
    } finally {
      restore.dispose();
    }
    assert.ok(asked, 'the confirmation was shown');
    const { message, detail } = asked as { message: string; detail: string };
    assert.match(message, /^Mask 1 credential in 1 agent session file\?$/);
    assert.match(detail, /^1\. `cd services\/sync && cat \.env` printed a Stripe live key \(PROVIDER_API_KEY\) into the agent's transcript .*scrub-test-0000\.jsonl line 24/);
    assert.equal(await fs.readFile(file, 'utf8'), original);
  });

  it('masks the credential in place once confirmed, byte for byte: the same file, every line still JSON', async () => {
    const api = await packetCommands();
    const ino = (await fs.stat(file)).ino;
    const restore = api.overrideConfirmScrub(async () => true);
    let r: ScrubOutcome[] | undefined;
    try {
      r = await vscode.commands.executeCommand<ScrubOutcome[] | undefined>('sessionHandoff.scrubCredentials');
    } finally {
      restore.dispose();
    }
    assert.deepEqual(r?.map((o) => [o.kind, path.basename(o.file)]), [['scrubbed', 'scrub-test-0000.jsonl']]);
    const after = await fs.readFile(file, 'utf8');
    assert.notEqual(after, original);
    assert.equal(Buffer.byteLength(after), Buffer.byteLength(original), 'as many bytes as before');
    assert.equal((await fs.stat(file)).ino, ino, 'the same file, not a copy renamed over it');
    const lines = after.split('\n');
    // Only line 24 changed, and only by stars where the credential was.
    original.split('\n').forEach((l, i) => {
      if (i !== 23) assert.equal(lines[i], l, `line ${i + 1}`);
    });
    const changed = lines[23]!.split('').map((c, i) => (c === original.split('\n')[23]![i] ? '' : c)).join('');
    assert.match(changed, /^\*{20,}$/);
    for (const line of lines.filter((l) => l.trim())) JSON.parse(line);
  });
});
