import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentFolder, parseSettings } from '../../../src/ui/settings';
import { repoRoot } from '../helpers/fixtures';

describe('the agent folder settings', () => {
  it('expand ~ to the home folder, keep other paths, and leave empty for the defaults', () => {
    assert.equal(agentFolder('~', '/home/u'), '/home/u');
    assert.equal(agentFolder(' ~/.claude-work ', '/home/u'), path.join('/home/u', '.claude-work'));
    assert.equal(agentFolder('/srv/claude', '/home/u'), '/srv/claude');
    assert.equal(agentFolder('~other/x', '/home/u'), '~other/x');
    assert.equal(agentFolder('', '/home/u'), '');
    const s = parseSettings((k) => ({ 'context.claudeConfigDir': '~/.claude-alt', 'context.codexHome': '/x/codex' })[k]);
    assert.deepEqual([s.context.claudeConfigDir, s.context.codexHome], [path.join(os.homedir(), '.claude-alt'), '/x/codex']);
  });

  it('are read from the user settings in a remote window too (application scope, not machine)', () => {
    // A machine-scoped setting in the user settings never reaches a remote extension host (code-server,
    // SSH, containers): the meter then looked in ~/.claude whatever the user set.
    const manifest = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { scope?: string }> } } };
    const props = manifest.contributes.configuration.properties;
    for (const key of ['sessionHandoff.context.claudeConfigDir', 'sessionHandoff.context.codexHome']) assert.equal(props[key]?.scope, 'application', key);
  });
});
