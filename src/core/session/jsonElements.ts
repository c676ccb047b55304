import type { FileHandle } from '../fsx';
import { BACKSLASH, CHUNK, isSpace, QUOTE } from './jsonTail';

/**
 * Every element of a JSON array too big to parse whole (a Cline task's `ui_messages.json` of a long
 * session), read forwards in chunks: one element's bytes at a time, so memory is bounded by the biggest
 * element kept (`maxElementBytes`), never by the file. Strings are skipped at native speed to their next
 * unescaped quote; outside them the brackets and commas at the array's own level mark the elements.
 */

export interface ArrayElement {
  /**
   * The element's bytes (whitespace around it left out): valid during the call only, a view of the read
   * buffer when the element lies in one read, so a caller copies what it keeps.
   */
  bytes: Buffer;
  /** Its 0-based index in the array. */
  index: number;
  /** The 1-based line it starts on. */
  line: number;
  /** The byte offset it starts at. */
  offset: number;
}

export interface ElementsResult {
  /** The file was one whole array (false: not an array, or it ends inside it). */
  ok: boolean;
  /** Elements over `maxElementBytes`, not given to the caller. */
  oversized: { index: number; line: number; bytes: number }[];
}

/** Elements bigger than this are passed over (counted in `oversized`). */
export const MAX_ELEMENT_BYTES = 16 * 1024 * 1024;

/**
 * Calls `onElement` with each element of the top-level array in `handle`, in file order. Resolves
 * `ok: false` (after the elements before the fault were given) when the file is not one array or ends
 * inside it.
 */
export async function eachArrayElement(handle: FileHandle, onElement: (e: ArrayElement) => void, opts: { maxElementBytes?: number; chunkBytes?: number } = {}): Promise<ElementsResult> {
  const max = opts.maxElementBytes ?? MAX_ELEMENT_BYTES;
  const buf = Buffer.allocUnsafe(opts.chunkBytes ?? CHUNK);
  const oversized: ElementsResult['oversized'] = [];
  let depth = 0;
  let started = false;
  let ended = false;
  let inString = false;
  /** The previous chunk ended inside a string on an odd run of backslashes: this one's first byte is escaped. */
  let escaped = false;
  let line = 1;
  let index = 0;
  // The element being read: its pieces (when not oversized), where it started, its size so far.
  let parts: Buffer[] = [];
  let elementAt = -1;
  let elementLine = 0;
  let size = 0;
  /** The element's bytes in this chunk; `ends` when it ends here (one in a single read is not copied). */
  const keep = (chunk: Buffer, from: number, to: number, ends: boolean): void => {
    if (elementAt === -1 || to <= from) return;
    size += to - from;
    if (size <= max) parts.push(ends && !parts.length ? chunk.subarray(from, to) : Buffer.from(chunk.subarray(from, to)));
    else parts = [];
  };
  const finish = (): void => {
    if (elementAt === -1) return;
    if (size > max) oversized.push({ index, line: elementLine, bytes: size });
    else {
      let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      // Whitespace after the element (before its comma or the closing bracket) is not its own.
      let end = bytes.length;
      while (end > 0 && isSpace(bytes[end - 1]!)) end--;
      if (end < bytes.length) bytes = bytes.subarray(0, end);
      onElement({ bytes, index, line: elementLine, offset: elementAt });
    }
    index++;
    parts = [];
    elementAt = -1;
    size = 0;
  };
  for (let pos = 0; ; ) {
    const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
    if (!bytesRead) break;
    const chunk = buf.subarray(0, bytesRead);
    let from = 0;
    for (let i = 0; i < bytesRead; i++) {
      const c = chunk[i]!;
      if (inString) {
        // Jump to the next quote not escaped: all before it is string content.
        let at = i;
        if (escaped) {
          escaped = false;
          at++;
        }
        for (;;) {
          const q = chunk.indexOf(QUOTE, at);
          if (q === -1) {
            // The string goes on into the next chunk: an odd run of backslashes here escapes its first byte.
            let n = 0;
            for (let k = bytesRead - 1; k >= at && chunk[k] === BACKSLASH; k--) n++;
            escaped = n % 2 === 1;
            i = bytesRead;
            break;
          }
          let n = 0;
          for (let k = q - 1; k >= at && chunk[k] === BACKSLASH; k--) n++;
          if (n % 2 === 0) {
            i = q;
            inString = false;
            break;
          }
          at = q + 1;
        }
        continue;
      }
      if (c === 0x0a) line++;
      if (isSpace(c)) continue;
      if (ended) return { ok: false, oversized };
      if (!started) {
        // A byte-order mark before the array.
        if (c === 0xef && pos + i === 0 && chunk[i + 1] === 0xbb && chunk[i + 2] === 0xbf) {
          i += 2;
          continue;
        }
        if (c !== 0x5b) return { ok: false, oversized };
        started = true;
        depth = 1;
        continue;
      }
      if (depth === 1 && elementAt === -1 && c !== 0x5d && c !== 0x2c) {
        elementAt = pos + i;
        elementLine = line;
        from = i;
      }
      if (c === QUOTE) inString = true;
      else if (c === 0x5b || c === 0x7b) depth++;
      else if (c === 0x5d || c === 0x7d) {
        if (depth === 1) {
          keep(chunk, from, i, true);
          finish();
          ended = true;
          depth = 0;
          continue;
        }
        depth--;
      } else if (c === 0x2c && depth === 1) {
        keep(chunk, from, i, true);
        finish();
      }
    }
    keep(chunk, from, bytesRead, false);
    from = 0;
    pos += bytesRead;
  }
  return { ok: ended, oversized };
}
