import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);
const read = (f: string) => fs.readFile(f, 'utf8');

/** What set-up writes into hooks.json, entry by entry (the shape of Codex's hooks docs). */
const OURS = {
  SessionStart: { matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: `${LAUNCHER} hook`, statusMessage: 'Loading handoff', timeout: 10 }] },
  UserPromptSubmit: { hooks: [{ type: 'command', command: `${LAUNCHER} hook`, timeout: 5 }] },
  PreCompact: { matcher: 'manual|auto', hooks: [{ type: 'command', command: `${LAUNCHER} hook`, timeout: 30 }] },
  Stop: { hooks: [{ type: 'command', command: `${LAUNCHER} hook`, timeout: 30 }] },
};

/**
 * A Codex home, and a PATH whose `codex` (a real executable) answers `--version` with `version`;
 * without a version, no codex is on PATH at all.
 */
async function codexEnv(version?: string) {
  const home = await makeTempDir('codex-home-');
  const bin = await makeTempDir('codex-bin-');
  if (version) await fs.writeFile(path.join(bin, 'codex'), `#!/bin/sh\necho "codex-cli ${version}"\n`, { mode: 0o755 });
  const env = { ...process.env, CODEX_HOME: home, PATH: [bin, path.dirname(process.execPath)].join(path.delimiter) };
  const config = path.join(home, 'config.toml');
  const hooks = path.join(home, 'hooks.json');
  const run = (...a: string[]) => handoff(['setup', 'codex', '--without-mcp', '--launcher', LAUNCHER, ...a], { env });
  return { home, bin, env, config, hooks, run };
}

/** A rollout as Codex writes it, whose session_meta says which CLI wrote it. */
async function rollout(home: string, day: string, cliVersion: string): Promise<string> {
  const [y, m, d] = day.split('-');
  const dir = path.join(home, 'sessions', y!, m!, d!);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `rollout-${day}T10-00-00-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68.jsonl`);
  await fs.writeFile(file, `${JSON.stringify({ timestamp: `${day}T10:00:00.000Z`, type: 'session_meta', payload: { id: '019f8a3c', cwd: '/w', cli_version: cliVersion } })}\n`);
  return file;
}

describe('handoff setup codex, a Codex with hooks (real process, real files)', () => {
  it('(a) no config: writes the four hooks into hooks.json (version from codex --version), nothing else; --remove deletes it again', async () => {
    const t = await codexEnv('0.142.4');
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Codex 0\.142\.4 \(from codex --version \(.*codex\)\) has hooks: connecting through hooks\.json/);
    assert.match(r.stdout, /open \/hooks in Codex and trust/);
    assert.equal(await read(t.hooks), `${JSON.stringify({ hooks: { SessionStart: [OURS.SessionStart], UserPromptSubmit: [OURS.UserPromptSubmit], PreCompact: [OURS.PreCompact], Stop: [OURS.Stop] } }, null, 2)}\n`);
    assert.equal(await exists(t.config), false, 'config.toml is not created');
    assert.equal(await exists(`${t.hooks}.handoff-backup`), false, 'nothing to back up');
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(await fs.readdir(t.home), [], 'as before set-up');
  });

  it('(b) their own hooks and notify are kept, backup first; (d) a second run changes nothing; (e) --remove restores the exact bytes', async () => {
    const t = await codexEnv('0.142.4');
    const hooksBefore = '{\n    "hooks": {\n        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],\n        "Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 5}]}]\n    }\n}\n';
    const configBefore = '# mine\nmodel = "gpt-5.5"\nnotify = ["my-notifier", "--quiet"] # keep\n\n[features]\nweb_search = true\n';
    await fs.writeFile(t.hooks, hooksBefore);
    await fs.writeFile(t.config, configBefore);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Your notify program in config\.toml is kept/);
    const after = await read(t.hooks);
    assert.deepEqual(JSON.parse(after), {
      hooks: {
        SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] }, OURS.SessionStart],
        Stop: [{ hooks: [{ type: 'command', command: 'say done', timeout: 5 }] }, OURS.Stop],
        UserPromptSubmit: [OURS.UserPromptSubmit],
        PreCompact: [OURS.PreCompact],
      },
    });
    assert.match(after, /^\{\n {4}"hooks"/, "the file's indent is kept");
    assert.equal(await read(`${t.hooks}.handoff-backup`), hooksBefore);
    assert.equal(await read(t.config), configBefore, 'config.toml (their notify) untouched');
    assert.equal(await exists(`${t.config}.handoff-backup`), false);

    const again = t.run();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already connected through its hooks; nothing to change/);
    assert.equal(await read(t.hooks), after, 'idempotent');

    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await read(t.hooks), hooksBefore, 'exactly the previous bytes');
    assert.equal(await exists(`${t.hooks}.handoff-backup`), false);
    assert.equal(await read(t.config), configBefore);
    const nothing = t.run('--remove');
    assert.match(nothing.stdout, /not in Codex's hooks\.json or config\.toml; nothing to remove/);
    assert.equal(await read(t.hooks), hooksBefore);
  });

  it('(c) a TOML or JSON parse error: says where, writes nothing', async () => {
    const t = await codexEnv('0.142.4');
    const badToml = 'model = "gpt-5.5"\nnotify = [\n';
    await fs.writeFile(t.config, badToml);
    const r = t.run();
    assert.equal(r.code, 2);
    assert.match(r.stderr, /config\.toml:\d+: invalid TOML.*nothing was written/);
    assert.equal(r.stdout, '');
    assert.equal(await exists(t.hooks), false);
    assert.equal(await read(t.config), badToml);

    const u = await codexEnv('0.142.4');
    const badJson = '{"hooks": {"Stop": [}\n';
    await fs.writeFile(u.hooks, badJson);
    const j = u.run();
    assert.equal(j.code, 2);
    assert.match(j.stderr, /hooks\.json(:\d+)?: invalid JSON.*nothing was written/);
    assert.equal(await read(u.hooks), badJson);
    assert.deepEqual((await fs.readdir(u.home)).sort(), ['hooks.json']);
  });

  it('an earlier notify set-up is replaced by the hooks when Codex gained them (config.toml back to its bytes)', async () => {
    const t = await codexEnv('0.100.0');
    const configBefore = 'model = "gpt-5"\n\n[tui]\nnotifications = true\n';
    await fs.writeFile(t.config, configBefore);
    const old = t.run();
    assert.equal(old.code, 0, old.stderr);
    assert.match(old.stdout, /Codex 0\.100\.0 .* predates the hooks Session Handoff uses \(0\.129\.0\): connecting through the notify program/);
    assert.match(await read(t.config), /notify = \[ "\/opt\/handoff\/handoff", "notify" \]/);
    assert.equal(await exists(t.hooks), false, 'no hooks for an old Codex');

    await fs.writeFile(path.join(t.bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.142.4"\n', { mode: 0o755 });
    const upgraded = t.run();
    assert.equal(upgraded.code, 0, upgraded.stderr);
    assert.match(upgraded.stdout, /notify program an earlier set-up wrote is taken out/);
    assert.equal(await read(t.config), configBefore, 'config.toml as before the first set-up');
    assert.equal(await exists(`${t.config}.handoff-backup`), false);
    assert.ok(JSON.parse(await read(t.hooks)).hooks.Stop);
  });

  it('a notify of their own that an old set-up chained is back in its place when Codex gains hooks', async () => {
    const t = await codexEnv('0.120.0');
    const configBefore = '# mine\nnotify = ["my-notifier", "--quiet"]\n';
    await fs.writeFile(t.config, configBefore);
    assert.equal(t.run().code, 0);
    assert.match(await read(t.config), /--chain-json/);
    await fs.writeFile(path.join(t.bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.142.4"\n', { mode: 0o755 });
    const upgraded = t.run();
    assert.equal(upgraded.code, 0, upgraded.stderr);
    assert.match(upgraded.stdout, /your own notify program is back in its place/);
    assert.equal(await read(t.config), configBefore);
    assert.ok(JSON.parse(await read(t.hooks)).hooks.SessionStart);
  });

  it('without codex on PATH, the newest rollout tells the version (old: notify; new: hooks)', async () => {
    const t = await codexEnv();
    await rollout(t.home, '2026-03-02', '0.142.4');
    await rollout(t.home, '2026-11-20', '0.101.0');
    const r = t.run('--dry-run');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Codex 0\.101\.0 \(from the newest rollout \(.*2026[/\\]11[/\\]20[/\\]rollout-.*\.jsonl\)\) predates the hooks/);
    assert.match(r.stdout, /^\+notify = /m);
    assert.deepEqual((await fs.readdir(t.home)).sort(), ['sessions'], '--dry-run writes nothing');

    const u = await codexEnv();
    await rollout(u.home, '2026-11-20', '0.142.5');
    const n = u.run('--dry-run');
    assert.match(n.stdout, /Codex 0\.142\.5 \(from the newest rollout .*\) has hooks/);
    assert.match(n.stdout, /^\+\+\+ .*hooks\.json$/m);
  });
});

describe('handoff notify with a chained notify program (real processes)', () => {
  it('runs the user\'s own program first with the same payload, as Codex would have', async () => {
    const t = await codexEnv('0.100.0');
    const seen = path.join(t.home, 'seen.txt');
    const mine = path.join(t.bin, 'my-notifier');
    await fs.writeFile(mine, `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(seen)}\n`, { mode: 0o755 });
    await fs.writeFile(t.config, `notify = [${JSON.stringify(mine)}, "--quiet"]\n`);
    const r = handoff(['setup', 'codex', '--without-mcp', '--launcher', path.join(repoRootBin(), 'handoff')], { env: t.env });
    assert.equal(r.code, 0, r.stderr);
    const notify = (parseToml(await read(t.config)) as { notify: string[] }).notify;
    assert.deepEqual(notify.slice(1), ['notify', '--chain-json', JSON.stringify([mine, '--quiet'])]);
    // Codex runs the notify argv with the payload as one more argument.
    const payload = JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 't-1', cwd: t.home });
    const ran = handoff([...notify.slice(1), payload], { env: t.env, cwd: t.home });
    assert.equal(ran.code, 0, ran.stderr);
    const got = await waitForFile(seen);
    assert.equal(got, `--quiet\n${payload}\n`);
  });
});

/** A folder name for the launcher (not run here: the test runs the CLI itself with the same arguments). */
const repoRootBin = (): string => '/opt/handoff';

async function waitForFile(file: string, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const text = await fs.readFile(file, 'utf8').catch(() => null);
    if (text) return text;
    if (Date.now() > until) throw new Error(`${file} was not written`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
