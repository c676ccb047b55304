import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../../core/fsx';
import { redactedJson } from '../../core/redact';
import { withLock } from '../../core/registry/lock';

/**
 * Hooks that always finish. Claude Code gives a SessionEnd hook 1.5 s and kills it after; writing a
 * packet takes longer on a big session. So `handoff hook` answers SessionEnd / PreCompact (and Stop
 * past the threshold) at once and hands the event to a detached copy of itself: its own process group
 * and session, no terminal, stdio closed — it survives the agent exiting or killing the hook's group.
 * Completions for one folder run one at a time (the lock below); one that finds a packet begun after
 * its own event has nothing left to do. Packets are written atomically, so none is ever half-written.
 */

/** Set in the detached process (and by tests that want the packet before the hook returns): complete inline. */
export const INLINE_ENV = 'HANDOFF_HOOK_INLINE';
/** When the event reached the hook (epoch ms), handed to the detached process. */
export const QUEUED_AT_ENV = 'HANDOFF_HOOK_QUEUED_AT';

export const isInline = (env: Record<string, string | undefined>): boolean => env[INLINE_ENV] === '1';

/**
 * Starts the detached completion of `stdin` (the event as the agent sent it) and resolves once the
 * event is handed over (written into the child's stdin pipe), at most after `handOverMs`.
 * `entry` is the CLI script this process runs (`process.argv[1]`).
 */
export function spawnCompletion(stdin: string, hookArgs: string[], env: Record<string, string | undefined>, entry = process.argv[1] ?? '', handOverMs = 150): Promise<number | undefined> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(process.execPath, [entry, 'hook', ...hookArgs], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
        windowsHide: true,
        env: { ...env, [INLINE_ENV]: '1', [QUEUED_AT_ENV]: String(Date.now()) },
      });
    } catch {
      resolve(undefined);
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      child.unref();
      const pipe = child.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
      pipe?.unref?.();
      resolve(child.pid);
    };
    const timer = setTimeout(done, handOverMs);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(stdin, done);
  });
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

/** A 64-bit FNV-1a hash as hex (names the per-folder queue outside the repository). */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

/** The folder of `outputDir`'s completion queue lock (outside the repository). */
export function queueDirOf(outputDir: string): string {
  return path.join(os.tmpdir(), `handoff-hook-queue-${fnv1a(path.resolve(outputDir))}`);
}

/**
 * Runs one completion for `outputDir`, one at a time per folder: waits its turn on the folder's queue
 * lock; when a packet for the same session was begun after this event reached the hook, that packet
 * already holds it and nothing is generated again. Records the packet in `last-hook.json`.
 */
export async function completeInQueue(
  outputDir: string,
  event: { hook_event_name: string; session_id?: string },
  env: Record<string, string | undefined>,
  generate: () => Promise<string | null>,
  log: (line: string) => Promise<void>,
): Promise<string | null> {
  const queuedAt = Number(env[QUEUED_AT_ENV]) || Date.now();
  return withLock(
    queueDirOf(outputDir),
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
}
