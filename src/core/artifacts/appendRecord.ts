import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { redactDeep } from '../redact';
import { withLock } from '../registry/lock';
import type { FeedbackRecord } from './schemas';
import { makeDir } from '../safeDirs';

/** Linux's PIPE_BUF: one `write` of at most this many bytes with O_APPEND lands whole, never interleaved. */
export const ATOMIC_APPEND_BYTES = 4096;
/** How much of each output tail a record keeps (before shrinking to fit one atomic write). */
export const TAIL_CHARS = 1500;

/** Keeps the end of a text, starting at a line break where one is near, so the tail reads cleanly. */
export function tailOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(text.length - max);
  const nl = cut.indexOf('\n'); // -1 without a break: slice(0) then keeps it all
  return nl < max / 4 ? cut.slice(nl + 1) : cut;
}

/**
 * One feedback line: redacted over the whole record first (the output tails in full, before any cut),
 * then each tail cut to `TAIL_CHARS` and shrunk further until the line fits one atomic append where it
 * can. Returns the JSON line with its newline.
 */
export function recordLine(record: FeedbackRecord): string {
  const clean = redactDeep(record);
  const cut = (max: number): string =>
    `${JSON.stringify({
      ...clean,
      ...(clean.stdout_tail ? { stdout_tail: tailOf(clean.stdout_tail, max) } : {}),
      ...(clean.stderr_tail ? { stderr_tail: tailOf(clean.stderr_tail, max) } : {}),
    })}\n`;
  let line = cut(TAIL_CHARS);
  // Halve the tails, at most four times (1500 → 93 characters); a line still too long is appended under the lock.
  for (const d of [2, 4, 8, 16]) {
    if (Buffer.byteLength(line) <= ATOMIC_APPEND_BYTES) break;
    line = cut(Math.floor(TAIL_CHARS / d));
  }
  return line;
}

// Stryker disable next-line LogicalOperator: without O_NONBLOCK/O_NOCTTY Linux acts alike here (O_RDWR never blocks on a FIFO, and the process leads no session)
const APPEND_FLAGS = fsConstants.O_RDWR | fsConstants.O_APPEND | fsConstants.O_CREAT | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

/**
 * Appends one record line to `feedback_record.jsonl` with a single O_APPEND write, so concurrent
 * writers (parallel `handoff record` runs, an agent) never interleave. A line too long for one atomic
 * write is appended under the output dir's lock instead. A log that ends in a torn line gets a newline
 * first, so the new record is never glued to it. Refuses a FIFO, device or a symlink leading outside
 * `root` in place of the log.
 */
export async function appendFeedbackLine(file: string, line: string, opts: { root: string; lockDir: string }): Promise<void> {
  const [realRoot, realParent] = await Promise.all([
    fs.realpath(opts.root).catch(() => path.resolve(opts.root)),
    makeDir(path.dirname(file)).then(() => fs.realpath(path.dirname(file))),
  ]);
  const real = await fs.realpath(file).catch(() => path.join(realParent, path.basename(file)));
  const rel = path.relative(realRoot, real);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new Error(`${file} is a symbolic link that leads outside the workspace; nothing recorded`);
  }
  const write = async (): Promise<void> => {
    const handle = await fs.open(file, APPEND_FLAGS, 0o644);
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new Error(`${file} is not a regular file; nothing recorded`);
      let text = line;
      if (st.size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, st.size - 1);
        if (last[0] !== 0x0a) text = `\n${line}`;
      }
      await handle.write(text);
    } finally {
      await handle.close();
    }
  };
  if (Buffer.byteLength(line) + 1 <= ATOMIC_APPEND_BYTES) await write();
  else await withLock(opts.lockDir, write);
}
