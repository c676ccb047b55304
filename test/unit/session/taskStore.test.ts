import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { SessionReader } from '../../../src/core/session/reader';
import { taskStoreDir } from '../../../src/core/session/taskStore';
import { makeTempDir } from '../helpers/fixtures';
import { fixtureText } from './sessionFixture';

const SESSION = 'e539a78b-c8ef-4346-8b12-ae6ead581e57';

async function placed(): Promise<{ file: string; store: string }> {
  const home = await makeTempDir('handoff-claude-home-');
  const cwd = await makeTempDir('handoff-ws-');
  const dir = path.join(home, 'projects', claudeProjectSlug(cwd));
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${SESSION}.jsonl`);
  await fs.writeFile(file, await fixtureText('claude-tasks', cwd));
  return { file, store: path.join(home, 'tasks', SESSION) };
}

const task = (id: string, subject: string, status: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ id, subject, description: 'd', activeForm: 'a', status, blocks: [], blockedBy: [], ...extra }, null, 2)}\n`;

describe("Claude Code's on-disk task list", () => {
  it('is the folder tasks/<sessionId>/ next to projects/, and nothing for a transcript elsewhere', () => {
    assert.equal(taskStoreDir('/c/projects/-w/s1.jsonl', 's1'), path.join('/c', 'tasks', 's1'));
    assert.equal(taskStoreDir('/tmp/s1.jsonl', 's1'), null);
    assert.equal(taskStoreDir('/c/projects/-w/s1.jsonl', '../x'), null);
  });

  it('when present, it is the live task list (internal tasks and lock files left out); without it the transcript replay is', async () => {
    const { file, store } = await placed();
    const reader = new SessionReader(file, 'claude-code');
    const replay = await reader.read();
    assert.deepEqual(replay?.todosSource, { tool: 'task tools', line: 92 });
    await fs.mkdir(store, { recursive: true });
    await fs.writeFile(path.join(store, '4.json'), task('4', 'Run the sync test suite', 'in_progress'));
    await fs.writeFile(path.join(store, '6.json'), task('6', 'Persist the cursor before each retry', 'pending'));
    await fs.writeFile(path.join(store, '7.json'), task('7', 'hidden', 'pending', { metadata: { _internal: true } }));
    await fs.writeFile(path.join(store, '10.json'), '{ torn');
    await fs.writeFile(path.join(store, '.lock'), '');
    await fs.writeFile(path.join(store, '.highwatermark'), '7');
    // The store is read again when the transcript moves on.
    await fs.appendFile(file, `${JSON.stringify({ type: 'ai-title', aiTitle: 'x', sessionId: SESSION })}\n`);
    const live = await reader.read();
    assert.deepEqual(live?.todos?.map((t) => [t.id, t.content, t.status]), [['4', 'Run the sync test suite', 'in_progress'], ['6', 'Persist the cursor before each retry', 'pending']]);
    assert.deepEqual(live?.todosSource, { tool: 'task store', line: null });
    // Task #4 has been in progress since the replay saw it start (the full suite, command 6).
    assert.equal(live?.todos?.[0]?.since, 6);
    const fresh = await new SessionReader(file, 'claude-code').read();
    assert.deepEqual(fresh?.todos?.map((t) => t.id), ['4', '6']);
  });
});
