import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '../helpers/fixtures';
import { makeRepo } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';
import { placeTasks, TASK_IDS } from '../session/vscodeAgentFixture';

describe('handoff status / generate with a Cline or Roo Code task', () => {
  it('finds a Cline task in the usual VS Code user-data location and a Roo task through --roo-dir, then writes the packet from the newest', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const dir = await fs.realpath(repo.dir);
    const home = await makeTempDir('handoff-cli-home-');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') };
    await placeTasks('cline-xml', dir, path.join(home, '.config', 'Code', 'User', 'globalStorage'));
    const cline = handoff(['status', '--dir', dir], { env });
    assert.equal(cline.code, 0, cline.stderr);
    assert.match(cline.stdout, /27\.2 % — 34,800 of 128,000 tokens · Cline · compacts at 76\.6 %/);

    const rooRoot = await placeTasks('roo-condense', dir);
    // The Roo task is the newest: its files were written last.
    const later = new Date(Date.now() + 60_000);
    const ui = path.join(rooRoot, 'rooveterinaryinc.roo-cline', 'tasks', TASK_IDS['roo-condense'], 'ui_messages.json');
    await fs.utimes(ui, later, later);
    const args = ['--dir', dir, '--roo-dir', path.join(rooRoot, 'rooveterinaryinc.roo-cline'), '--roo-model', 'claude-sonnet-4-5'];
    const status = handoff(['status', ...args], { env });
    assert.match(status.stdout, /21\.9 % — 42,000 of 200,000 tokens · Roo Code · compacts at 89\.6 %/);
    assert.match(status.stdout, /also: Cline 27\.2 %/);
    const gen = handoff(['generate', '--allow-dirty', ...args], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const packet = JSON.parse(await fs.readFile(path.join(dir, 'outputs', 'handoff', TASK_IDS['roo-condense'], 'handoff.json'), 'utf8')) as { sources: Record<string, string>; context: { source: string; percent: number } };
    assert.equal(packet.sources['commands'], `roo:${TASK_IDS['roo-condense']}`);
    assert.equal(packet.context.source, 'roo');
    const md = await fs.readFile(path.join(dir, 'outputs', 'handoff', TASK_IDS['roo-condense'], 'handoff.md'), 'utf8');
    assert.match(md, /Derived from: Roo Code task 019ad5c4/);
  });
});
