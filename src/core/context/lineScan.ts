import type { FileHandle } from '../fsx';

// Line scanning over a file handle with memory bounded by the chunk size and a per-line cap: a line
// over the cap is read through (to find where it ends or starts) but never held.

const NL = 0x0a;
const MAX_CHUNK = 8 * 1024 * 1024;
/** A line this short made only of blanks (space, tab, CR) is skipped where it is found, never handed out. */
const BLANK_MAX = 16;

/** True when part[from, to) is a short run of blanks (an empty line, a CR, a few spaces). */
function blank(part: Buffer, from: number, to: number): boolean {
  if (to - from > BLANK_MAX) return false;
  for (let i = from; i < to; i++) {
    const c = part[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** A complete line (without its newline) found scanning back; `bytes` is null when it is over the cap. */
export interface BackLine {
  start: number;
  end: number;
  bytes: Buffer | null;
}

export type BackItem = ({ kind: 'line' } & BackLine) | ({ kind: 'fragment' } & BackLine) | { kind: 'limit'; resumeAt: number };

/**
 * The lines of [lo, hi), newest first: first the `fragment` after the last newline (possibly empty),
 * then each complete line. A line over `cap` comes with null bytes: its bytes are read to find where it
 * starts but not kept. `knownOverlongTo` marks [lo, knownOverlongTo) as one such line already seen, which
 * is not read again. Stops with `limit` after scanning `maxScan` bytes of lines that are kept (and at
 * the latest after four times that), where `resumeAt` is the start of the oldest complete line given.
 * With `skipBlank`, blank lines (empty, or only spaces, tabs or CRs) are not given: megabytes of them cost one pass of
 * `lastIndexOf`, not an item each.
 */
export async function* backwardLines(
  handle: FileHandle,
  lo: number,
  hi: number,
  opts: { chunk: number; cap: number; maxScan: number; knownOverlongTo: number; onRead(n: number): void; skipBlank?: boolean },
): AsyncGenerator<BackItem> {
  const readLo = opts.knownOverlongTo <= hi ? Math.max(lo, opts.knownOverlongTo) : lo;
  let pos = hi;
  let end = hi; // the segment being assembled ends here (at its newline, or at hi for the fragment)
  let parts: Buffer[] = [];
  let partsLen = 0;
  let dropping = false;
  let dropped = 0;
  let first = true;
  let chunk = opts.chunk;
  const prepend = (b: Buffer): void => {
    if (!b.length && opts.skipBlank) return;
    if (dropping) {
      dropped += b.length;
      return;
    }
    parts.unshift(b);
    partsLen += b.length;
    if (partsLen > opts.cap) {
      dropping = true;
      dropped += partsLen;
      parts = [];
      partsLen = 0;
    }
  };
  const emit = (segStart: number): BackItem => {
    const item = { start: segStart, end, bytes: dropping ? null : parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsLen) };
    const out: BackItem = first ? { kind: 'fragment', ...item } : { kind: 'line', ...item };
    first = false;
    parts = [];
    partsLen = 0;
    dropping = false;
    return out;
  };
  while (pos > readLo) {
    const scanned = hi - pos;
    if (scanned - dropped >= opts.maxScan || scanned >= 4 * opts.maxScan) {
      yield { kind: 'limit', resumeAt: first ? hi : end + 1 };
      return;
    }
    const lower = Math.max(readLo, pos - chunk);
    chunk = Math.min(chunk * 2, MAX_CHUNK);
    const part = await readAt(handle, lower, pos - lower);
    opts.onRead(part.length);
    pos = lower;
    let segEnd = part.length;
    for (;;) {
      if (opts.skipBlank && !first && !parts.length && !dropping) {
        // At a line's end: the blank lines just before it (empty, or only spaces, tabs and CRs) are
        // stepped over byte by byte, none handed out; the line found next ends at the lowest newline.
        let k = segEnd - 1;
        let lowest = -1;
        for (let c = part[k]; k >= 0 && (c === NL || c === 0x20 || c === 0x09 || c === 0x0d); c = part[--k]) if (c === NL) lowest = k;
        if (lowest >= 0) {
          end = lower + lowest;
          segEnd = lowest;
        }
      }
      const nl = segEnd > 0 ? part.lastIndexOf(NL, segEnd - 1) : -1;
      if (nl < 0) {
        prepend(part.subarray(0, segEnd));
        break;
      }
      prepend(part.subarray(nl + 1, segEnd));
      yield emit(lower + nl + 1);
      end = lower + nl;
      segEnd = nl;
    }
  }
  // Reached the lower bound: the open segment starts at lo.
  if (readLo > lo && !dropping) {
    // [lo, readLo) is the rest of a line already known to be too long.
    parts = [];
    partsLen = 0;
    dropping = true;
  }
  yield emit(lo);
}

/** Reads [from, to) forward, which ends with a newline, and gives each line (null bytes when over `cap`); with `skipBlank`, not the blank ones. */
export async function forwardLines(handle: FileHandle, from: number, to: number, cap: number, onLine: (line: BackLine) => void, skipBlank = false): Promise<number> {
  let pos = from;
  let lineStart = from;
  let parts: Buffer[] = [];
  let partsLen = 0;
  let dropping = false;
  let bytes = 0;
  while (pos < to) {
    const part = await readAt(handle, pos, Math.min(1024 * 1024, to - pos));
    if (part.length === 0) break;
    bytes += part.length;
    let s = 0;
    for (;;) {
      const nl = part.indexOf(NL, s);
      const e = nl === -1 ? part.length : nl;
      // Stryker disable next-line ConditionalExpression: collecting while dropping only drops again at the cap; the guard spares the memory
      if (!dropping) {
        parts.push(part.subarray(s, e));
        partsLen += e - s;
        if (partsLen > cap) {
          dropping = true;
          parts = [];
          partsLen = 0;
        }
      }
      if (nl === -1) break;
      const lineEnd = pos + nl;
      if (!skipBlank || dropping || partsLen > BLANK_MAX || !parts.every((b) => blank(b, 0, b.length))) onLine({ start: lineStart, end: lineEnd, bytes: dropping ? null : Buffer.concat(parts, partsLen) });
      lineStart = lineEnd + 1;
      parts = [];
      partsLen = 0;
      dropping = false;
      s = nl + 1;
    }
    pos += part.length;
  }
  return bytes;
}

/** Reads up to `length` bytes at `position` (fewer at the end of the file). */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  // Stryker disable next-line EqualityOperator: `<=` only adds a zero-length read once the buffer is full
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

