import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSettings } from '../../../src/ui/settings';
import { vscodeAgentOptions } from '../../../src/ui/state/contextPort';
import { isTaskFile } from '../../../src/ui/state/watchPatterns';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

describe('settings for the agents inside VS Code', () => {
  it('reads Cline, Roo Code, Zoo Code and Kilo Code by default; a custom Roo storage path and Roo\'s model reach the meter', () => {
    const d = parseSettings(from({}));
    assert.deepEqual(d.context.sources, ['claude', 'codex', 'generic', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli']);
    assert.deepEqual(vscodeAgentOptions(d), {});
    const s = parseSettings(from({ 'context.sources': ['roo'], 'context.rooStoragePath': ' /data/roo ', 'context.rooModel': 'claude-sonnet-4-5' }));
    assert.deepEqual(s.problems, []);
    assert.deepEqual(s.context.sources, ['roo']);
    assert.deepEqual(vscodeAgentOptions(s, { globalStorageRoot: '/u/User/globalStorage', rooCustomStoragePath: '/roo/own' }), {
      rooDir: '/data/roo',
      extraGlobalStorageRoots: ['/u/User/globalStorage'],
      rooModel: 'claude-sonnet-4-5',
    });
    // Without ours, Roo's own customStoragePath is used.
    assert.equal(vscodeAgentOptions(d, { rooCustomStoragePath: '/roo/own' }).rooDir, '/roo/own');
    // Zoo Code alike: ours first, else Zoo's own `zoo-code.customStoragePath`; Kilo's database from ours.
    const z = parseSettings(from({ 'context.zooStoragePath': ' /data/zoo ', 'context.kiloDatabase': '~/kilo/kilo.db' }));
    assert.deepEqual(z.problems, []);
    const zo = vscodeAgentOptions(z, { zooCustomStoragePath: '/zoo/own' });
    assert.equal(zo.zooDir, '/data/zoo');
    assert.equal(zo.kiloDb, path.join(os.homedir(), 'kilo', 'kilo.db'));
    assert.equal(vscodeAgentOptions(d, { zooCustomStoragePath: '/zoo/own' }).zooDir, '/zoo/own');
    assert.equal(vscodeAgentOptions(d).kiloDb, undefined);
    const bad = parseSettings(from({ 'context.sources': ['cline', 'copilot'] }));
    assert.equal(bad.problems.length, 1);
    assert.ok(bad.context.sources.includes('cline'));
  });
});

describe('watching the agents\' task folders', () => {
  it('reacts to task files, task indexes and SDK session files, not to other JSON in the storage folder', () => {
    assert.ok(isTaskFile('/gs/rooveterinaryinc.roo-cline/tasks/019a/ui_messages.json'));
    assert.ok(isTaskFile('/gs/saoudrizwan.claude-dev/tasks/1764/api_conversation_history.json'));
    assert.ok(isTaskFile('/gs/saoudrizwan.claude-dev/state/taskHistory.json'));
    assert.ok(isTaskFile('/gs/rooveterinaryinc.roo-cline/tasks/_index.json'));
    assert.ok(isTaskFile('/home/u/.cline/data/sessions/sess_1/sess_1.messages.json'));
    assert.ok(isTaskFile('/home/u/.cline/data/sessions/sess_1/sess_1.json'));
    assert.equal(isTaskFile('/gs/rooveterinaryinc.roo-cline/settings/mcp_settings.json'), false);
    assert.equal(isTaskFile('/gs/saoudrizwan.claude-dev/tasks/1764/context_history.json'), false);
    // Kilo Code's database and its WAL (where a live session's newest rows are).
    assert.ok(isTaskFile('/home/u/.local/share/kilo/kilo.db'));
    assert.ok(isTaskFile('/home/u/.local/share/kilo/kilo.db-wal'));
    assert.equal(isTaskFile('/home/u/.local/share/kilo/kilo.db-shm'), false);
    assert.equal(isTaskFile('/home/u/.local/share/kilo/other.db'), false);
  });
});
