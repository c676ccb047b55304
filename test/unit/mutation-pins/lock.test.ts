import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { LOCK_FILE, LockTimeoutError, withLock } from '../../../src/core/registry/lock';
import { makeTempDir } from '../helpers/fixtures';

const NOBODY = 65534;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const lockText = (pid: number, at: number, nonce: string) => JSON.stringify({ pid, at, nonce });
const outcome = <T>(p: Promise<T>): Promise<T | Error> => p.then((v) => v, (e: unknown) => e as Error);

/**
 * Runs `body` on a dir anyone may write in, so a run with another user's rights can lock it. It lies in
 * /tmp itself: the tests' own temp root may be closed to other users.
 */
async function inSharedDir(body: (dir: string) => Promise<void>): Promise<void> {
  const root = await fsp.mkdtemp('/tmp/lock-pins-');
  try {
    await fsp.chmod(root, 0o755);
    const dir = path.join(root, 'shared');
    await fsp.mkdir(dir);
    await fsp.chmod(dir, 0o777);
    await body(dir);
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}

/** Runs `fn` with an ordinary user's rights (root only: the effective uid is switched and restored). */
async function unprivileged<T>(fn: () => Promise<T>): Promise<T> {
  if (!isRoot) return fn();
  process.seteuid!(NOBODY);
  try {
    return await fn();
  } finally {
    process.seteuid!(0);
  }
}

/** Runs `body` with the wall clock stopped at `at` (timers still run). */
async function atFrozenTime<T>(at: number, body: () => Promise<T>): Promise<T> {
  const real = Date.now;
  Date.now = () => at;
  try {
    return await body();
  } finally {
    Date.now = real;
  }
}

/** Runs `body` with one of the fs promise functions wrapped, to place another run's step in between. */
async function withFsStep<K extends 'rename' | 'readFile', T>(name: K, wrap: (orig: (typeof fsp)[K]) => (typeof fsp)[K], body: () => Promise<T>): Promise<T> {
  const orig = fsp[name];
  fsp[name] = wrap(orig.bind(fsp) as (typeof fsp)[K]);
  try {
    return await body();
  } finally {
    fsp[name] = orig;
  }
}

describe('the output-dir lock: holders, staleness and release', () => {
  it("counts a holder owned by another user as alive (the system refuses to signal it), so waits", async function () {
    if (process.platform === 'win32') this.skip();
    let holder: number;
    let child: ReturnType<typeof spawn> | undefined;
    if (isRoot) {
      child = spawn('sleep', ['30'], { uid: NOBODY - 1, gid: NOBODY - 1, stdio: 'ignore' });
      holder = child.pid as number;
    } else {
      holder = 1;
      try {
        process.kill(1, 0);
        this.skip(); // pid 1 is ours: no process of another user to point at
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EPERM') this.skip();
      }
    }
    try {
      await inSharedDir(async (dir) => {
        const file = path.join(dir, LOCK_FILE);
        const theirs = lockText(holder, Date.now(), 'theirs');
        await fsp.writeFile(file, theirs, { mode: 0o666 });
        const err = await unprivileged(() => outcome(withLock(dir, async () => 'ran', { timeoutMs: 150 })));
        assert.ok(err instanceof LockTimeoutError, String(err));
        assert.equal(err.message, `Another handoff run (pid ${holder}) holds ${file}; try again in a moment.`);
        assert.equal(await fsp.readFile(file, 'utf8'), theirs);
      });
    } finally {
      child?.kill();
    }
  });

  it('fails at once, with the system error, when the lock file cannot be created', async function () {
    if (process.platform === 'win32') this.skip();
    await inSharedDir(async (dir) => {
      await fsp.chmod(dir, 0o555);
      const err = await unprivileged(() => outcome(withLock(dir, async () => 'ran', { timeoutMs: 2_000 })));
      assert.ok(err instanceof Error && !(err instanceof LockTimeoutError), String(err));
      assert.equal((err as NodeJS.ErrnoException).code, 'EACCES');
    });
  });

  it('gives up after timeoutMs on a lock it cannot read instead of waiting for ever', async () => {
    const dir = await makeTempDir('lock-pins-');
    await fsp.mkdir(path.join(dir, LOCK_FILE));
    const err = await outcome(withLock(dir, async () => 'ran', { timeoutMs: 100 }));
    assert.ok(err instanceof LockTimeoutError, String(err));
    // Not "try again": waiting cannot help, the user has to remove it.
    assert.equal(err.message, `${path.join(dir, LOCK_FILE)} is in the way and cannot be read as a lock (a folder, or another user's file); remove it if no handoff run is going on.`);
  });

  it('a live lock is stale only when older than staleMs, a torn one only when older than 2 s', async () => {
    const now = 1_800_000_000_000;
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    const tryOnce = (opts: { staleMs?: number }) => outcome(withLock(dir, async () => 'ran', { ...opts, timeoutMs: -1 }));
    await atFrozenTime(now, async () => {
      await fsp.writeFile(file, lockText(process.pid, now - 5_000, 'live'));
      assert.ok((await tryOnce({ staleMs: 5_000 })) instanceof LockTimeoutError);
      await fsp.writeFile(file, lockText(process.pid, now - 5_001, 'live'));
      assert.equal(await tryOnce({ staleMs: 5_000 }), 'ran');
      await fsp.writeFile(file, '{"pid": ');
      await fsp.utimes(file, (now - 2_000) / 1000, (now - 2_000) / 1000);
      assert.ok((await tryOnce({})) instanceof LockTimeoutError);
      await fsp.utimes(file, (now - 2_001) / 1000, (now - 2_001) / 1000);
      assert.equal(await tryOnce({}), 'ran');
    });
  });

  it('keeps waiting until the deadline has passed, not merely been reached', async () => {
    const now = 1_800_000_000_000;
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    await fsp.writeFile(file, lockText(process.pid, now, 'live'));
    const released = new Promise<void>((resolve) => setTimeout(() => void fsp.rm(file).then(resolve), 300));
    // With the clock stopped the deadline (now + 0) is reached but never passed: the run waits for the holder.
    const result = await atFrozenTime(now, () => outcome(withLock(dir, async () => 'ran', { timeoutMs: 0 })));
    await released;
    assert.equal(result, 'ran');
  });

  it('puts back a fresh lock that another run took between seeing the stale one and moving it aside', async () => {
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await fsp.writeFile(file, lockText(dead, Date.now(), 'stale'));
    const fresh = lockText(process.pid, Date.now(), 'fresh');
    const err = await withFsStep(
      'rename',
      (rename) => (async (from: string, to: string) => {
        if (from === file) await fsp.writeFile(file, fresh);
        return rename(from, to);
      }) as typeof fsp.rename,
      () => outcome(withLock(dir, async () => 'ran', { timeoutMs: 150 })),
    );
    assert.ok(err instanceof LockTimeoutError, String(err));
    assert.equal(await fsp.readFile(file, 'utf8'), fresh);
    assert.deepEqual(await fsp.readdir(dir), [LOCK_FILE]);
  });

  it('takes over a stale lock even when the file it moved aside is gone by the time it looks', async () => {
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await fsp.writeFile(file, lockText(dead, Date.now(), 'stale'));
    const result = await withFsStep(
      'rename',
      (rename) => (async (from: string, to: string) => {
        await rename(from, to);
        if (from === file) await fsp.rm(to);
      }) as typeof fsp.rename,
      () => outcome(withLock(dir, async () => 'ran', { timeoutMs: 2_000 })),
    );
    assert.equal(result, 'ran');
    assert.deepEqual(await fsp.readdir(dir), []);
  });

  it('a run whose lock is removed by someone else just as it releases it still returns its result', async () => {
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    let done = false;
    const result = await withFsStep(
      'readFile',
      (readFile) => (async (...args: Parameters<typeof fsp.readFile>) => {
        const text = await readFile(...args);
        if (done && args[0] === file) await fsp.rm(file);
        return text;
      }) as typeof fsp.readFile,
      () => outcome(withLock(dir, async () => { done = true; return 'ran'; })),
    );
    assert.equal(result, 'ran');
  });

  it('closes the lock file it wrote (no descriptor is left pointing at it)', async function () {
    if (!existsSync('/proc/self/fd')) this.skip();
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    const openOnLock = async () => {
      const targets = await Promise.all((await fsp.readdir('/proc/self/fd')).map((fd) => fsp.readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return targets.filter((t) => t.startsWith(file)).length;
    };
    assert.equal(await withLock(dir, openOnLock), 0);
    assert.equal(await openOnLock(), 0);
  });
});
