import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../helpers/fixtures';

// The installed extension runs its own dist/cli.js (the MCP server VS Code starts, the hooks `handoff
// setup` writes), and cli.js loads the other bundles by name at run time: one left out of the VSIX
// breaks that command only once installed, where no test of the source tree sees it.
describe('the VSIX ships every bundle the build writes', function () {
  this.timeout(120_000);

  it('vsce lists each dist/*.js, and no source map, code cache or TypeScript', () => {
    const root = repoRoot();
    const built = readdirSync(path.join(root, 'dist')).filter((f) => f.endsWith('.js')).map((f) => `dist/${f}`);
    for (const needed of ['dist/cli.js', 'dist/hook.js', 'dist/hookStart.js', 'dist/mcp.js', 'dist/mcpWork.js']) assert.ok(built.includes(needed), `${needed} is not built`);
    const vsce = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
    const r = spawnSync(vsce, ['ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const listed = r.stdout.trim().split('\n').map((l) => l.trim());
    assert.deepEqual(built.filter((f) => !listed.includes(f)), [], 'bundles left out of the VSIX (.vscodeignore)');
    assert.deepEqual(listed.filter((f) => /\.(map|ts|v8cache)$/.test(f) || /^(src|test|out)\//.test(f)), []);
  });
});
