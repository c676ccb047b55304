import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Packet } from '../../../src/core/packet/schema';
import { makeRepo } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';
import { qwenProjectName } from '../../../src/core/session/qwen';
import { moreAgentsHome } from '../session/moreAgentsFixture';

/** A repository, and the agent's recorded HOME rewritten to it (the stores record the folder they ran in). */
async function setUp(agent: 'gemini' | 'qwen' | 'copilot', rename?: (dir: string) => (name: string) => string) {
  const repo = makeRepo({ files: { 'README.md': '# slugkit\n' } });
  const dir = await fs.realpath(repo.dir);
  const home = await moreAgentsHome(agent, { cwd: dir, ...(rename ? { rename: rename(dir) } : {}) });
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), GEMINI_CLI_HOME: '', QWEN_HOME: '', QWEN_RUNTIME_DIR: '', COPILOT_HOME: '' };
  return { dir, home, env };
}

async function packetOf(dir: string, id: string): Promise<{ json: Packet; md: string }> {
  const base = path.join(dir, 'outputs', 'handoff', id);
  return { json: JSON.parse(await fs.readFile(path.join(base, 'handoff.json'), 'utf8')) as Packet, md: await fs.readFile(path.join(base, 'handoff.md'), 'utf8') };
}

describe('handoff status / generate with the terminal agents that keep one log per session', () => {
  it('Gemini CLI: status names it with the meter, generate writes its commands, task list and closing question', async () => {
    const { dir, env } = await setUp('gemini');
    const status = handoff(['status', '--dir', dir], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /1\.3 % — 13,694 of 1,048,576 tokens · Gemini CLI · compacts at 50 %/);
    const gen = handoff(['generate', '--allow-dirty', '--dir', dir], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const id = '73004524-c1e8-4736-88a8-7cf8556ef0e0';
    const { json, md } = await packetOf(dir, id);
    assert.equal(json.sources['commands'], `gemini:${id}`);
    assert.deepEqual(json.commands_run.map((c) => [c.command, c.exit_code]), [['node test/slug.test.js', 1], ['node test/slug.test.js', 0]]);
    assert.match(md, /Derived from: Gemini CLI session 73004524/);
    assert.match(md, /fall back to `'untitled'`/);
  });

  it('Gemini CLI: handoff secrets lists a credential in the session log and --scrub masks it in place', async () => {
    const { dir, home, env } = await setUp('gemini');
    const file = path.join(home, '.gemini', 'tmp', 'slugkit', 'chats', 'session-2026-12-01T21-52-73004524.jsonl');
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}zZ9y8X`;
    await fs.appendFile(file, `{"id":"u2","timestamp":"2026-12-01T21:52:40.000Z","type":"user","content":[{"text":"use the token ${token} for the release"}]}\n`);
    const size = (await fs.stat(file)).size;
    const list = handoff(['secrets', '--dir', dir], { env });
    assert.match(list.stdout, /1 credential found/);
    assert.match(list.stdout, /session-2026-12-01T21-52-73004524\.jsonl \(1\)/);
    assert.ok(!list.stdout.includes(token));
    const scrub = handoff(['secrets', '--dir', dir, '--scrub', '--force'], { env });
    assert.equal(scrub.code, 0, scrub.stderr);
    const after = await fs.readFile(file, 'utf8');
    assert.ok(!after.includes(token));
    assert.equal((await fs.stat(file)).size, size);
  });

  it('Qwen Code: status names it with the window it recorded, generate writes its commands, task list and closing question', async () => {
    const { dir, env } = await setUp('qwen', (d) => (n) => (n === '-home-dev-src-slugkit' ? qwenProjectName(d) : n));
    const status = handoff(['status', '--dir', dir], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /2\.3 % — 22,555 of 1,000,000 tokens · Qwen Code · compacts at 85 %/);
    const gen = handoff(['generate', '--allow-dirty', '--dir', dir], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const id = '651e68fc-fced-4fcf-bc21-752e912c607a';
    const { json, md } = await packetOf(dir, id);
    assert.equal(json.sources['commands'], `qwen:${id}`);
    assert.deepEqual(json.commands_run.map((c) => [c.command, c.exit_code]), [['node test/slug.test.js', 1], ['node test/slug.test.js', 0]]);
    assert.match(md, /Derived from: Qwen Code session 651e68fc/);
    assert.match(md, /Task list: 3 of 4 done/);
  });

  it('Copilot CLI: status names it with the window it recorded, generate writes its commands, the todo list of session.db and the closing question', async () => {
    const { dir, env } = await setUp('copilot');
    const status = handoff(['status', '--dir', dir], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /21\.0 % — 13,413 of 64,000 tokens · Copilot CLI/);
    const gen = handoff(['generate', '--allow-dirty', '--dir', dir], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const id = 'f34d5de7-e445-4f9f-9d7b-b5910ce70e6e';
    const { json, md } = await packetOf(dir, id);
    assert.equal(json.sources['commands'], `copilot-cli:${id}`);
    assert.deepEqual(json.commands_run.map((c) => [c.command, c.exit_code]), [['node test/slug.test.js', 1], ['node test/slug.test.js', 0]]);
    assert.match(md, /Derived from: Copilot CLI session f34d5de7/);
    assert.match(md, /Task list: 3 of 4 done/);
    assert.match(md, /fall back to `'untitled'`/);
    const secrets = handoff(['secrets', '--dir', dir], { env });
    assert.match(secrets.stdout, /No credentials found/);
    assert.match(secrets.stdout, /events\.jsonl \(0\)/);
  });
});
