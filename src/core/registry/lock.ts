import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

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

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
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
async function recover(lockPath: string, seenText: string): Promise<void> {
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

/**
 * Runs `fn` while holding an exclusive lock on `dir` (`<dir>/.lock`, created with O_EXCL and holding
 * pid + time). A lock whose pid is dead, that is unreadable, or older than `staleMs` is recovered.
 * Waits with a short jittered poll up to `timeoutMs`.
 */
export async function withLock<T>(dir: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const staleMs = opts.staleMs ?? 60_000;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const lockPath = path.join(dir, LOCK_FILE);
  await fs.mkdir(dir, { recursive: true });
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
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const text = await fs.readFile(lockPath, 'utf8').catch(() => null);
    let held: Pick<LockContent, 'pid' | 'at'> | null = null;
    if (text !== null) {
      held = parseLock(text);
      // An empty or torn file may be a lock being written this instant: stale only once it is old.
      const age = held ? Date.now() - held.at : await fs.stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
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
  try {
    return await fn();
  } finally {
    // Remove only our own lock (it may have been recovered from us if we overran staleMs).
    const now = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
    if (now === myText) await fs.rm(lockPath, { force: true });
  }
}
