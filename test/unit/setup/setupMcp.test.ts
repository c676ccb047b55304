import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);
const read = (f: string) => fs.readFile(f, 'utf8');

async function claudeEnv() {
  const home = await makeTempDir('claude-mcp-');
  const env = { ...process.env, CLAUDE_CONFIG_DIR: home, HOME: home };
  return { home, env, file: path.join(home, '.claude.json'), run: (...a: string[]) => handoff(['setup', 'claude', '--launcher', LAUNCHER, ...a], { env }) };
}

describe('handoff setup: the MCP server in the agent\'s MCP configuration (real process, real files)', () => {
  it('Claude Code: no .claude.json → mcpServers.handoff, shown as a diff; --remove deletes the file set-up made', async () => {
    const t = await claudeEnv();
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`--- /dev/null\\n\\+\\+\\+ ${t.file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n`));
    assert.match(r.stdout, /Claude Code gets the handoff MCP server/);
    assert.deepEqual(JSON.parse(await read(t.file)), { mcpServers: { handoff: { type: 'stdio', command: LAUNCHER, args: ['mcp'] } } });
    const again = t.run();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already in Claude Code's configuration; nothing to change/);
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await exists(t.file), false);
  });

  it('Claude Code: the user\'s own keys and servers are kept, a backup first; --remove restores the bytes', async () => {
    const t = await claudeEnv();
    const before = '{\n    "numStartups": 12,\n    "mcpServers": {"docs": {"type": "stdio", "command": "docs-server", "args": []}},\n    "projects": {"/x": {"allowedTools": []}}\n}\n';
    await fs.writeFile(t.file, before);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\+ {8}"handoff": \{$/m);
    assert.match(r.stdout, new RegExp(`backup ${t.file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\.handoff-backup`));
    const after = JSON.parse(await read(t.file)) as Record<string, unknown>;
    assert.deepEqual(after, {
      numStartups: 12,
      mcpServers: { docs: { type: 'stdio', command: 'docs-server', args: [] }, handoff: { type: 'stdio', command: LAUNCHER, args: ['mcp'] } },
      projects: { '/x': { allowedTools: [] } },
    });
    assert.equal(await read(`${t.file}.handoff-backup`), before);
    assert.equal(t.run('--remove').code, 0);
    assert.equal(await read(t.file), before, 'the bytes from before set-up');
    assert.equal(await exists(`${t.file}.handoff-backup`), false);
  });

  it('Claude Code: a "handoff" server of the user\'s own is kept; --remove leaves it; --without-mcp and --project choose the file', async () => {
    const t = await claudeEnv();
    const theirs = '{"mcpServers": {"handoff": {"command": "my-handoff-wrapper", "args": ["serve"]}}}\n';
    await fs.writeFile(t.file, theirs);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /An MCP server named "handoff" of your own is in .*; it is kept as it is/);
    assert.equal(await read(t.file), theirs);
    assert.equal(t.run('--remove').code, 0);
    assert.equal(await read(t.file), theirs);

    const u = await claudeEnv();
    assert.equal(u.run('--without-mcp').code, 0);
    assert.equal(await exists(u.file), false, '--without-mcp leaves the MCP configuration alone');
    const project = await makeTempDir('claude-project-');
    assert.equal(u.run('--project', '--dir', project).code, 0);
    assert.deepEqual(JSON.parse(await read(path.join(project, '.mcp.json'))), { mcpServers: { handoff: { type: 'stdio', command: LAUNCHER, args: ['mcp'] } } });
    assert.equal(await exists(u.file), false);
    assert.equal(u.run('--project', '--dir', project, '--remove').code, 0);
    assert.equal(await exists(path.join(project, '.mcp.json')), false);
  });

  it('Claude Code: a .claude.json that is not JSON is reported with its line, and nothing is written', async () => {
    const t = await claudeEnv();
    await fs.writeFile(t.file, '{\n  "numStartups": 1,\n  oops\n}\n');
    const r = t.run();
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`${path.basename(t.file).replace('.', '\\.')}:3: .*nothing was written`));
    assert.equal(await read(t.file), '{\n  "numStartups": 1,\n  oops\n}\n');
  });

  it('Codex: [mcp_servers.handoff] appended to config.toml (comments and other servers kept), backup first; --remove restores the bytes', async () => {
    const home = await makeTempDir('codex-mcp-');
    const env = { ...process.env, CODEX_HOME: home, PATH: path.dirname(process.execPath) };
    const config = path.join(home, 'config.toml');
    const before = '# my settings\nmodel = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "docs-server" # mine\n';
    await fs.writeFile(config, before);
    const run = (...a: string[]) => handoff(['setup', 'codex', '--codex-version', '0.130.0', '--launcher', LAUNCHER, ...a], { env });
    const r = run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\+\[mcp_servers\.handoff\]\n\+command = "\/opt\/handoff\/handoff"\n\+args = \["mcp"\]$/m);
    const text = await read(config);
    assert.ok(text.startsWith(before), 'appended; the user\'s text untouched');
    assert.deepEqual(JSON.parse(JSON.stringify(parseToml(text))), { model: 'gpt-5.5', features: { hooks: true }, mcp_servers: { docs: { command: 'docs-server' }, handoff: { command: LAUNCHER, args: ['mcp'] } } });
    assert.equal(await read(`${config}.handoff-backup`), before);
    const again = run();
    assert.match(again.stdout, /already in Codex's config\.toml; nothing to change/);
    assert.equal(await read(config), text);
    assert.equal(run('--remove').code, 0);
    assert.equal(await read(config), before);
    assert.equal(await exists(`${config}.handoff-backup`), false);
  });
});
