import type { FileHandle } from '../fsx';
import { mb } from '../fsx';

/**
 * The last elements of a JSON array too big to parse whole (a Cline task's `ui_messages.json` of a long
 * session runs to hundreds of MB). Scanned from the end: outside strings the brackets and commas at the
 * array's own level mark where elements start; a string is skipped to its opening quote at native
 * speed (an unescaped `"` is one not preceded by an odd number of backslashes, which holds read
 * backwards too). Elements are parsed one by one, newest first, until `tailBytes` are taken; an element
 * bigger than that is skipped (one 200 MB message does not hide the ones before it), and the scan gives
 * up after `scanBytes`. Memory stays bounded by those two, never by the file.
 */

export interface ArrayTail {
  /** The elements read, in file order. */
  values: unknown[];
  /** 1-based line where each of them starts. */
  lines: number[];
  /** The whole array was read (no element left out). */
  whole: boolean;
  /** Elements skipped for their size, and the bytes of the file not read (before the tail and skipped). */
  skippedLarge: number;
  bytesNotRead: number;
  /** What was left out, as a sentence after the file's name ("only the last … were read"); null when nothing. */
  notice: string | null;
}

export interface ArrayTailOptions {
  tailBytes: number;
  scanBytes: number;
  /** The first element is read too when at most this big (default 1 MB). */
  headBytes?: number;
}

export const CHUNK = 1024 * 1024;
/** The first element is read as well when it is at most this big (it holds the task's request). */
const HEAD_BYTES = 1024 * 1024;
export const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;

/** Reads the tail of the JSON array in `handle` (of `size` bytes); null when the file is not one array. */
export async function readArrayTail(handle: FileHandle, size: number, opts: ArrayTailOptions): Promise<ArrayTail | null> {
  // Element ranges [start, end) found from the end, newest first.
  const found: { start: number; end: number }[] = [];
  let taken = 0;
  let skippedLarge = 0;
  let whole = false;
  let depth = 0;
  let inString = false;
  /** A quote seen, waiting for the backslashes before it to be counted. */
  let pendingQuote = false;
  let backslashes = 0;
  let elementEnd = -1;
  let lastNonSpace = -1;
  const close = (start: number): void => {
    const end = elementEnd;
    elementEnd = start - 1;
    if (end <= start) return;
    if (end - start > opts.tailBytes) skippedLarge++;
    else {
      found.push({ start, end });
      taken += end - start;
    }
  };
  let pos = size;
  let scanned = 0;
  const buf = Buffer.allocUnsafe(CHUNK);
  outer: while (pos > 0) {
    const from = Math.max(0, pos - CHUNK);
    const { bytesRead } = await handle.read(buf, 0, pos - from, from);
    if (bytesRead < pos - from) return null;
    scanned += bytesRead;
    for (let i = bytesRead - 1; i >= 0; i--) {
      const c = buf[i]!;
      if (pendingQuote) {
        if (c === BACKSLASH) {
          backslashes++;
          continue;
        }
        pendingQuote = false;
        if (backslashes % 2 === 0) inString = !inString;
      }
      if (inString) {
        // Jump to the previous quote: all between is string content.
        const q = buf.lastIndexOf(QUOTE, i);
        if (q === -1) {
          i = 0;
          continue;
        }
        i = q;
        pendingQuote = true;
        backslashes = 0;
        continue;
      }
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (depth === 0) {
        // Only the array's closing bracket (after trailing space) may come last.
        if (c !== 0x5d || lastNonSpace !== -1) return null;
        lastNonSpace = from + i;
        depth = 1;
        elementEnd = from + i;
        continue;
      }
      if (c === QUOTE) {
        pendingQuote = true;
        backslashes = 0;
        continue;
      }
      if (c === 0x5d || c === 0x7d) depth++;
      else if (c === 0x5b || c === 0x7b) {
        depth--;
        if (depth === 0) {
          // The array's opening bracket: the first element starts after it.
          close(from + i + 1);
          whole = true;
          break outer;
        }
      } else if (c === 0x2c && depth === 1) {
        close(from + i + 1);
        if (taken >= opts.tailBytes) break outer;
      }
    }
    pos = from;
    if (scanned >= opts.scanBytes && !whole) break;
  }
  if (depth === 0 && !whole) return null;
  found.reverse();
  // The first element too (the task's own request), when the tail does not reach it and it is small.
  const tailStart = found[0]?.start ?? size;
  const head = whole ? null : await firstElement(handle, tailStart, opts.headBytes ?? HEAD_BYTES);
  if (head) found.unshift(head);
  const values: unknown[] = [];
  const starts: number[] = [];
  // Adjacent elements are read in one piece (a comma between them), not one read each.
  for (let k = 0; k < found.length; ) {
    let j = k;
    while (j + 1 < found.length && found[j + 1]!.start - found[j]!.end <= 64) j++;
    const from = found[k]!.start;
    const bytes = Buffer.allocUnsafe(found[j]!.end - from);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, from);
    if (bytesRead < bytes.length) return null;
    for (; k <= j; k++) {
      const r = found[k]!;
      let lead = r.start - from;
      while (lead < r.end - from && isSpace(bytes[lead]!)) lead++;
      if (lead === r.end - from) continue;
      try {
        values.push(JSON.parse(bytes.toString('utf8', lead, r.end - from)));
      } catch {
        return null;
      }
      starts.push(from + lead);
    }
  }
  const lines = await linesAt(handle, starts);
  const readBytes = found.reduce((n, r) => n + (r.end - r.start), 0);
  const left = !whole || skippedLarge > 0;
  const tail = head ? values.length - 1 : values.length;
  const notice = left
    ? `only ${head ? 'the first message and ' : ''}the last ${tail} message${tail === 1 ? '' : 's'} (${mb(readBytes)}${lines[head ? 1 : 0] ? ` from line ${lines[head ? 1 : 0]}` : ''}) of its ${mb(size)} were read` +
      `${!whole ? `; the ${mb(tailStart - (head?.end ?? 0))} ${head ? 'between' : 'before'} them were not` : ''}${skippedLarge ? `; ${skippedLarge} message${skippedLarge === 1 ? '' : 's'} over ${mb(opts.tailBytes)} each skipped` : ''}`
    : null;
  return { values, lines, whole: !left, skippedLarge, bytesNotRead: left ? size - readBytes : 0, notice };
}

/**
 * The first element of the array, read forwards: its range when it ends within `maxBytes` (and before
 * `limit`, where the tail begins), else null.
 */
async function firstElement(handle: FileHandle, limit: number, maxBytes: number): Promise<{ start: number; end: number } | null> {
  const len = Math.min(limit, maxBytes + 64);
  const buf = Buffer.allocUnsafe(len);
  const { bytesRead } = await handle.read(buf, 0, len, 0);
  let i = 0;
  while (i < bytesRead && isSpace(buf[i]!)) i++;
  if (buf[i] !== 0x5b) return null;
  const start = i + 1;
  let depth = 0;
  for (i = start; i < bytesRead; i++) {
    const c = buf[i]!;
    if (c === QUOTE) {
      // To the closing quote, past escaped ones.
      for (i++; i < bytesRead && buf[i] !== QUOTE; i++) if (buf[i] === BACKSLASH) i++;
      continue;
    }
    if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (depth === 0) return null;
      depth--;
    } else if (c === 0x2c && depth === 0) return i - start <= maxBytes ? { start, end: i } : null;
  }
  return null;
}

/** The 1-based line of each offset (ascending), counting newlines in one pass up to the last. */
async function linesAt(handle: FileHandle, offsets: number[]): Promise<number[]> {
  const out: number[] = [];
  if (!offsets.length) return out;
  const buf = Buffer.allocUnsafe(8 * CHUNK);
  let line = 1;
  let pos = 0;
  let k = 0;
  const last = offsets[offsets.length - 1]!;
  while (k < offsets.length && pos <= last) {
    const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, last - pos + 1), pos);
    if (bytesRead === 0) break;
    for (let i = 0; ; ) {
      const nl = buf.indexOf(0x0a, i);
      const stop = nl === -1 || nl >= bytesRead ? bytesRead : nl;
      while (k < offsets.length && offsets[k]! < pos + stop) out[k++] = line;
      if (stop === bytesRead) break;
      line++;
      i = nl + 1;
    }
    pos += bytesRead;
  }
  while (out.length < offsets.length) out.push(line);
  return out;
}
