import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { scrubSession, scrubTaskFile } from '../../../src/core/workflow/secrets';
import { makeTempDir, repoRoot } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';
import { githubToken, stripeKey } from '../session/taskSecrets';
import { sameOutsideStars } from './scrubCheck';

const NOBODY = 65534;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const STARS = (n: number): string => '*'.repeat(n);

/** One Claude Code transcript line working in `cwd` whose user message says `text`. */
const line = (cwd: string, text: string, n = 0): string => JSON.stringify({ type: 'user', cwd, sessionId: 's1', uuid: `u${n}`, message: { role: 'user', content: text } });

/** A transcript of `lines` lines in `cwd` with a credential on every `every`-th line; returns the text and the keys. */
function transcript(cwd: string, lines: number, every: number): { text: string; keys: string[] } {
  const keys: string[] = [];
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    if (i % every === every - 1) {
      const key = stripeKey(700 + i);
      keys.push(key);
      out.push(line(cwd, `cat .env printed STRIPE_SECRET_KEY=${key} and more text after it`, i));
    } else out.push(line(cwd, `ordinary line ${i} with some words of the conversation in it`, i));
  }
  return { text: `${out.join('\n')}\n`, keys };
}

/** Where Claude Code keeps `cwd`'s transcripts, under a config dir of its own. */
async function projectDir(config: string, cwd: string): Promise<string> {
  const dir = path.join(config, 'projects', claudeProjectSlug(cwd));
  await fs.mkdir(dir, { recursive: true });
  return dir;
}

const secretsModule = (): string => path.join(repoRoot(), 'out', 'src', 'core', 'workflow', 'secrets.js');

/** A process appending one JSON line at a time to `file` through a descriptor it keeps open (as Codex does with its rollout). */
function appender(file: string): { child: ChildProcess; started: Promise<void>; stop: () => Promise<number> } {
  const code = `
    const fs = require('fs');
    const fd = fs.openSync(process.argv[1], 'a');
    let n = 0;
    const t = setInterval(() => {
      fs.writeSync(fd, JSON.stringify({ type: 'system', appended: n, text: 'appended while scrubbing ' + n }) + '\\n');
      if (++n === 1) process.stdout.write('go\\n');
    }, 1);
    process.stdin.on('data', () => { clearInterval(t); fs.closeSync(fd); process.stdout.write('count ' + n + '\\n'); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', code, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    waiters.splice(0).forEach((w) => w());
  });
  const until = (re: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve) => {
      const check = (): void => {
        const m = re.exec(out);
        if (m) resolve(m);
        else waiters.push(check);
      };
      check();
    });
  return {
    child,
    started: until(/go\n/).then(() => undefined),
    stop: async () => {
      child.stdin!.write('stop\n');
      return Number((await until(/count (\d+)\n/))[1]);
    },
  };
}

const appendedLines = (n: number): string => Array.from({ length: n }, (_, i) => `${JSON.stringify({ type: 'system', appended: i, text: `appended while scrubbing ${i}` })}\n`).join('');

describe('the scrub masks in place, byte for byte', function () {
  this.timeout(120_000);
  const make = tempRepos(workbenchRepo);

  it('keeps every line an agent appends through its open descriptor during the scrub, the inode, mode and owner, and changes only the credentials’ bytes', async () => {
    const dir = await makeTempDir('handoff-scrub-');
    const file = path.join(dir, 'session.jsonl');
    const { text, keys } = transcript('/home/dev/app', 60_000, 500);
    await fs.writeFile(file, text);
    await fs.chmod(file, 0o664);
    if (isRoot) await fs.chown(file, NOBODY, NOBODY);
    const before = await fs.stat(file);
    const w = appender(file);
    await w.started;
    const r = await scrubSession(file, { force: true });
    // Lines go on being appended after the scrub is done, through the same descriptor: wait for some more.
    const appended = async () => (await fs.readFile(file, 'utf8')).split('"appended":').length - 1;
    const atScrubEnd = await appended();
    for (let i = 0; i < 6000 && (await appended()) < atScrubEnd + 20; i++) await new Promise((res) => setTimeout(res, 10));
    const count = await w.stop();
    assert.deepEqual([r.kind, r.kind === 'scrubbed' ? r.masked : 0], ['scrubbed', keys.length], JSON.stringify(r));
    const after = await fs.readFile(file);
    const original = Buffer.from(text);
    const spans = sameOutsideStars(original, after.subarray(0, original.length));
    assert.equal(spans.length, keys.length, 'one masked span per credential');
    for (const [i, [s, e]] of spans.entries()) assert.equal(original.subarray(s, e).toString(), keys[i], 'exactly the credential’s bytes');
    assert.ok(atScrubEnd >= 1 && count >= atScrubEnd + 20, `the appender ran throughout: ${atScrubEnd} lines by the scrub's end, ${count} in all`);
    assert.equal(after.subarray(original.length).toString(), appendedLines(count), 'every appended line is there, in order');
    const st = await fs.stat(file);
    assert.deepEqual([st.ino, st.mode, st.uid, st.gid, st.nlink], [before.ino, before.mode, before.uid, before.gid, before.nlink]);
    assert.equal(st.mode & 0o777, 0o664);
    assert.deepEqual(await fs.readdir(dir), ['session.jsonl'], 'no copy beside it');
  });

  it('a scrub killed at any step leaves the file unchanged or masked credential by credential, never truncated, and no copy', async () => {
    const dir = await makeTempDir('handoff-scrub-kill-');
    const file = path.join(dir, 'session.jsonl');
    const { text, keys } = transcript('/home/dev/app', 12, 4);
    const original = Buffer.from(text);
    // Every read, write and flush of an open file is a step: the child kills itself just before the k-th.
    const code = `
      const fsp = require('fs').promises;
      const { scrubSession } = require(process.argv[1]);
      (async () => {
        const probe = await fsp.open(process.execPath, 'r');
        const proto = Object.getPrototypeOf(probe);
        await probe.close();
        let n = 0;
        for (const m of ['read', 'write', 'sync', 'stat', 'readFile', 'writeFile', 'close']) {
          const orig = proto[m];
          proto[m] = function (...a) { if (++n === Number(process.argv[3])) process.kill(process.pid, 'SIGKILL'); return orig.apply(this, a); };
        }
        const r = await scrubSession(process.argv[2], { force: true });
        process.stdout.write(JSON.stringify(r));
      })();
    `;
    const seen = new Set<number>();
    let halfway = 0;
    let k = 1;
    for (; k < 200; k++) {
      await fs.writeFile(file, original);
      const run = spawnSync(process.execPath, ['-e', code, secretsModule(), file, String(k)], { encoding: 'utf8' });
      const after = await fs.readFile(file);
      const spans = sameOutsideStars(original, after);
      // Each masked span is one whole credential: masked one by one, never half.
      for (const [s, e] of spans) assert.ok(keys.includes(original.subarray(s, e).toString()), `step ${k}: a span that is not one whole credential`);
      seen.add(spans.length);
      if (spans.length === 1 && !halfway) halfway = k;
      assert.deepEqual(await fs.readdir(dir), ['session.jsonl'], `step ${k}: no copy left`);
      if (run.signal !== 'SIGKILL') {
        assert.equal(run.status, 0, run.stderr);
        assert.equal(spans.length, keys.length, 'a scrub that ran to its end masked every credential');
        break;
      }
    }
    assert.ok(k > keys.length * 2, `killed at ${k - 1} steps`);
    assert.deepEqual([...seen].sort(), [0, 1, 2, 3], 'killed before any mask, between masks, and after the last');
    // Run again after a kill, the scrub finishes the job.
    await fs.writeFile(file, original);
    assert.equal(spawnSync(process.execPath, ['-e', code, secretsModule(), file, String(halfway)], { encoding: 'utf8' }).signal, 'SIGKILL');
    const r = await scrubSession(file, { force: true });
    assert.deepEqual([r.kind, r.kind === 'scrubbed' ? r.masked : 0], ['scrubbed', keys.length - 1]);
    assert.equal(sameOutsideStars(original, await fs.readFile(file)).length, keys.length);
  });

  it('keeps invalid UTF-8 bytes as they are, on the credential’s line too', async () => {
    const dir = await makeTempDir('handoff-scrub-utf8-');
    const file = path.join(dir, 'session.jsonl');
    const key = stripeKey(801);
    const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]);
    const original = Buffer.concat([
      Buffer.from(`${line('/w', 'hello')}\n{"type":"user","cwd":"/w","message":{"role":"user","content":"bytes `),
      bad,
      Buffer.from(` then STRIPE_SECRET_KEY=${key} é"}}\n{"type":"user","cwd":"/w","message":{"role":"user","content":"more `),
      bad,
      Buffer.from(` text"}}\n`),
    ]);
    await fs.writeFile(file, original);
    const r = await scrubSession(file, { force: true });
    assert.deepEqual([r.kind, r.kind === 'scrubbed' ? r.lines : []], ['scrubbed', [2]], JSON.stringify(r));
    const after = await fs.readFile(file);
    const spans = sameOutsideStars(original, after);
    assert.deepEqual(spans.map(([s, e]) => original.subarray(s, e).toString()), [key]);
    assert.equal(after.indexOf(bad), original.indexOf(bad), 'the invalid bytes are still there');
  });

  it('refuses a compressed rollout with the reason, and leaves it as it was', async () => {
    const dir = await makeTempDir('handoff-scrub-zst-');
    const file = path.join(dir, 'rollout-2026-11-20T16-00-00-019f8a3d-0000-7000-8000-000000000000.jsonl.zst');
    // A zstd frame's magic number, then bytes that happen to hold a credential's text.
    const original = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58]), Buffer.from(`${line('/w', `STRIPE_SECRET_KEY=${stripeKey(802)}`)}\n`)]);
    await fs.writeFile(file, original);
    const r = await scrubSession(file, { force: true });
    assert.equal(r.kind, 'refused');
    assert.match(r.kind === 'refused' ? r.reason : '', /^compressed \(zstd\): .*cannot be masked in place.*left as it was$/);
    assert.deepEqual(await fs.readFile(file), original);
  });

  it('removes the hidden copy an earlier scrub left beside the file when it was killed', async () => {
    const dir = await makeTempDir('handoff-scrub-left-');
    const file = path.join(dir, 'session.jsonl');
    const { text } = transcript('/w', 4, 2);
    await fs.writeFile(file, text);
    await fs.writeFile(path.join(dir, '.session.jsonl.scrub-4242.tmp'), text.slice(0, 100));
    await fs.writeFile(path.join(dir, '.other.jsonl.scrub-4242.tmp'), 'not this file’s');
    const r = await scrubSession(file, { force: true });
    assert.equal(r.kind, 'scrubbed');
    assert.equal(r.leftovers, 1);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['.other.jsonl.scrub-4242.tmp', 'session.jsonl']);
  });

  it('says "masked" only for what it masked: a credential rewritten on disk between reading and masking is left, with the reason', async () => {
    const dir = await makeTempDir('handoff-scrub-race-');
    const file = path.join(dir, 'session.jsonl');
    const key = stripeKey(803);
    const text = `${line('/w', `STRIPE_SECRET_KEY=${key}`)}\n`;
    await fs.writeFile(file, text);
    // The agent rewrites the credential's bytes just before the scrub reads them again to mask them.
    const replacement = githubToken(804).slice(0, key.length);
    const probe = await fs.open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as { read: (...a: unknown[]) => Promise<unknown> };
    await probe.close();
    const read = proto.read;
    proto.read = async function (this: unknown, ...a: unknown[]) {
      if (a[3] === text.indexOf(key) && a[2] === key.length) await fs.writeFile(file, text.replace(key, replacement), { flag: 'r+' });
      return read.apply(this, a);
    };
    let r;
    try {
      r = await scrubSession(file, { force: true });
    } finally {
      proto.read = read;
    }
    assert.equal(r.kind, 'refused', JSON.stringify(r));
    assert.match(r.kind === 'refused' ? r.reason : '', /^nothing masked: 1 changed on disk between reading and masking/);
    assert.equal(await fs.readFile(file, 'utf8'), text.replace(key, replacement), 'what the agent wrote is kept');
  });

  it('a symlinked transcript: `handoff secrets` lists it as the packet does, and --scrub masks the real file and keeps the link', async () => {
    const r = make();
    const config = await makeTempDir('handoff-claude-');
    const elsewhere = await makeTempDir('handoff-real-');
    const real = path.join(elsewhere, 'kept-here.jsonl');
    const key = stripeKey(805);
    const text = `${line(r.dir, 'hi')}\n${line(r.dir, `STRIPE_SECRET_KEY=${key}`)}\n`;
    await fs.writeFile(real, text);
    const link = path.join(await projectDir(config, r.dir), 'linked-0000.jsonl');
    await fs.symlink(real, link);
    const listed = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config]);
    assert.match(listed.stdout, /^1 credential found for /, listed.stdout);
    assert.match(listed.stdout, /Sessions read: .*linked-0000\.jsonl \(1\)/);
    const res = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--scrub', '--force']);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, /masked 1 credential in .*linked-0000\.jsonl \(line 2\)/);
    assert.ok((await fs.lstat(link)).isSymbolicLink(), 'still a link');
    assert.equal(await fs.readlink(link), real);
    assert.equal(await fs.readFile(real, 'utf8'), text.replace(key, STARS(key.length)));
    assert.deepEqual(await fs.readdir(path.dirname(link)), ['linked-0000.jsonl']);
  });

  it('a symlinked task file: the real file is masked and the link stays a link', async () => {
    const dir = await makeTempDir('handoff-task-link-');
    const real = path.join(dir, 'real-ui_messages.json');
    const key = stripeKey(806);
    const text = JSON.stringify([{ ts: 1, type: 'say', say: 'command_output', text: `STRIPE_SECRET_KEY=${key}\n` }]);
    await fs.writeFile(real, text);
    const link = path.join(dir, 'ui_messages.json');
    await fs.symlink(real, link);
    const r = await scrubTaskFile(link, { force: true, task: 'Cline task t1' });
    assert.deepEqual([r.kind, r.kind === 'scrubbed' ? r.messages : []], ['scrubbed', [0]], JSON.stringify(r));
    assert.ok((await fs.lstat(link)).isSymbolicLink());
    assert.equal(await fs.readFile(real, 'utf8'), text.replace(key, STARS(key.length)));
  });

  it('--scrub --dir …/app touches only that folder’s transcripts (and its subfolders’), never …/app-old, …/app-v2 or …/app.bak', async () => {
    const r = make();
    const config = await makeTempDir('handoff-claude-');
    const files = new Map<string, { file: string; text: string; key: string }>();
    for (const [i, cwd] of [r.dir, path.join(r.dir, 'sub'), `${r.dir}-old`, `${r.dir}-v2`, `${r.dir}.bak`].entries()) {
      const key = stripeKey(810 + i);
      const text = `${line(cwd, 'start')}\n${line(cwd, `STRIPE_SECRET_KEY=${key}`)}\n`;
      const file = path.join(await projectDir(config, cwd), `s${i}.jsonl`);
      await fs.writeFile(file, text);
      files.set(cwd, { file, text, key });
    }
    const listed = JSON.parse(handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--json']).stdout) as { sessions: { file: string }[] };
    assert.deepEqual(listed.sessions.map((s) => path.basename(s.file)).sort(), ['s0.jsonl', 's1.jsonl']);
    const res = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--scrub', '--force']);
    assert.equal(res.code, 0, res.stdout + res.stderr);
    for (const [cwd, f] of files) {
      const after = await fs.readFile(f.file, 'utf8');
      const ours = cwd === r.dir || cwd === path.join(r.dir, 'sub');
      assert.equal(after, ours ? f.text.replace(f.key, STARS(f.key.length)) : f.text, cwd);
    }
  });
});
