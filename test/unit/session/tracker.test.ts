import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { SessionTracker } from '../../../src/core/session/tracker';
import { makeTempDir } from '../helpers/fixtures';
import { placeSession } from './sessionFixture';

describe('finding and following the folder\'s agent session', () => {
  it('finds the Claude Code session of the folder (as the meter does), then reads only what is appended', async () => {
    const folder = await makeTempDir('handoff-tracker-');
    const { home, file } = await placeSession('claude-tools', folder);
    const tracker = new SessionTracker({ folder, claudeConfigDir: home, codexHome: `${folder}/no-codex` });
    const first = await tracker.read();
    assert.equal(first?.sessionId, '7f3e2a91-4c8b-4d2e-9a1f-3b5c6d7e8f90');
    assert.equal(first?.commandCount, 7);
    assert.equal(tracker.readerFor(file)?.stats.mode, 'initial');
    const line = JSON.stringify({ isSidechain: false, type: 'user', cwd: folder, sessionId: first?.sessionId, message: { role: 'user', content: 'Now document the headers' } });
    await fs.appendFile(file, `${line}\n`);
    const next = await tracker.read();
    assert.equal(next?.latestUserRequest, 'Now document the headers');
    const stats = tracker.readerFor(file)?.stats;
    assert.equal(stats?.mode, 'append');
    // The new line, plus the first bytes re-read to tell an append from a replaced file.
    assert.ok((stats?.bytesRead ?? 0) <= line.length + 1 + 256, `read ${stats?.bytesRead} bytes`);
  });

  it('finds a Codex rollout by its cwd, and nothing for another folder or with the agent switched off', async () => {
    const folder = await makeTempDir('handoff-tracker-');
    const { home } = await placeSession('codex-tools', folder);
    const codex = await new SessionTracker({ folder, claudeConfigDir: `${folder}/no-claude`, codexHome: home }).read();
    assert.equal(codex?.agent, 'codex');
    assert.equal(codex?.branch, 'feat/rate-limit');
    const other = await makeTempDir('handoff-tracker-other-');
    assert.equal(await new SessionTracker({ folder: other, claudeConfigDir: `${folder}/no-claude`, codexHome: home }).read(), null);
    assert.equal(await new SessionTracker({ folder, claudeConfigDir: `${folder}/no-claude`, codexHome: home, agents: ['claude'] }).read(), null);
  });
});
