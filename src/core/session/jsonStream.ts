import type { FileHandle } from '../fsx';
import { BACKSLASH, CHUNK, isSpace, QUOTE } from './jsonTail';

/**
 * A few fields of every object in a JSON array too big to be worth parsing whole (Cline's task history
 * grows to hundreds of MB, most of it the tasks' own text), read forwards in chunks with memory bounded
 * by the chunk, never by the file: strings are skipped at native speed (to their next unescaped quote),
 * and only the wanted keys' string or number values at the objects' own level are kept. A key's value of
 * another type (or a string over `MAX_FIELD_BYTES`) leaves it out, as a whole parse then checked for a
 * string or number would; a repeated key's last value counts, as in a whole parse.
 */

/** A wanted string value longer than this (a folder path, an id) is left out. */
export const MAX_FIELD_BYTES = 64 * 1024;

const isLiteral = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2b || c === 0x2d || c === 0x2e;

/** A string's bytes as JSON decodes them; undefined when they are not a valid JSON string body. */
function decode(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  if (!text.includes('\\') && !/[\u0000-\u001f]/.test(text)) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * Calls `onObject` with the wanted fields of each object element of the top-level array in `handle`, in
 * file order. Resolves false (after the objects before the fault were given) when the file is not one
 * array or ends inside it (cut short, or being written): the caller keeps what it had.
 */
export async function scanArrayObjects(handle: FileHandle, keys: ReadonlySet<string>, onObject: (fields: Record<string, string | number>) => void, chunkBytes = CHUNK): Promise<boolean> {
  let depth = 0;
  let started = false;
  let ended = false;
  let inString = false;
  /** Backslashes that ended the previous chunk inside a string. */
  let carry = 0;
  /** The string being read is kept: a key of an element, or a wanted key's value. */
  let keep = false;
  let isKey = false;
  let capStart = 0;
  let parts: Buffer[] = [];
  let partsLen = 0;
  /** The element being read, when it is an object; its next string is a key. */
  let fields: Record<string, string | number> | null = null;
  let expectKey = false;
  /** The wanted key whose value comes next. */
  let key: string | null = null;
  /** A wanted key's number (or other literal) being read. */
  let scalar: string | null = null;
  const finishScalar = (): void => {
    let v: unknown;
    try {
      v = JSON.parse(scalar!);
    } catch {
      v = undefined;
    }
    if (typeof v === 'number') fields![key!] = v;
    else delete fields![key!];
    scalar = null;
    key = null;
  };
  const buf = Buffer.allocUnsafe(chunkBytes);
  let pos = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buf, 0, chunkBytes, pos);
    if (bytesRead === 0) break;
    let i = pos === 0 && bytesRead >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    pos += bytesRead;
    for (; i < bytesRead; i++) {
      if (inString) {
        const q = buf.indexOf(QUOTE, i);
        if (q === -1 || q >= bytesRead) {
          // The string goes on in the next chunk.
          let k = bytesRead - 1;
          while (k >= i && buf[k] === BACKSLASH) k--;
          carry = k < i ? carry + (bytesRead - i) : bytesRead - 1 - k;
          break;
        }
        let k = q - 1;
        while (k >= i && buf[k] === BACKSLASH) k--;
        const backslashes = k < i ? carry + (q - i) : q - 1 - k;
        carry = 0;
        i = q;
        // An escaped quote: still inside the string.
        if (backslashes % 2 === 1) continue;
        inString = false;
        if (isKey) {
          const name: string | undefined = keep && partsLen + q - capStart <= MAX_FIELD_BYTES ? decode(partsLen ? Buffer.concat([...parts, buf.subarray(capStart, q)]) : buf.subarray(capStart, q)) : undefined;
          key = name !== undefined && keys.has(name) ? name : null;
        } else if (key !== null) {
          const value: string | undefined = keep && partsLen + q - capStart <= MAX_FIELD_BYTES ? decode(partsLen ? Buffer.concat([...parts, buf.subarray(capStart, q)]) : buf.subarray(capStart, q)) : undefined;
          if (value === undefined) delete fields![key];
          else fields![key] = value;
          key = null;
        }
        parts = [];
        partsLen = 0;
        continue;
      }
      const c = buf[i]!;
      if (scalar !== null && !isLiteral(c)) finishScalar();
      if (isSpace(c)) continue;
      if (ended) return false;
      if (c === QUOTE) {
        if (depth === 0) return false;
        inString = true;
        carry = 0;
        isKey = depth === 2 && fields !== null && expectKey;
        if (isKey) expectKey = false;
        keep = isKey || (depth === 2 && key !== null);
        capStart = i + 1;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (depth === 0) {
          if (c !== 0x5b || started) return false;
          started = true;
        } else if (depth === 1) {
          fields = c === 0x7b ? {} : null;
          expectKey = c === 0x7b;
        } else if (depth === 2 && key !== null) {
          delete fields![key];
          key = null;
        }
        depth++;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        if (depth === 0) return false;
        depth--;
        if (depth === 1 && fields) {
          onObject(fields);
          fields = null;
        } else if (depth === 0) ended = true;
        continue;
      }
      if (c === 0x2c) {
        if (depth === 2 && fields) {
          expectKey = true;
          key = null;
        }
        continue;
      }
      if (c === 0x3a) continue;
      if (!isLiteral(c) || depth === 0) return false;
      if (depth === 2 && key !== null && !expectKey) {
        // A number longer than any time is not one to keep: made invalid, so it is left out.
        scalar = (scalar ?? '').length > 64 ? 'x' : (scalar ?? '') + String.fromCharCode(c);
      }
    }
    if (inString && keep) {
      // A kept string goes on in the next chunk: its bytes so far are copied (the buffer is reused).
      partsLen += bytesRead - capStart;
      if (partsLen > MAX_FIELD_BYTES) keep = false;
      else parts.push(Buffer.from(buf.subarray(capStart, bytesRead)));
      capStart = 0;
    }
  }
  return ended && !inString;
}
