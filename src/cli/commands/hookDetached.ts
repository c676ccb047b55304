import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../../core/fsx';
import { userStateDir } from '../../core/ownLog';
import { redactedJson } from '../../core/redact';
import { pidAlive, recover, withLock } from '../../core/registry/lock';
import { makeDir } from '../../core/safeDirs';

/**
 * Hooks that always finish, with one background worker per user. Claude Code gives a SessionEnd hook
 * 1.5 s and kills it after; writing a packet takes longer on a big session. So `handoff hook` answers
 * SessionEnd / PreCompact (and Stop past the threshold) at once: it writes the event into the user's
 * private queue (`<state folder>/hook-queue`, 0700, refused when it belongs to someone else or is a
 * link) and starts a worker only when none runs. The worker — its own process group and session, no
 * terminal, stdio closed, so it survives the agent exiting or killing the hook's group — takes the
 * queued events in order, folds those of the same folder and session into the newest, and writes
 * their packets one at a time; it stops at a deadline, and where the queue cannot be written no worker
 * is started at all. Packets are written atomically, so none is ever half-written.
 */

/** Set in the worker (and by tests that want the packet before the hook returns): complete inline. */
export const INLINE_ENV = 'HANDOFF_HOOK_INLINE';
/** When the event reached the hook (epoch ms), handed to the completion. */
export const QUEUED_AT_ENV = 'HANDOFF_HOOK_QUEUED_AT';
/** Set in the background worker: drain the queue instead of reading an event from stdin. */
export const WORKER_ENV = 'HANDOFF_HOOK_WORKER';

export const isInline = (env: Record<string, string | undefined>): boolean => env[INLINE_ENV] === '1';
export const isWorker = (env: Record<string, string | undefined>): boolean => env[WORKER_ENV] === '1';

/** A worker takes no new event after this long; what is still queued waits for the next one. */
export const WORKER_DEADLINE_MS = 10 * 60_000;
/** The user's queue folder, inside the state folder. */
export const QUEUE_FOLDER = 'hook-queue';
/** In the queue folder: the running worker's pid (created with O_EXCL by whoever starts it). */
export const WORKER_LOCK = 'worker.lock';
const EVENT_SUFFIX = '.event';
/** Events taken from the queue per round: the worker's memory does not grow with a burst. */
const BATCH = 100;
/** A worker lock not yet holding a pid is being written: it counts as held this long. */
const LOCK_BIRTH_MS = 5_000;
/** The environment a queued event carries to the worker: where the agents and the tool keep their files. */
const CARRIED_ENV = /^(HANDOFF_|CLAUDE_CONFIG_DIR$|CODEX_HOME$|XDG_|HOME$|PATH$|LOCALAPPDATA$|APPDATA$|USERPROFILE$)/;

/** One event as the hook queued it. */
export interface QueuedEvent {
  raw: string;
  args: string[];
  cwd: string;
  queued_at: number;
  env: Record<string, string>;
}

type Place = { ok: true; dir: string } | { ok: false; reason: string };

/**
 * The user's private queue folder, made when missing (0700). Refused, with the reason, when it cannot
 * be made, is a link or no folder, or belongs to another user; one open to others is made private.
 */
export async function privateQueueDir(env: Record<string, string | undefined>): Promise<Place> {
  const dir = path.join(userStateDir(env), QUEUE_FOLDER);
  try {
    await makeDir(dir, 0o700);
  } catch (err) {
    return { ok: false, reason: `the hook queue ${dir} cannot be created: ${(err as Error).message}` };
  }
  const st = await fs.lstat(dir).catch(() => null);
  if (!st || st.isSymbolicLink() || !st.isDirectory()) return { ok: false, reason: `the hook queue ${dir} is not a folder (a link or a file is in its place); nothing queued` };
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return { ok: false, reason: `the hook queue ${dir} belongs to another user (uid ${st.uid}); nothing queued there — remove it` };
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    try {
      await fs.chmod(dir, 0o700);
    } catch (err) {
      return { ok: false, reason: `the hook queue ${dir} is open to other users and cannot be made private: ${(err as Error).message}` };
    }
  }
  return { ok: true, dir };
}

/**
 * Queues `stdin` (the event as the agent sent it) for the background worker and starts one when none
 * runs. Returns null when queued, else why not (nothing was started then).
 * `entry` is the CLI script this process runs (`process.argv[1]`).
 */
export async function queueCompletion(stdin: string, hookArgs: string[], env: Record<string, string | undefined>, cwd: string, entry = process.argv[1] ?? ''): Promise<string | null> {
  const q = await privateQueueDir(env);
  if (!q.ok) return q.reason;
  const queuedAt = Date.now();
  const carried = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => CARRIED_ENV.test(e[0]) && typeof e[1] === 'string'));
  const event: QueuedEvent = { raw: stdin, args: hookArgs, cwd, queued_at: queuedAt, env: carried };
  // Named by time first: the worker takes them in the order they came.
  const name = `${String(queuedAt).padStart(15, '0')}-${process.pid}-${randomBytes(4).toString('hex')}${EVENT_SUFFIX}`;
  try {
    // Not redacted: the worker needs the event as sent; the folder is the user's own (0700).
    await atomicWrite(path.join(q.dir, name), Buffer.from(JSON.stringify(event)), { durable: false });
  } catch (err) {
    return `the event could not be queued in ${q.dir}: ${(err as Error).message}`;
  }
  return startWorker(q.dir, env, entry);
}

/** The holder of a worker lock, or null when none (empty, torn or without a pid). */
function lockHolder(text: string): { pid: number; at: number } | null {
  try {
    const v = JSON.parse(text) as { pid?: unknown; at?: unknown };
    return typeof v.pid === 'number' && typeof v.at === 'number' ? { pid: v.pid, at: v.at } : null;
  } catch {
    return null;
  }
}

/** True when a live worker holds (or is being handed) the lock. */
async function workerRunning(lock: string): Promise<{ running: boolean; text: string | null }> {
  const text = await fs.readFile(lock, 'utf8').catch(() => null);
  if (text === null) return { running: false, text };
  const held = lockHolder(text);
  if (!held) {
    const mtime = await fs.stat(lock).then((s) => s.mtimeMs, () => 0);
    return { running: Date.now() - mtime < LOCK_BIRTH_MS, text };
  }
  return { running: pidAlive(held.pid) && Date.now() - held.at < WORKER_DEADLINE_MS + 60_000, text };
}

/** Starts the worker unless one runs: the lock is taken here, then handed to the worker by its pid. */
async function startWorker(dir: string, env: Record<string, string | undefined>, entry: string): Promise<string | null> {
  const lock = path.join(dir, WORKER_LOCK);
  for (let attempt = 0; attempt < 3; attempt++) {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(lock, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return `the worker lock ${lock} cannot be created: ${(err as Error).message}`;
      const seen = await workerRunning(lock);
      // A worker runs: it takes this event too (it looks at the queue again before it lets go).
      if (seen.running) return null;
      if (seen.text !== null) await recover(lock, seen.text);
      continue;
    }
    try {
      let child;
      try {
        child = spawn(process.execPath, [entry, 'hook'], { detached: true, stdio: 'ignore', windowsHide: true, env: { ...env, [INLINE_ENV]: '1', [WORKER_ENV]: '1' } });
      } catch (err) {
        await fs.rm(lock, { force: true });
        return `the background worker could not be started: ${(err as Error).message}`;
      }
      child.on('error', () => undefined);
      await handle.writeFile(JSON.stringify({ pid: child.pid ?? -1, at: Date.now() }));
      child.unref();
      return null;
    } finally {
      await handle.close();
    }
  }
  return `the worker lock ${lock} stays in the way; the event waits in the queue for the next worker`;
}

/** The worker takes the lock for itself (when it was not handed one): false when another worker runs. */
async function takeLock(lock: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await fs.open(lock, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, at: Date.now() }));
      } finally {
        await handle.close();
      }
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
    const seen = await workerRunning(lock);
    const held = seen.text === null ? null : lockHolder(seen.text);
    if (held?.pid === process.pid) return true;
    if (seen.running) return false;
    if (seen.text !== null) await recover(lock, seen.text);
  }
  return false;
}

async function releaseLock(lock: string): Promise<void> {
  const text = await fs.readFile(lock, 'utf8').catch(() => null);
  if (text !== null && lockHolder(text)?.pid === process.pid) await fs.rm(lock, { force: true }).catch(() => undefined);
}

const queuedNames = async (dir: string): Promise<string[]> =>
  (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(EVENT_SUFFIX) && !n.startsWith('.')).sort();

/**
 * Takes up to BATCH events off the queue, oldest first (each file is removed before its event is
 * handled: an event is never handled twice). Null when a file cannot be removed: the worker stops
 * rather than read the same event again and again.
 */
async function takeBatch(dir: string, log: (line: string) => Promise<void>): Promise<QueuedEvent[] | null> {
  const out: QueuedEvent[] = [];
  for (const name of (await queuedNames(dir)).slice(0, BATCH)) {
    const file = path.join(dir, name);
    let text: string | null = null;
    try {
      text = await readIfExists(file);
    } catch (err) {
      await log(`hook worker: ${(err as Error).message}; skipped`);
    }
    try {
      await fs.rm(file, { force: true });
    } catch (err) {
      await log(`hook worker: ${file} cannot be removed (${(err as Error).message}); the worker stops`);
      return null;
    }
    if (text === null) continue;
    try {
      const v = JSON.parse(text) as QueuedEvent;
      if (typeof v.raw === 'string' && typeof v.cwd === 'string' && Array.isArray(v.args)) out.push({ ...v, env: v.env && typeof v.env === 'object' ? v.env : {} });
      else await log(`hook worker: ${file} is not a queued event; skipped`);
    } catch {
      await log(`hook worker: ${file} is not a queued event; skipped`);
    }
  }
  return out;
}

/**
 * The events worth handling: of those for the same folder, session, event kind and flags only the
 * newest (its packet holds what the older ones would have written), in the order they came.
 */
export function coalesce(events: QueuedEvent[]): { events: QueuedEvent[]; folded: number } {
  const newest = new Map<string, QueuedEvent>();
  events.forEach((e, i) => {
    let key = `#${i}`;
    try {
      const v = JSON.parse(e.raw) as { cwd?: unknown; session_id?: unknown; hook_event_name?: unknown };
      if (typeof v.cwd === 'string') key = JSON.stringify([path.resolve(e.cwd, v.cwd), v.session_id ?? null, v.hook_event_name ?? null, e.args]);
    } catch {
      // Not JSON: handled on its own (the hook logs what it is).
    }
    newest.delete(key);
    newest.set(key, e);
  });
  return { events: [...newest.values()], folded: events.length - newest.size };
}

/**
 * The worker: holds the queue's worker lock, handles the queued events (folded, oldest first) one at a
 * time until the queue is empty or the deadline passed, and looks once more after letting the lock go
 * (an event queued in that instant found the lock still held). Returns the number of events handled.
 */
export async function runWorker(
  env: Record<string, string | undefined>,
  handle: (event: QueuedEvent) => Promise<void>,
  log: (line: string) => Promise<void>,
  deadlineMs = WORKER_DEADLINE_MS,
): Promise<number> {
  const q = await privateQueueDir(env);
  if (!q.ok) {
    await log(`hook worker: ${q.reason}`);
    return 0;
  }
  const lock = path.join(q.dir, WORKER_LOCK);
  const deadline = Date.now() + deadlineMs;
  let handled = 0;
  let mine = await takeLock(lock);
  while (mine) {
    for (;;) {
      if (Date.now() > deadline) {
        const left = (await queuedNames(q.dir)).length;
        await log(`hook worker: stopped at its ${Math.round(deadlineMs / 1000)} s deadline; ${left} event(s) wait for the next hook`);
        await releaseLock(lock);
        return handled;
      }
      const batch = await takeBatch(q.dir, log);
      if (batch === null) {
        await releaseLock(lock);
        return handled;
      }
      if (!batch.length) break;
      const { events, folded } = coalesce(batch);
      if (folded) await log(`hook worker: ${folded} queued event(s) folded into a newer one of the same folder and session`);
      for (const e of events) {
        await handle(e).catch((err: unknown) => log(`hook worker: ${(err as Error)?.message ?? String(err)}`));
        handled++;
      }
    }
    await releaseLock(lock);
    mine = (await queuedNames(q.dir)).length > 0 && (await takeLock(lock));
  }
  await removeOldQueues();
  return handled;
}

/** Older versions' per-folder queue folders in the shared temp folder: this user's idle ones go. */
async function removeOldQueues(): Promise<void> {
  const uid = process.getuid?.();
  for (const name of await fs.readdir(os.tmpdir()).catch(() => [] as string[])) {
    if (!name.startsWith('handoff-hook-queue-')) continue;
    const dir = path.join(os.tmpdir(), name);
    const st = await fs.lstat(dir).catch(() => null);
    if (!st?.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    const held = lockHolder((await fs.readFile(path.join(dir, '.lock'), 'utf8').catch(() => null)) ?? '');
    if (held && pidAlive(held.pid)) continue;
    await fs.rm(path.join(dir, '.lock'), { force: true }).catch(() => undefined);
    await fs.rmdir(dir).catch(() => undefined);
  }
}

/** What the last generating hook wrote, so the session that starts after a compaction gets that packet. */
export const LAST_HOOK_FILE = 'last-hook.json';

export interface LastHookRecord {
  event: string;
  session_id: string | null;
  packet_dir: string;
  /** When the packet was written. */
  at: string;
  /** When its generation began: an event queued before this is covered by the packet. */
  started_at?: string;
}

async function readLast(outputDir: string): Promise<LastHookRecord | null> {
  try {
    const v = JSON.parse((await readIfExists(path.join(outputDir, LAST_HOOK_FILE))) ?? 'null') as LastHookRecord | null;
    return v && typeof v.packet_dir === 'string' && typeof v.at === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** A 64-bit FNV-1a hash as hex (names the per-folder lock inside the queue). */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

/** The folder of `outputDir`'s completion lock, inside the user's private queue (outside the repository). */
export async function folderLockDir(outputDir: string, env: Record<string, string | undefined>): Promise<string> {
  const q = await privateQueueDir(env);
  if (!q.ok) throw new Error(q.reason);
  return path.join(q.dir, 'folders', fnv1a(path.resolve(outputDir)));
}

/**
 * Runs one completion for `outputDir`, one at a time per folder: waits its turn on the folder's lock
 * (the worker and a SessionStart after a compaction may both write); when a packet for the same
 * session was begun after this event reached the hook, that packet already holds it and nothing is
 * generated again. Records the packet in `last-hook.json`. The lock's folder goes when it is done.
 */
export async function completeInQueue(
  outputDir: string,
  event: { hook_event_name: string; session_id?: string },
  env: Record<string, string | undefined>,
  generate: () => Promise<string | null>,
  log: (line: string) => Promise<void>,
): Promise<string | null> {
  const queuedAt = Number(env[QUEUED_AT_ENV]) || Date.now();
  const lockDir = await folderLockDir(outputDir, env);
  try {
    return await withLock(
      lockDir,
      async () => {
        const last = await readLast(outputDir);
        const begun = last?.started_at ? Date.parse(last.started_at) : NaN;
        if (last && last.session_id === (event.session_id ?? null) && begun >= queuedAt) {
          await log(`hook ${event.hook_event_name}: the packet begun at ${last.started_at} already covers this event; nothing more to write`);
          return last.packet_dir;
        }
        const startedAt = new Date().toISOString();
        const packetDir = await generate();
        if (!packetDir) return null;
        const record: LastHookRecord = { event: event.hook_event_name, session_id: event.session_id ?? null, packet_dir: packetDir, at: new Date().toISOString(), started_at: startedAt };
        await atomicWrite(path.join(outputDir, LAST_HOOK_FILE), redactedJson(record, 2, '\n')).catch(() => undefined);
        // Done in the background: the log is where a person sees that it happened.
        await log(`hook ${event.hook_event_name}: packet written to ${packetDir}`);
        return packetDir;
      },
      { timeoutMs: 10 * 60_000, staleMs: 10 * 60_000 },
    );
  } finally {
    // Empty once the lock is let go (a waiting run makes it again).
    await fs.rmdir(lockDir).catch(() => undefined);
  }
}
