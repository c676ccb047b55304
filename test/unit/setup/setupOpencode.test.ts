import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { OPENCODE_INSTRUCTIONS } from '../../../src/core/setup/opencode';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);
const read = (f: string) => fs.readFile(f, 'utf8');
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

async function opencodeEnv() {
  const home = await makeTempDir('opencode-setup-');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
  const dir = path.join(home, '.config', 'opencode');
  return { home, env, dir, file: path.join(dir, 'opencode.json'), instructions: path.join(dir, 'handoff-instructions.md'), run: (...a: string[]) => handoff(['setup', 'opencode', '--launcher', LAUNCHER, ...a], { env }) };
}

describe('handoff setup opencode (real process, real files)', () => {
  it('no opencode.json → mcp.handoff and the instruction file in "instructions", shown as a diff; --remove takes both away', async () => {
    const t = await opencodeEnv();
    const dry = t.run('--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`--- /dev/null\\n\\+\\+\\+ ${esc(t.file)}\\n`));
    assert.equal(await exists(t.file), false, '--dry-run writes nothing');
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /OpenCode gets the handoff MCP server \(mcp\.handoff/);
    assert.deepEqual(JSON.parse(await read(t.file)), {
      mcp: { handoff: { type: 'local', command: [LAUNCHER, 'mcp'], enabled: true } },
      instructions: [t.instructions],
      $schema: 'https://opencode.ai/config.json',
    });
    assert.equal(await read(t.instructions), OPENCODE_INSTRUCTIONS);
    assert.match(await read(t.instructions), /handoff_prompt/);
    const again = t.run();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already in OpenCode's configuration; nothing to change/);
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await exists(t.file), false);
    assert.equal(await exists(t.instructions), false);
  });

  it("the user's own keys, providers, servers and instructions are kept, a backup first; --remove restores the bytes", async () => {
    const t = await opencodeEnv();
    await fs.mkdir(t.dir, { recursive: true });
    const before = '{\n    "$schema": "https://opencode.ai/config.json",\n    "provider": {"local": {"models": {"qwen3-coder-30b": {"limit": {"context": 131072}}}}},\n    "mcp": {"docs": {"type": "remote", "url": "https://docs.example/mcp"}},\n    "instructions": ["CONTRIBUTING.md"]\n}\n';
    await fs.writeFile(t.file, before);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`backup ${esc(t.file)}\\.handoff-backup`));
    const after = JSON.parse(await read(t.file)) as Record<string, unknown>;
    assert.deepEqual(after['mcp'], { docs: { type: 'remote', url: 'https://docs.example/mcp' }, handoff: { type: 'local', command: [LAUNCHER, 'mcp'], enabled: true } });
    assert.deepEqual(after['instructions'], ['CONTRIBUTING.md', t.instructions]);
    assert.deepEqual(after['provider'], { local: { models: { 'qwen3-coder-30b': { limit: { context: 131072 } } } } });
    assert.equal(await read(`${t.file}.handoff-backup`), before);
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await read(t.file), before, 'the bytes from before set-up');
    assert.equal(await exists(`${t.file}.handoff-backup`), false);
    assert.equal(await exists(t.instructions), false);
  });

  it('a "handoff" server of the user\'s own, an instruction file of theirs, a JSONC config or a broken file are never overwritten', async () => {
    const t = await opencodeEnv();
    await fs.mkdir(t.dir, { recursive: true });
    const theirs = '{"mcp": {"handoff": {"type": "local", "command": ["my-wrapper", "serve"]}}}\n';
    await fs.writeFile(t.file, theirs);
    const kept = t.run();
    assert.equal(kept.code, 0, kept.stderr);
    assert.match(kept.stdout, /An MCP server named "handoff" of your own is in .*; it is kept as it is/);
    assert.equal(await read(t.file), theirs);
    await fs.writeFile(t.file, '{"mcp": {}}\n');
    await fs.writeFile(t.instructions, '# mine\n');
    const refused = t.run();
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /handoff-instructions\.md exists and is not the one set-up writes/);
    assert.equal(await read(t.instructions), '# mine\n');
    assert.equal(await read(t.file), '{"mcp": {}}\n');
    await fs.rm(t.instructions);
    await fs.writeFile(t.file, '{"mcp": {\n');
    const broken = t.run();
    assert.notEqual(broken.code, 0);
    assert.match(broken.stderr, /opencode\.json:\d+: .*nothing was written/);
    await fs.rm(t.file);
    await fs.writeFile(path.join(t.dir, 'opencode.jsonc'), '{ // mine\n}\n');
    const jsonc = t.run();
    assert.notEqual(jsonc.code, 0);
    assert.match(jsonc.stderr, /opencode\.jsonc, which set-up does not edit/);
    assert.equal(await exists(t.file), false);
  });

  it('--project writes the project\'s opencode.json, naming the instruction file relative to it', async () => {
    const t = await opencodeEnv();
    const project = await makeTempDir('opencode-project-');
    const r = t.run('--project', '--dir', project);
    assert.equal(r.code, 0, r.stderr);
    const config = JSON.parse(await read(path.join(project, 'opencode.json'))) as Record<string, unknown>;
    assert.deepEqual(config['instructions'], ['handoff-instructions.md']);
    assert.equal(await read(path.join(project, 'handoff-instructions.md')), OPENCODE_INSTRUCTIONS);
    assert.equal(await exists(t.file), false);
    assert.equal(t.run('--project', '--dir', project, '--remove').code, 0);
    assert.deepEqual(await fs.readdir(project), []);
  });
});
