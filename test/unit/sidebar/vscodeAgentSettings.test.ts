import assert from 'node:assert/strict';
import { parseSettings } from '../../../src/ui/settings';
import { vscodeAgentOptions } from '../../../src/ui/state/contextPort';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

describe('settings for the agents inside VS Code', () => {
  it('reads Cline, Roo Code and Kilo Code by default; a custom Roo storage path and Roo\'s model reach the meter', () => {
    const d = parseSettings(from({}));
    assert.deepEqual(d.context.sources, ['claude', 'codex', 'generic', 'cline', 'roo', 'kilo']);
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
    const bad = parseSettings(from({ 'context.sources': ['cline', 'copilot'] }));
    assert.equal(bad.problems.length, 1);
    assert.ok(bad.context.sources.includes('cline'));
  });
});
