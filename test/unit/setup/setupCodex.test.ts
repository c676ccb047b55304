import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import { codexHookTrust } from '../../../src/core/setup/codexTrust';
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
    assert.match(r.stdout, /^Codex will ask you to approve the new or changed Session Handoff hooks: open \/hooks in Codex and trust them/m);
    assert.equal(await read(t.hooks), `${JSON.stringify({ hooks: { SessionStart: [OURS.SessionStart], UserPromptSubmit: [OURS.UserPromptSubmit], PreCompact: [OURS.PreCompact], Stop: [OURS.Stop] } }, null, 2)}\n`);
    assert.equal(await read(t.config), '[features]\nhooks = true\n', 'the canonical flag, and nothing else');
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
    assert.equal(await read(t.config), `${configBefore}hooks = true\n`, 'config.toml: their notify untouched, the hooks flag added to their [features]');
    assert.equal(await read(`${t.config}.handoff-backup`), configBefore);

    const again = t.run();
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already connected through its hooks; nothing to change/);
    assert.equal(await read(t.hooks), after, 'idempotent');

    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await read(t.hooks), hooksBefore, 'exactly the previous bytes');
    assert.equal(await exists(`${t.hooks}.handoff-backup`), false);
    assert.equal(await read(t.config), configBefore, 'config.toml: exactly the previous bytes');
    assert.equal(await exists(`${t.config}.handoff-backup`), false);
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

  it('an earlier notify set-up is replaced by the hooks when Codex gained them (config.toml back to its bytes, plus the hooks flag)', async () => {
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
    assert.equal(await read(t.config), `${configBefore}\n[features]\nhooks = true\n`, 'config.toml as before the first set-up, with the hooks flag');
    assert.ok(JSON.parse(await read(t.hooks)).hooks.Stop);
    assert.equal(t.run('--remove').code, 0);
    assert.equal(await read(t.config), configBefore, '--remove: the bytes before the first set-up');
    assert.equal(await exists(`${t.config}.handoff-backup`), false);
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
    assert.equal(await read(t.config), `${configBefore}\n[features]\nhooks = true\n`);
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

describe('handoff setup codex: the hooks flag, SessionEnd and trust (real process, real files)', () => {
  /** Records the trust of every hook of ours as Codex's /hooks does when the user approves them. */
  async function approveAll(t: Awaited<ReturnType<typeof codexEnv>>): Promise<void> {
    const statuses = codexHookTrust(t.hooks, JSON.parse(await read(t.hooks)), parseToml(await read(t.config)) as Record<string, unknown>);
    const state = statuses.map((s) => `[hooks.state.${JSON.stringify(s.key)}]\nenabled = true\ntrusted_hash = "${s.hash}"\n`).join('\n');
    await fs.appendFile(t.config, `\n${state}`);
  }

  it('--check: present but not trusted until approved in /hooks, then trusted; a changed hook is no longer trusted, and set-up says Codex will ask again', async () => {
    const t = await codexEnv('0.146.0');
    const first = t.run();
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(await read(t.hooks)).hooks.SessionEnd, [{ hooks: [{ type: 'command', command: `${LAUNCHER} hook`, timeout: 3 }] }], 'SessionEnd within Codex\'s 3 s');
    const before = t.run('--check');
    assert.equal(before.code, 1);
    assert.match(before.stdout, /^ {2}SessionStart: present, not trusted yet: Codex does not run it until you approve it in \/hooks$/m);
    assert.match(before.stdout, /^ {2}SessionEnd: present, not trusted yet/m);

    await approveAll(t);
    const trusted = t.run('--check');
    assert.equal(trusted.code, 0, trusted.stdout);
    assert.equal((trusted.stdout.match(/present, trusted \(Codex runs it\)/g) ?? []).length, 5, trusted.stdout);
    const again = t.run();
    assert.doesNotMatch(again.stdout, /Codex will ask you to approve/, 'nothing changed: no approval needed');

    // Another launcher changes every command, so every hash: Codex stops running them until approved again.
    const moved = handoff(['setup', 'codex', '--launcher', '/usr/local/bin/handoff'], { env: t.env });
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal((moved.stdout.match(/Codex will ask you to approve/g) ?? []).length, 1, 'said once');
    const after = t.run('--check');
    assert.equal(after.code, 1);
    assert.match(after.stdout, /^ {2}Stop: present, changed since you trusted it: Codex does not run it until you approve it again in \/hooks$/m);
  });

  it('[features]: hooks = true is added beside a legacy codex_hooks = true (kept: older Codex reads only it); hooks turned off are left off, said and checked', async () => {
    const t = await codexEnv('0.146.0');
    await fs.writeFile(t.config, '[features]\ncodex_hooks = true\n');
    assert.equal(t.run().code, 0);
    assert.equal(await read(t.config), '[features]\ncodex_hooks = true\nhooks = true\n');
    assert.equal(t.run('--remove').code, 0);
    assert.equal(await read(t.config), '[features]\ncodex_hooks = true\n', '--remove: as before');

    const u = await codexEnv('0.146.0');
    const off = '[features]\nhooks = false\n';
    await fs.writeFile(u.config, off);
    const r = u.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Codex hooks are turned off in .*config\.toml \(\[features\] hooks = false\)/);
    assert.equal(await read(u.config), off, 'their choice is kept');
    const c = u.run('--check');
    assert.equal(c.code, 1);
    assert.match(c.stdout, /\[features\] turns hooks off/);
  });

  it('setup --check alone looks at both agents: fine when each one connected has all its hooks, trusted', async () => {
    const t = await codexEnv('0.146.0');
    const env = { ...t.env, CLAUDE_CONFIG_DIR: await makeTempDir('claude-cfg-') };
    const check = () => handoff(['setup', '--check'], { env });
    const nothing = check();
    assert.equal(nothing.code, 1, 'nothing connected');
    assert.match(nothing.stdout, /^Claude Code hooks in .*settings\.json:$/m);
    assert.match(nothing.stdout, /^Codex hooks in .*hooks\.json/m);
    assert.equal(t.run().code, 0);
    assert.equal(check().code, 1, 'Codex connected but not trusted yet');
    await approveAll(t);
    assert.equal(check().code, 0, 'Codex complete and trusted; Claude Code not used');
    assert.equal(handoff(['setup'], { env }).code, 2, 'without --check the agent must be named');
  });

  it('a Codex before 0.145 gets no SessionEnd hook', async () => {
    const t = await codexEnv('0.144.0');
    assert.equal(t.run().code, 0);
    assert.deepEqual(Object.keys(JSON.parse(await read(t.hooks)).hooks), ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'Stop']);
    assert.doesNotMatch(t.run('--check').stdout, /SessionEnd/);
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
