import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeRepo } from '../helpers/gitRepo';
import { makeTempDir } from '../helpers/fixtures';
import { moreAgentsHome } from '../session/moreAgentsFixture';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);
const read = (f: string) => fs.readFile(f, 'utf8');
type Json = Record<string, unknown>;
const hooksOf = (settings: Json, event: string) => ((settings['hooks'] as Json)[event] as { matcher?: string; hooks: Json[] }[]);

/** A temporary HOME holding the agent's own files as the real agent left them (the shared more-agents fixtures). */
async function agentHome(agent: 'gemini' | 'qwen' | 'copilot') {
  const home = await moreAgentsHome(agent);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, HANDOFF_STATE_DIR: path.join(home, 'state') };
  delete env['GEMINI_CLI_HOME'];
  delete env['QWEN_HOME'];
  delete env['COPILOT_HOME'];
  return { home, env, run: (...a: string[]) => handoff(['setup', agent, '--launcher', LAUNCHER, ...a], { env }) };
}

describe('handoff setup gemini|qwen (real process, the agents\' real settings files)', () => {
  it('gemini: the settings Gemini CLI wrote keep every key; SessionStart/SessionEnd hooks (ms) and the MCP server after a diff and a backup; --check; --remove restores the bytes', async () => {
    const t = await agentHome('gemini');
    const file = path.join(t.home, '.gemini', 'settings.json');
    const before = await read(file);
    const dry = t.run('--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\+\s+"SessionStart"/);
    assert.equal(await read(file), before, '--dry-run writes nothing');
    assert.equal(t.run('--check').code, 1, 'nothing set up yet');

    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /backup .*settings\.json\.handoff-backup/);
    assert.match(r.stdout, /Gemini CLI gets the SessionStart and SessionEnd hooks and the handoff MCP server/);
    assert.equal(await read(`${file}.handoff-backup`), before);
    const after = JSON.parse(await read(file)) as Json;
    const old = JSON.parse(before) as Json;
    for (const k of Object.keys(old)) assert.deepEqual(after[k], old[k], `${k} kept`);
    assert.deepEqual(hooksOf(after, 'SessionStart'), [{ matcher: 'startup|resume|clear', hooks: [{ type: 'command', command: `${LAUNCHER} hook`, timeout: 10_000 }] }]);
    assert.equal(hooksOf(after, 'SessionEnd')[0]?.hooks[0]?.['timeout'], 3000, 'Gemini CLI counts milliseconds');
    assert.deepEqual((after['mcpServers'] as Json)['handoff'], { command: LAUNCHER, args: ['mcp'] });

    const again = t.run();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Gemini CLI is already connected; nothing to change/);
    const check = t.run('--check');
    assert.equal(check.code, 0, check.stdout);
    assert.match(check.stdout, /SessionStart: present\n {2}SessionEnd: present\n {2}MCP server "handoff": present/);

    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await read(file), before, 'the bytes from before set-up');
    assert.equal(await exists(`${file}.handoff-backup`), false);
  });

  it('setup --check alone reports Gemini CLI once it is set up, and fails while one of its hooks is missing; an unreadable settings file is said', async () => {
    const t = await agentHome('gemini');
    const file = path.join(t.home, '.gemini', 'settings.json');
    const env = { ...t.env, CLAUDE_CONFIG_DIR: path.join(t.home, 'claude'), CODEX_HOME: path.join(t.home, 'codex') };
    const check = () => handoff(['setup', '--check'], { env });
    const none = check();
    assert.equal(none.code, 1, 'nothing connected');
    assert.doesNotMatch(none.stdout, /Gemini CLI/, 'an agent with nothing of ours is not listed');
    assert.equal(t.run().code, 0);
    const ok = check();
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /SessionStart: present\n {2}SessionEnd: present\n {2}MCP server "handoff": present/);
    const settings = JSON.parse(await read(file)) as Json;
    delete (settings['hooks'] as Json)['SessionEnd'];
    await fs.writeFile(file, JSON.stringify(settings));
    const partial = check();
    assert.equal(partial.code, 1, 'a hook of ours is missing');
    assert.match(partial.stdout, /SessionEnd: absent/);
    await fs.writeFile(file, '{ not json');
    const broken = check();
    assert.equal(broken.code, 1);
    assert.match(broken.stdout, /^Gemini CLI: .*settings\.json/m);
  });

  it('qwen: timeouts in seconds, PreCompact too, "$version" kept; --project writes the project\'s .qwen/settings.json', async () => {
    const t = await agentHome('qwen');
    const file = path.join(t.home, '.qwen', 'settings.json');
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    const after = JSON.parse(await read(file)) as Json;
    assert.equal(after['$version'], 4);
    assert.deepEqual((after['model'] as Json)['name'], 'qwen3-coder-plus');
    assert.deepEqual(hooksOf(after, 'SessionStart'), [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: `${LAUNCHER} hook`, timeout: 10 }] }]);
    assert.equal(hooksOf(after, 'PreCompact')[0]?.hooks[0]?.['timeout'], 30);
    assert.equal(hooksOf(after, 'SessionEnd')[0]?.hooks[0]?.['timeout'], 3);

    const project = await makeTempDir('qwen-project-');
    const p = handoff(['setup', 'qwen', '--launcher', LAUNCHER, '--project', '--dir', project], { env: t.env });
    assert.equal(p.code, 0, p.stderr);
    assert.ok(JSON.parse(await read(path.join(project, '.qwen', 'settings.json')))['hooks']['SessionStart']);
    const gone = handoff(['setup', 'qwen', '--project', '--dir', project, '--remove'], { env: t.env });
    assert.equal(gone.code, 0, gone.stderr);
    assert.equal(await exists(path.join(project, '.qwen', 'settings.json')), false, 'a file set-up made goes again');
  });

  it("a hook and an MCP server named handoff of the user's own are kept; a broken file or a wrong shape is refused, located, and nothing is written", async () => {
    const t = await agentHome('gemini');
    const file = path.join(t.home, '.gemini', 'settings.json');
    const theirs = { hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'my-greeter', timeout: 500 }] }] }, mcpServers: { handoff: { command: 'my-wrapper', args: ['serve'] } } };
    await fs.writeFile(file, JSON.stringify(theirs, null, 2));
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /An MCP server named "handoff" of your own is in .*; it is kept as it is/);
    const after = JSON.parse(await read(file)) as Json;
    assert.deepEqual((after['mcpServers'] as Json)['handoff'], { command: 'my-wrapper', args: ['serve'] });
    const start = hooksOf(after, 'SessionStart');
    assert.deepEqual(start[0], theirs.hooks.SessionStart[0], 'their hook is kept as it was');
    assert.equal(start.length, 2);
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(await read(file)), theirs, 'only ours went');

    for (const bad of ['{"hooks": ', '{"hooks": []}', '{"mcpServers": 3}']) {
      await fs.writeFile(file, bad);
      const refused = t.run();
      assert.notEqual(refused.code, 0, bad);
      assert.match(refused.stderr, new RegExp(`handoff setup: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`), refused.stderr);
      assert.equal(await read(file), bad, 'untouched');
    }
  });

  it('copilot: the MCP server in mcp-config.json (a local server, every tool), no hook, said so; --remove; --check', async () => {
    const t = await agentHome('copilot');
    const file = path.join(t.home, '.copilot', 'mcp-config.json');
    assert.equal(await exists(file), false);
    const config = path.join(t.home, '.copilot', 'config.json');
    const configBefore = await read(config);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /GitHub Copilot CLI gets the handoff MCP server/);
    assert.match(r.stdout, /No hook is written/);
    assert.deepEqual(JSON.parse(await read(file)), { mcpServers: { handoff: { type: 'local', command: LAUNCHER, args: ['mcp'], tools: ['*'] } } });
    assert.equal(await read(config), configBefore, "Copilot CLI's own config.json is not touched");
    assert.match(t.run().stdout, /already in Copilot CLI's configuration/);
    const check = t.run('--check');
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /MCP server "handoff" in .*: present\n {2}instructions in .*: present\n {2}sessionStart hook: none/);

    await fs.writeFile(file, JSON.stringify({ mcpServers: { docs: { type: 'http', url: 'https://docs.example/mcp' } } }));
    assert.equal(t.run().code, 0);
    assert.deepEqual(Object.keys((JSON.parse(await read(file)) as { mcpServers: Json }).mcpServers), ['docs', 'handoff']);
    assert.equal(t.run('--remove').code, 0);
    assert.deepEqual(JSON.parse(await read(file)), { mcpServers: { docs: { type: 'http', url: 'https://docs.example/mcp' } } });
  });

  it('an unknown agent names the six set-up knows', () => {
    const r = handoff(['setup', 'aider', '--launcher', LAUNCHER]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown agent "aider": use claude, codex, opencode, gemini, qwen, copilot/);
  });
});

describe('the hook as Gemini CLI and Qwen Code run it', () => {
  it('SessionStart: stdout is the JSON they read, the handoff in hookSpecificOutput.additionalContext; SessionEnd with a Gemini CLI log writes the packet from that session', async () => {
    const r = makeRepo({ files: { 'README.md': '# slugkit\n' } });
    const home = await moreAgentsHome('gemini', { cwd: r.dir });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, HANDOFF_STATE_DIR: path.join(home, 'state'), HANDOFF_HOOK_INLINE: '1', CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex') };
    delete env['GEMINI_CLI_HOME'];
    const chats = path.join(home, '.gemini', 'tmp', 'slugkit', 'chats');
    const log = path.join(chats, (await fs.readdir(chats))[0]!);
    const end = handoff(['hook'], { env, input: JSON.stringify({ session_id: 's-gem', transcript_path: log, cwd: r.dir, hook_event_name: 'SessionEnd', reason: 'exit', timestamp: '2026-12-01T22:00:00Z' }) });
    assert.equal(end.code, 0, end.stderr);
    const packets = (await fs.readdir(path.join(r.dir, 'outputs', 'handoff'))).filter((d) => !d.includes('.'));
    assert.equal(packets.length, 1, await read(path.join(r.dir, 'outputs', 'handoff', 'hook.log')).catch(() => 'no log'));
    const md = await read(path.join(r.dir, 'outputs', 'handoff', packets[0]!, 'handoff.md'));
    assert.match(md, /Gemini CLI session/);
    assert.match(md, /node test\/slug\.test\.js/);

    const start = handoff(['hook'], { env, input: JSON.stringify({ session_id: 's-gem-2', transcript_path: path.join(chats, 'session-new.jsonl'), cwd: r.dir, hook_event_name: 'SessionStart', source: 'startup', timestamp: '2026-12-01T23:00:00Z' }) });
    assert.equal(start.code, 0, start.stderr);
    const out = JSON.parse(start.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(out.hookSpecificOutput.additionalContext, /NEXT ACTION/);
  });
});
