import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { applyPlan } from '../../../src/core/setup/apply';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const mode = async (f: string) => (await fs.stat(f)).mode & 0o777;
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);

/** A PATH whose `codex` answers `--version` with `version` (a real executable, as an installed CLI). */
async function codexOnPath(version: string): Promise<string> {
  const bin = await makeTempDir('codex-bin-');
  await fs.writeFile(path.join(bin, 'codex'), `#!/bin/sh\necho "codex-cli ${version}"\n`, { mode: 0o755 });
  return `${bin}${path.delimiter}${process.env['PATH'] ?? ''}`;
}

async function claudeEnv() {
  const home = await makeTempDir('claude-home-');
  const env = { ...process.env, CLAUDE_CONFIG_DIR: home };
  const file = path.join(home, 'settings.json');
  return { home, file, backup: `${file}.handoff-backup`, run: (...a: string[]) => handoff(['setup', 'claude', '--launcher', LAUNCHER, ...a], { env }) };
}

async function oldCodexEnv() {
  const home = await makeTempDir('codex-home-');
  const env = { ...process.env, CODEX_HOME: home, PATH: await codexOnPath('0.100.0') };
  const file = path.join(home, 'config.toml');
  return { home, file, backup: `${file}.handoff-backup`, run: (...a: string[]) => handoff(['setup', 'codex', '--without-mcp', '--launcher', LAUNCHER, ...a], { env }) };
}

describe('handoff setup keeps permissions, links and the user\'s own entries (real process, real files)', () => {
  it('a private settings file gets a private backup, and a 0644 one a backup no wider than 0600', async () => {
    for (const m of [0o600, 0o644]) {
      const t = await claudeEnv();
      await fs.writeFile(t.file, '{"env": {"API_KEY": "x"}}\n');
      await fs.chmod(t.file, m);
      assert.equal(t.run().code, 0);
      assert.equal(await mode(t.backup), 0o600, `backup of a ${m.toString(8)} file`);
      assert.equal(await mode(t.file), m, 'the file keeps its own mode');
      const left = (await fs.readdir(t.home)).filter((f) => f.endsWith('.tmp'));
      assert.deepEqual(left, [], 'no temp file stays');
    }
    const c = await oldCodexEnv();
    await fs.writeFile(c.file, 'model = "gpt-5"\n', { mode: 0o600 });
    assert.equal(c.run().code, 0, 'codex');
    assert.equal(await mode(c.backup), 0o600, 'codex backup');
  });

  it('the temp files of a write already have the private mode (a run killed before the rename leaves no wider copy)', async () => {
    const dir = await makeTempDir('settings-');
    const file = path.join(dir, 'settings.json');
    await fs.writeFile(file, '{"env": {"API_KEY": "x"}}\n', { mode: 0o600 });
    await fs.chmod(file, 0o600);
    const seen: { name: string; mode: number }[] = [];
    // Observe each temp file at the moment it would be renamed into place (where a kill could leave it).
    const rename = fs.rename;
    fs.rename = async (from, to) => {
      seen.push({ name: path.basename(String(from)), mode: (await fs.stat(from)).mode & 0o777 });
      return rename(from, to);
    };
    try {
      await applyPlan({ file, before: '{"env": {"API_KEY": "x"}}\n', after: '{"env": {"API_KEY": "x"}, "model": "opus"}\n', backupFile: `${file}.handoff-backup`, writeBackup: '{"env": {"API_KEY": "x"}}\n', removeBackup: false, notes: [] });
    } finally {
      fs.rename = rename;
    }
    assert.equal(seen.length, 2, 'the backup and the file, each through a temp file');
    for (const s of seen) assert.equal(s.mode, 0o600, `${s.name} is ${s.mode.toString(8)}`);
  });

  it('a symlinked settings file is edited through the link: the target changes, the link stays, also on --remove', async () => {
    const t = await claudeEnv();
    const dotfiles = await makeTempDir('dotfiles-');
    const target = path.join(dotfiles, 'claude-settings.json');
    const before = '{\n  "model": "opus"\n}\n';
    await fs.writeFile(target, before);
    await fs.symlink(target, t.file);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await fs.lstat(t.file)).isSymbolicLink(), 'the link is kept');
    assert.equal(await fs.readlink(t.file), target);
    assert.ok(JSON.parse(await fs.readFile(target, 'utf8')).hooks.SessionEnd, 'the target got the change');
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok((await fs.lstat(t.file)).isSymbolicLink(), 'the link is kept by --remove');
    assert.equal(await fs.readFile(target, 'utf8'), before, 'the target is as it was');
  });

  it('a link to a settings file that does not exist yet: set-up creates the target, --remove deletes it and keeps the link', async () => {
    const t = await claudeEnv();
    const target = path.join(await makeTempDir('dotfiles-'), 'claude-settings.json');
    await fs.symlink(target, t.file);
    assert.equal(t.run().code, 0);
    assert.ok((await fs.lstat(t.file)).isSymbolicLink());
    assert.ok(JSON.parse(await fs.readFile(target, 'utf8')).hooks.SessionStart);
    assert.equal(t.run('--remove').code, 0);
    assert.ok((await fs.lstat(t.file)).isSymbolicLink(), 'the link is kept');
    assert.equal(await exists(target), false, 'the target set-up made is gone');
  });

  it('a read-only settings file is refused with a clear message; nothing is written', async () => {
    const t = await claudeEnv();
    const before = '{"model": "opus"}\n';
    await fs.writeFile(t.file, before);
    await fs.chmod(t.file, 0o444);
    const r = t.run();
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /read-only.*nothing was written/);
    assert.equal(await fs.readFile(t.file, 'utf8'), before);
    assert.equal(await mode(t.file), 0o444);
    assert.equal(await exists(t.backup), false);
  });

  it('--remove with nothing to remove writes nothing (the file keeps its bytes and its time)', async () => {
    const t = await claudeEnv();
    const before = '{"model":"opus",   "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}';
    await fs.writeFile(t.file, before);
    const old = new Date('2026-01-01T00:00:00Z');
    await fs.utimes(t.file, old, old);
    const r = t.run('--remove');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /not in these settings; nothing to remove/);
    assert.doesNotMatch(r.stdout, /^wrote /m);
    assert.equal(await fs.readFile(t.file, 'utf8'), before);
    assert.equal((await fs.stat(t.file)).mtimeMs, old.getTime());
  });

  it("a user's own command that merely contains `handoff hook` is left alone by setup and --remove", async () => {
    const t = await claudeEnv();
    const theirs = 'handoff hook --output-dir ~/handoffs && notify-send done';
    const before = `${JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: theirs }] }] } }, null, 2)}\n`;
    await fs.writeFile(t.file, before);
    assert.equal(t.run().code, 0);
    const after = JSON.parse(await fs.readFile(t.file, 'utf8'));
    const commands = after.hooks.SessionEnd.flatMap((g: { hooks: { command: string }[] }) => g.hooks.map((h) => h.command));
    assert.ok(commands.includes(theirs), 'their command is kept as it was');
    assert.ok(commands.includes(`${LAUNCHER} hook`), 'ours is added next to it');
    assert.equal(t.run('--remove').code, 0);
    assert.equal(await fs.readFile(t.file, 'utf8'), before, '--remove keeps theirs and restores the bytes');
  });

  describe('setup codex (Codex without hooks: the notify program) always leaves valid TOML with one notify', () => {
    const marker = '# Session Handoff: regenerates the handoff after each turn past the wrap-up threshold (remove: handoff setup codex --remove)';
    // Their own notify program is chained (ours runs it first), never duplicated; --remove puts it back.
    const shapes: Record<string, { text: string; theirs: string[] }> = {
      'after a multi-line string with a line starting [': { text: 'model_instructions = """\nBe brief.\n[not a table]\n"""\nnotify = ["my-notifier"]\n\n[tui]\nnotifications = true\n', theirs: ['my-notifier'] },
      'a quoted key "notify"': { text: '"notify" = ["my-notifier", "--flag"]\nmodel = "gpt-5"\n', theirs: ['my-notifier', '--flag'] },
      "a quoted key 'notify'": { text: "'notify' = [\"my-notifier\"]\nmodel = \"gpt-5\"\n", theirs: ['my-notifier'] },
    };
    for (const [name, { text, theirs }] of Object.entries(shapes)) {
      it(name, async () => {
        const t = await oldCodexEnv();
        await fs.writeFile(t.file, text);
        const r = t.run();
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /Your notify program .* is kept: it runs first/);
        const after = await fs.readFile(t.file, 'utf8');
        const parsed = parseToml(after) as Record<string, unknown>; // throws on a key defined twice
        assert.deepEqual(parsed['notify'], [LAUNCHER, 'notify', '--chain-json', JSON.stringify(theirs)]);
        assert.equal(after.match(/^\s*["']?notify["']?\s*=/gm)?.length, 1, 'one notify');
        const rest = { ...(parseToml(text) as Record<string, unknown>) };
        delete rest['notify'];
        delete parsed['notify'];
        assert.deepEqual(JSON.parse(JSON.stringify(parsed)), JSON.parse(JSON.stringify(rest)), 'everything else as it was');
        assert.equal(t.run().code, 0);
        assert.equal(await fs.readFile(t.file, 'utf8'), after, 'a second run changes nothing');
        const removed = t.run('--remove');
        assert.equal(removed.code, 0, removed.stderr);
        assert.equal(await fs.readFile(t.file, 'utf8'), text, 'their notify back, byte for byte');
      });
    }

    it('an array of arrays under our old marker: not a program that can be chained, refused, nothing written', async () => {
      const text = `${marker}\nnotify = [\n  ["my-notifier"],\n  ["--flag"],\n]\nmodel = "gpt-5"\n`;
      const t = await oldCodexEnv();
      await fs.writeFile(t.file, text);
      const r = t.run();
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, /already has a notify program .* not a list of strings/);
      const after = await fs.readFile(t.file, 'utf8');
      assert.ok(Array.isArray((parseToml(after) as Record<string, unknown>)['notify']), 'valid TOML');
      assert.equal(after.match(/^\s*["']?notify["']?\s*=/gm)?.length, 1, 'one notify');
      assert.equal(after, text);
    });

    it('our own notify under a quoted key is updated in place, not added twice', async () => {
      const t = await oldCodexEnv();
      const text = `# my config\n"notify" = ["/old/place/handoff", "notify"] # keep me\nmodel = "gpt-5"\n`;
      await fs.writeFile(t.file, text);
      const r = t.run();
      assert.equal(r.code, 0, r.stderr);
      const after = await fs.readFile(t.file, 'utf8');
      assert.deepEqual((parseToml(after) as Record<string, unknown>)['notify'], [LAUNCHER, 'notify']);
      assert.equal(after.match(/notify"?\s*=/g)?.length, 1);
      assert.match(after, /^# my config\n/, 'comments are kept');
      assert.match(after, /model = "gpt-5"/);
    });

    it('a config that is not valid TOML: says where, writes nothing', async () => {
      const t = await oldCodexEnv();
      const bad = 'model = "gpt-5"\n[tui\nnotifications = true\n';
      await fs.writeFile(t.file, bad);
      const r = t.run();
      assert.equal(r.code, 2);
      assert.match(r.stderr, /config\.toml:\d+: .*nothing was written/);
      assert.equal(await fs.readFile(t.file, 'utf8'), bad);
      assert.equal(await exists(t.backup), false);
    });
  });
});
