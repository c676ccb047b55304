import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { makeDir } from '../safeDirs';

/** The lock file in the output dir; one of the tool's own outputs. */
export const LOCK_FILE = '.lock';

export interface LockOptions {
  /** A lock older than this is stale even when its pid looks alive (pid reuse, another machine). */
  staleMs?: number;
  /** Give up waiting after this long. */
  timeoutMs?: number;
}

interface LockContent {
  pid: number;
  at: number;
  nonce: string;
}

export class LockTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LockTimeoutError';
  }
}

/** True when a process with this pid exists (EPERM: it does, but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A clock difference between processes that still counts as "now". */
const CLOCK_SKEW_MS = 5_000;

/**
 * When a live process started (ms since the epoch), from `/proc` on Linux; null where that cannot be
 * read. Ticks are taken at the usual 100 per second.
 */
export function processStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!Number.isFinite(ticks) || !btime) return null;
    return Number(btime[1]) * 1000 + ticks * 10;
  } catch {
    return null;
  }
}

/**
 * How old a lock held by a live process is. Its own time, unless that cannot be true: a time in the
 * future (a wrong clock, or a planted file) or one before the holder even started (the pid was reused)
 * is replaced by the holder's start time, the earliest the lock can really have been taken.
 */
export function lockAge(held: Pick<LockContent, 'pid' | 'at'>, now: number, started: number | null, mtimeMs: number | null): number {
  if (started !== null) {
    // The pid started after the lock was taken: another process has that pid now.
    if (held.at < started - CLOCK_SKEW_MS) return Number.POSITIVE_INFINITY;
    if (held.at > now + CLOCK_SKEW_MS) return now - started;
  } else if (held.at > now + CLOCK_SKEW_MS) {
    // No start time to go by: the file's own time, unless that is in the future too.
    return mtimeMs !== null && mtimeMs <= now + CLOCK_SKEW_MS ? now - mtimeMs : Number.POSITIVE_INFINITY;
  }
  return now - held.at;
}

/** The holder and time of a lock another run wrote (its nonce matters only to that run). */
function parseLock(text: string): Pick<LockContent, 'pid' | 'at'> | null {
  try {
    const v = JSON.parse(text) as Partial<LockContent>;
    return typeof v.pid === 'number' && typeof v.at === 'number' ? { pid: v.pid, at: v.at } : null;
  } catch {
    return null;
  }
}

/**
 * Moves a stale lock out of the way. Renaming is atomic, so two recoverers cannot both take it; if
 * the file renamed turns out to be a fresh lock (someone recovered and locked in between), it is
 * put back with `link`, which never overwrites.
 */
export async function recover(lockPath: string, seenText: string): Promise<void> {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await fs.rename(lockPath, aside);
    // Stryker disable next-line BlockStatement: going on instead reads, links and removes an aside file that does not exist, each a harmless failure
  } catch {
    return; // someone else moved it first
  }
  const moved = await fs.readFile(aside, 'utf8').catch(() => undefined);
  if (moved !== seenText) await fs.link(aside, lockPath).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

/** A temp file of `atomicWrite` (`.<name>.<pid>.<stamp>.tmp`) or a lock moved aside (`.lock.stale.<pid>.<hex>`). */
const LEFTOVER = /^\.(?:.+\.(\d+)\.[0-9a-z]+\.tmp|lock\.stale\.(\d+)\.[0-9a-f]+)$/;
/** A leftover of a live process older than this is taken for one whose pid was reused. */
const LEFTOVER_MAX_AGE_MS = 60 * 60_000;

/**
 * Removes what killed runs left in `dir` and its packet folders: temp files and locks moved aside whose
 * process is gone (or that are over an hour old). A live run's files are left alone. Returns the paths
 * removed. Never throws.
 */
export async function sweepLeftovers(dir: string): Promise<string[]> {
  const removed: string[] = [];
  const sweep = async (folder: string, deeper: boolean): Promise<void> => {
    const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const full = path.join(folder, e.name);
      if (e.isDirectory() && deeper) await sweep(full, false);
      const m = e.isFile() ? LEFTOVER.exec(e.name) : null;
      if (!m) continue;
      const pid = Number(m[1] ?? m[2]);
      const old = await fs.stat(full).then((st) => Date.now() - st.mtimeMs > LEFTOVER_MAX_AGE_MS, () => false);
      if (pid !== process.pid && (!pidAlive(pid) || old)) {
        await fs.rm(full, { force: true }).then(() => removed.push(full), () => undefined);
      }
    }
  };
  await sweep(dir, true);
  return removed;
}

/**
 * Runs `fn` while holding an exclusive lock on `dir` (`<dir>/.lock`, created with O_EXCL and holding
 * pid + time). A lock whose pid is dead, that is unreadable, or older than `staleMs` is recovered; its
 * age is judged by the holder's start time when its own time is in the future or before that start.
 * Waits with a short jittered poll up to `timeoutMs`.
 */
export async function withLock<T>(dir: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const staleMs = opts.staleMs ?? 60_000;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const lockPath = path.join(dir, LOCK_FILE);
  await makeDir(dir);
  const mine: LockContent = { pid: process.pid, at: Date.now(), nonce: randomBytes(8).toString('hex') };
  const myText = JSON.stringify(mine);
  for (;;) {
    try {
      const handle = await fs.open(lockPath, 'wx');
      try {
        await handle.writeFile(myText);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // The folder was removed by a run that finished with it (an emptied queue folder): made again.
      if (code === 'ENOENT') {
        await makeDir(dir);
        if (Date.now() > deadline) throw err;
        continue;
      }
      if (code !== 'EEXIST') throw err;
    }
    const text = await fs.readFile(lockPath, 'utf8').catch(() => null);
    let held: Pick<LockContent, 'pid' | 'at'> | null = null;
    if (text !== null) {
      held = parseLock(text);
      // An empty or torn file may be a lock being written this instant: stale only once it is old.
      const mtime = await fs.stat(lockPath).then((s) => s.mtimeMs, () => null);
      const age = held ? lockAge(held, Date.now(), processStartMs(held.pid), mtime) : mtime === null ? 0 : Date.now() - mtime;
      if ((held && !pidAlive(held.pid)) || age > staleMs || (!held && age > 2_000)) {
        await recover(lockPath, text);
        continue;
      }
    }
    // Also when the lock cannot be read (a folder, another user's file): waiting would never end.
    if (Date.now() > deadline) {
      throw new LockTimeoutError(
        text === null
          ? `${lockPath} is in the way and cannot be read as a lock (a folder, or another user's file); remove it if no handoff run is going on.`
          : `Another handoff run${held ? ` (pid ${held.pid})` : ''} holds ${lockPath}; try again in a moment.`,
      );
    }
    // Stryker disable next-line ArithmeticOperator: the jitter only spreads the polls of waiting runs; any short delay waits alike
    await new Promise((r) => setTimeout(r, 15 + Math.floor(Math.random() * 35)));
  }
  // The lock is ours: what an earlier run killed inside it left behind goes now.
  await sweepLeftovers(dir);
  try {
    return await fn();
  } finally {
    // Remove only our own lock (it may have been recovered from us if we overran staleMs).
    const now = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
    if (now === myText) await fs.rm(lockPath, { force: true });
  }
}
