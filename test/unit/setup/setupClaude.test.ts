import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

/** A Claude config dir and a launcher path with a space in it (quoted in the commands). */
async function setupEnv() {
  const home = await makeTempDir('claude-home-');
  const launcherDir = path.join(await makeTempDir('launcher-'), 'with space');
  await fs.mkdir(launcherDir);
  const launcher = path.join(launcherDir, 'handoff');
  const env = { ...process.env, CLAUDE_CONFIG_DIR: home };
  const run = (...args: string[]) => handoff(['setup', 'claude', '--launcher', launcher, ...args], { env });
  const file = path.join(home, 'settings.json');
  const backup = `${file}.handoff-backup`;
  const read = (f: string) => fs.readFile(f, 'utf8');
  const exists = (f: string) => fs.stat(f).then(() => true, () => false);
  return { home, launcher, run, file, backup, read, exists, q: `'${launcher}'` };
}

describe('handoff setup claude (real process, real files)', () => {
  it('(a) no settings file: writes statusLine and the four hooks (with timeouts), no backup; --remove deletes the file again', async () => {
    const t = await setupEnv();
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^--- \/dev\/null\n\+\+\+ .*settings\.json\n@@ -0,0 \+1,\d+ @@/);
    assert.deepEqual(JSON.parse(await t.read(t.file)), {
      statusLine: { type: 'command', command: `${t.q} statusline` },
      hooks: {
        SessionStart: [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 10 }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 5 }] }],
        PreCompact: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 30 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 3 }] }],
      },
    });
    assert.equal(await t.exists(t.backup), false, 'nothing to back up');
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await t.exists(t.file), false, 'the file set-up created is gone again');
  });

  it('(b) other hooks and a statusLine: both kept (the statusLine through --chain), backup first; (d) a second run changes nothing; (e) --remove restores the bytes', async () => {
    const t = await setupEnv();
    const before =
      '{\n    "model": "opus",\n    "statusLine": {"type": "command", "command": "~/.claude/my status.sh", "padding": 0},\n' +
      '    "hooks": {\n      "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],\n' +
      '      "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]\n    },\n' +
      '    "permissions": {"allow": ["Bash(npm test)"]}\n}';
    await fs.writeFile(t.file, before);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^-    "statusLine"/m);
    assert.match(r.stdout, /kept: it runs first, through --chain/);
    const after = await t.read(t.file);
    assert.deepEqual(JSON.parse(after), {
      model: 'opus',
      statusLine: { type: 'command', command: `${t.q} statusline --chain '~/.claude/my status.sh'`, padding: 0 },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }],
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: 'echo hi' }] },
          { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 10 }] },
        ],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 5 }] }],
        PreCompact: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 30 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 3 }] }],
      },
      permissions: { allow: ['Bash(npm test)'] },
    });
    assert.match(after, /^\{\n {4}"model"/, "the file's indent is kept");
    assert.equal(await t.read(t.backup), before, 'the backup holds the exact previous bytes');

    const again = t.run();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already connected; nothing to change/);
    assert.equal(await t.read(t.file), after, 'idempotent');
    assert.equal(await t.read(t.backup), before, 'the backup of the first set-up is kept');

    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await t.read(t.file), before, 'exactly the previous state');
    assert.equal(await t.exists(t.backup), false);
    assert.match(removed.stdout, /restored the settings from before set-up/);
  });

  it('--remove after the user changed other settings keeps their change and the backup', async () => {
    const t = await setupEnv();
    await fs.writeFile(t.file, '{"model": "opus"}\n');
    assert.equal(t.run().code, 0);
    const edited = JSON.parse(await t.read(t.file));
    edited.model = 'sonnet';
    await fs.writeFile(t.file, JSON.stringify(edited, null, 2));
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(await t.read(t.file)), { model: 'sonnet' });
    assert.equal(await t.read(t.backup), '{"model": "opus"}\n');
    assert.match(removed.stdout, /changed since set-up/);
  });

  it('(c) invalid JSON: says where, writes nothing', async () => {
    const t = await setupEnv();
    const bad = '{\n  "model": "opus",\n  "hooks": {\n}\n';
    await fs.writeFile(t.file, bad);
    const r = t.run();
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`${t.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: invalid JSON`));
    assert.match(r.stderr, /nothing was written/);
    assert.equal(r.stdout, '');
    assert.equal(await t.read(t.file), bad);
    assert.equal(await t.exists(t.backup), false);
    const notObject = await setupEnv();
    await fs.writeFile(notObject.file, '[1]');
    assert.equal(notObject.run().code, 2);
    assert.equal(await notObject.read(notObject.file), '[1]');
  });

  it('SessionEnd gets an explicit short timeout (the hook answers at once), also where an older set-up wrote 30 s; --check says which hooks are there', async () => {
    const t = await setupEnv();
    const absent = t.run('--check');
    assert.equal(absent.code, 1);
    assert.match(absent.stdout, /^ {2}SessionEnd: absent$/m);
    await fs.writeFile(t.file, JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 30 }] }] } }));
    assert.equal(t.run().code, 0);
    const hooks = JSON.parse(await t.read(t.file)).hooks;
    assert.deepEqual(hooks.SessionEnd, [{ hooks: [{ type: 'command', command: `${t.q} hook`, timeout: 3 }] }]);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PreCompact']) assert.equal(typeof hooks[event][0].hooks[0].timeout, 'number', event);
    const present = t.run('--check');
    assert.equal(present.code, 0, present.stdout);
    assert.equal(present.stdout, `Claude Code hooks in ${t.file}:\n${['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd'].map((e) => `  ${e}: present (Claude Code runs it)\n`).join('')}`);
  });

  it('--project writes the workspace .claude/settings.json; --dry-run writes nothing', async () => {
    const t = await setupEnv();
    const ws = await makeTempDir('ws-');
    const dry = t.run('--project', '--dir', ws, '--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\+\+\+ .*\.claude[/\\]settings\.json/);
    assert.equal(await t.exists(path.join(ws, '.claude/settings.json')), false);
    assert.equal(t.run('--project', '--dir', ws).code, 0);
    assert.ok(JSON.parse(await t.read(path.join(ws, '.claude/settings.json'))).hooks.SessionStart);
    assert.equal(await t.exists(t.file), false, 'the user settings are untouched');
  });

  it('without handoff on PATH and no --launcher: says how to get one, writes nothing', async () => {
    const home = await makeTempDir('claude-home-');
    const r = handoff(['setup', 'claude'], { env: { ...process.env, CLAUDE_CONFIG_DIR: home, PATH: path.dirname(process.execPath) } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /`handoff` is not on PATH/);
    assert.deepEqual(await fs.readdir(home), []);
  });
});

describe('handoff setup codex, a Codex without hooks (real process, real files)', () => {
  it('adds the notify program at the top level, chains one of the user\'s own, and --remove restores the bytes', async () => {
    const home = await makeTempDir('codex-home-');
    const env = { ...process.env, CODEX_HOME: home };
    const file = path.join(home, 'config.toml');
    const before = 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n';
    await fs.writeFile(file, before);
    const r = handoff(['setup', 'codex', '--without-mcp', '--codex-version', '0.100.0', '--launcher', '/opt/handoff/handoff'], { env });
    assert.equal(r.code, 0, r.stderr);
    const after = await fs.readFile(file, 'utf8');
    assert.equal(after, 'model = "gpt-5"\nnotify = [ "/opt/handoff/handoff", "notify" ]\n\n[mcp_servers.docs]\ncommand = "docs-server"\n', 'with the other top-level keys');
    assert.equal(await fs.readFile(`${file}.handoff-backup`, 'utf8'), before);
    assert.equal(handoff(['setup', 'codex', '--without-mcp', '--codex-version', '0.100.0', '--launcher', '/opt/handoff/handoff'], { env }).code, 0);
    assert.equal(await fs.readFile(file, 'utf8'), after, 'idempotent');
    const removed = handoff(['setup', 'codex', '--without-mcp', '--remove'], { env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await fs.readFile(file, 'utf8'), before);

    const theirs = 'notify = ["my-notifier"]\n[tui]\nnotifications = true\n';
    await fs.writeFile(file, theirs);
    const chained = handoff(['setup', 'codex', '--without-mcp', '--codex-version', '0.100.0', '--launcher', '/opt/handoff/handoff'], { env });
    assert.equal(chained.code, 0, chained.stderr);
    assert.match(chained.stdout, /Your notify program \(my-notifier\) is kept: it runs first/);
    assert.equal(await fs.readFile(file, 'utf8'), 'notify = ["/opt/handoff/handoff", "notify", "--chain-json", "[\\"my-notifier\\"]"]\n[tui]\nnotifications = true\n');
    assert.equal(handoff(['setup', 'codex', '--without-mcp', '--remove'], { env }).code, 0);
    assert.equal(await fs.readFile(file, 'utf8'), theirs);
  });
});
