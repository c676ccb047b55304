import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { firstChainedLine, CHAIN_MAX_BYTES } from '../../../src/cli/commands/statusline';
import { LOCK_FILE, withLock } from '../../../src/core/registry/lock';
import { makeTempDir, repoRoot } from '../helpers/fixtures';

const node = process.execPath;

/** True when no live process has this pid (a zombie counts as gone). */
function gone(pid: number): boolean {
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat === '' || stat.startsWith('Z');
  } catch {
    return true;
  }
}

/** Polls `probe` every 50 ms until it gives a value, or gives up after `ms`. */
async function waitFor<T>(probe: () => Promise<T | null> | T | null, ms = 15_000): Promise<T | null> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('processes: chained statuslines, record, locks and temp files', function () {
  this.timeout(120_000);
  if (process.platform === 'win32') return;

  it('a chained statusLine command shows its first line only, at most 4 KB of it', () => {
    assert.equal(firstChainedLine(Buffer.from('model: opus\nsecond line\n')), 'model: opus');
    assert.equal(firstChainedLine(Buffer.from('x'.repeat(10_000))), 'x'.repeat(CHAIN_MAX_BYTES));
    // A character cut at the limit is dropped, not shown broken.
    assert.equal(firstChainedLine(Buffer.from(`${'x'.repeat(CHAIN_MAX_BYTES - 1)}é`)), 'x'.repeat(CHAIN_MAX_BYTES - 1));
  });

  it('statusline --chain survives `yes` and a 200 MB line: one capped line, then its own', () => {
    const dir = repoRoot();
    const stdin = JSON.stringify({ session_id: 's', cwd: '/nonexistent-dir-for-chain', transcript_path: '/nonexistent.jsonl' });
    for (const chain of ['yes', "head -c 200000000 /dev/zero | tr '\\0' x"]) {
      const r = spawnSync(node, [path.join(dir, 'dist', 'cli.js'), 'statusline', '--chain', chain], { input: stdin, encoding: 'utf8', timeout: 30_000, maxBuffer: 8 * 1024 * 1024 });
      assert.equal(r.status, 0, `${chain}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      const lines = r.stdout.split('\n');
      assert.equal(lines.length, 3, chain);
      assert.equal(lines[0], chain === 'yes' ? 'y' : 'x'.repeat(CHAIN_MAX_BYTES));
      assert.match(lines[1]!, /^ctx /);
    }
  });

  it('kill -9 of `handoff record`\'s process group takes the command with it', async () => {
    const dir = await makeTempDir('record-group-');
    const pidFile = path.join(dir, 'cmd.pid');
    const main = path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');
    // `record` leads its own group here, as it does under a shell's job control.
    const rec = spawn(node, [main, 'record', '--', 'sh', '-c', `echo $$ > ${JSON.stringify(pidFile)}; exec sleep 120`], { cwd: dir, detached: true, stdio: 'ignore' });
    let pid: number | null = null;
    try {
      pid = await waitFor(async () => Number(await fs.readFile(pidFile, 'utf8').catch(() => '')) || null);
      assert.ok(pid, 'the command started');
      process.kill(-rec.pid!, 'SIGKILL');
      const died = await waitFor(() => (gone(pid!) ? true : null), 10_000);
      assert.equal(died, true, `the command ${pid} outlived handoff record`);
    } finally {
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    }
  });

  /** A live process to hold a lock: a `sleep` started now. */
  function holder(): { pid: number; stop(): void } {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    return { pid: child.pid!, stop: () => child.kill('SIGKILL') };
  }

  it('a lock with a future timestamp is judged by its holder\'s start time, and goes stale', async () => {
    const dir = await makeTempDir('lock-future-');
    const h = holder();
    try {
      await fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: h.pid, at: Date.now() + 365 * 24 * 3600_000, nonce: 'x' }));
      let ran = false;
      await withLock(dir, async () => {
        ran = true;
      }, { staleMs: 1000, timeoutMs: 60_000 });
      assert.equal(ran, true);
    } finally {
      h.stop();
    }
  });

  it('a lock older than its holder (the pid was reused) is stale at once', async () => {
    const dir = await makeTempDir('lock-reused-');
    const h = holder();
    try {
      await new Promise((r) => setTimeout(r, 200));
      await fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: h.pid, at: Date.now() - 30_000, nonce: 'x' }));
      // Not stale by its age (30 s of 60) and the wait ends before that: only the holder's start time can free it.
      let ran = false;
      await withLock(dir, async () => void (ran = true), { staleMs: 60_000, timeoutMs: 20_000 });
      assert.equal(ran, true);
    } finally {
      h.stop();
    }
  });

  it('temp files and set-aside locks of a killed run are removed by the next run; a live run\'s stay', async () => {
    const dir = await makeTempDir('leftovers-');
    const dead = spawnSync('true').pid;
    const h = holder();
    try {
      await fs.mkdir(path.join(dir, 'sess-a'));
      const left = [`.handoff.json.${dead}.lx5k2a0.tmp`, `sess-a/.handoff.md.${dead}.lx5k2a1.tmp`, `.lock.stale.${dead}.0a1b2c3d`];
      const live = [`.handoff.json.${h.pid}.lx5k2a2.tmp`, 'sess-a/handoff.json', 'notes.tmp'];
      for (const f of [...left, ...live]) await fs.writeFile(path.join(dir, f), 'x');
      await withLock(dir, async () => undefined);
      for (const f of left) assert.equal(await fs.stat(path.join(dir, f)).then(() => true, () => false), false, f);
      for (const f of live) assert.equal(await fs.stat(path.join(dir, f)).then(() => true, () => false), true, f);
    } finally {
      h.stop();
    }
  });
});
