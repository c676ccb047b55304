import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { openRegular } from '../fsx';
import { isZst, streamZst } from '../zstd';

/** What discovery needs from the top of an agent log. */
export interface Head {
  cwd?: string;
  sessionId?: string;
  subAgent?: boolean;
  /**
   * True when more bytes cannot change the head: the session's own first line was found (or the
   * file is known not to be a session). An unsettled head — nothing usable yet, or only sub-agent
   * lines so far — is read again when the file changes, so a session caught while it was starting
   * (or while its first line was half-written) is found on the next look.
   */
  settled?: boolean;
  /**
   * Codex paginated history: the page this rollout continues — the predecessor's rollout id and the
   * ordinal (and byte offset) where its part of the thread ends (`session_meta.history_base`).
   */
  historyBase?: HistoryBase;
}

/** Where a Codex page's thread goes on in an older file (FORMATS.md, Late 2026, L2.6). */
export interface HistoryBase {
  rolloutId: string;
  endOrdinal: number;
  endByte: number | null;
}

/** `session_meta.history_base` as read, undefined when absent or malformed. */
export function historyBaseOf(payload: Record<string, unknown>): HistoryBase | undefined {
  const b = payload['history_base'];
  if (!b || typeof b !== 'object') return undefined;
  const { thread_id: id, end_ordinal_exclusive: end, end_byte_offset: byte } = b as Record<string, unknown>;
  if (typeof id !== 'string' || typeof end !== 'number' || !Number.isInteger(end) || end < 0) return undefined;
  return { rolloutId: id, endOrdinal: end, endByte: typeof byte === 'number' ? byte : null };
}

/**
 * Reads a file's first lines in 64 KiB steps until `accept` returns a value for one of them, at most
 * `maxBytes` — enough for the cwd and session id without reading a transcript of hundreds of MB.
 */
export async function scanHead<T>(file: string, accept: (line: string) => T | undefined, maxBytes = 256 * 1024): Promise<T | undefined> {
  // A character cut between two steps is decoded whole once its last bytes are read.
  const decoder = new StringDecoder(); // UTF-8
  let pending = '';
  let found: T | undefined;
  /** Takes the next bytes; true once a line was accepted. */
  const take = (bytes: Buffer): boolean => {
    const lines = (pending + decoder.write(bytes)).split('\n');
    pending = lines.pop() as string; // split gives at least one piece; the last may be cut
    for (const line of lines) {
      const v = line.trim() ? accept(line) : undefined;
      if (v !== undefined) {
        found = v;
        return true;
      }
    }
    return false;
  };
  if (isZst(file)) {
    // A compressed rollout: its first decoded bytes, decoding no further than needed.
    let seen = 0;
    await streamZst(file, (piece) => {
      const part = piece.subarray(0, Math.max(0, maxBytes - seen));
      seen += part.length;
      return take(part) || seen >= maxBytes;
    });
    return found;
  }
  // Never `open` a FIFO or a device that sits where a log should be: it would block or never end.
  const opened = await openRegular(file);
  if (!opened.ok) return undefined;
  const { handle } = opened.file;
  try {
    let pos = 0;
    // Stryker disable next-line EqualityOperator: at maxBytes the next step asks for 0 bytes, reads none and ends the loop alike
    while (pos < maxBytes) {
      const buf = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes - pos));
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      if (take(buf.subarray(0, bytesRead))) return found;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * A line's JSON value, undefined when it is not JSON. Any value but null is read as an object: a field
 * of a string, a number or an array is undefined, like a field the line does not have.
 */
function parseObject(line: string): Record<string, unknown> | null | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown> | null;
  } catch {
    return undefined;
  }
}

/** Lines up to this long are parsed whole; a longer one is scanned for its keys without being held. */
export const HEAD_LINE_BOUND = 256 * 1024;
/** How far the head of a transcript is looked for: it stops at the first main-chain line with a cwd. */
export const CLAUDE_HEAD_BYTES = 32 * 1024 * 1024;

/** What a scan of a line's bytes (without parsing it) found: the first value of each key. */
export interface KeyValues {
  cwd?: string;
  sessionId?: string;
  sidechain: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const CWD_KEY = Buffer.from('"cwd":"');
const SESSION_KEY = Buffer.from('"sessionId":"');
const SIDECHAIN_KEY = Buffer.from('"isSidechain":true');
/** A key's value longer than this is not a path or an id: given up. */
const MAX_VALUE = 8 * 1024;

/**
 * The end (index of the closing quote) of a JSON string value starting at `from`, or -1 when the
 * bytes end first. Inside a JSON line every quote of a nested text is escaped, so an unescaped
 * `"cwd":"` is a key of the line's own objects, never text the line quotes.
 */
function valueEnd(buf: Buffer, from: number): number {
  for (let i = from; i < buf.length && i - from <= MAX_VALUE; i++) {
    const c = buf[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

function decodeValue(buf: Buffer, from: number, end: number): string | undefined {
  try {
    const v: unknown = JSON.parse(`"${buf.toString('utf8', from, end)}"`);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Scans one over-long line, chunk by chunk, for `"cwd":"…"`, `"sessionId":"…"` and
 * `"isSidechain":true` without holding it: a pasted image can make a line megabytes long and write
 * its `cwd` after the image.
 */
class LineKeyScan {
  private carry: Buffer = Buffer.alloc(0);
  readonly values: KeyValues = { sidechain: false };

  push(chunk: Buffer): void {
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    let keep = Math.max(0, buf.length - MAX_VALUE - 32);
    for (const [key, field] of [[CWD_KEY, 'cwd'], [SESSION_KEY, 'sessionId']] as const) {
      if (this.values[field] !== undefined) continue;
      const at = buf.indexOf(key);
      if (at === -1) continue;
      const end = valueEnd(buf, at + key.length);
      if (end !== -1) {
        const v = decodeValue(buf, at + key.length, end);
        if (v !== undefined) this.values[field] = v;
      } else if (buf.length - at <= MAX_VALUE + 32) {
        // The value goes on in the next chunk: keep it from its key.
        keep = Math.min(keep, at);
      }
    }
    if (!this.values.sidechain && buf.indexOf(SIDECHAIN_KEY) !== -1) this.values.sidechain = true;
    this.carry = Buffer.from(buf.subarray(keep));
  }
}

/**
 * Reads a JSONL file from `from` in steps, handing each complete line to `onLine`: a line up to
 * `bound` bytes as text, a longer one as the key values scanned from it (never held whole). Stops when
 * `onLine` returns true, at `maxBytes`, or at the end (a last line without its newline is left out).
 * Returns the offset just past the last line handed out.
 */
export async function scanLines(
  file: string,
  opts: { from?: number; maxBytes: number; bound: number },
  onLine: (line: { text: string } | { keys: KeyValues }, end: number) => boolean | void,
): Promise<number> {
  const opened = await openRegular(file);
  if (!opened.ok) return opts.from ?? 0;
  const { handle } = opened.file;
  const from = opts.from ?? 0;
  let done = from;
  try {
    let pos = from;
    let parts: Buffer[] = [];
    let partsLen = 0;
    let big: LineKeyScan | null = null;
    const limit = from + opts.maxBytes;
    while (pos < limit) {
      const buf = Buffer.allocUnsafe(Math.min(256 * 1024, limit - pos));
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      let s = 0;
      for (;;) {
        const nl = chunk.indexOf(NEWLINE, s);
        const piece = chunk.subarray(s, nl === -1 ? chunk.length : nl);
        if (big) big.push(piece);
        else {
          parts.push(piece);
          partsLen += piece.length;
          if (partsLen > opts.bound) {
            big = new LineKeyScan();
            for (const p of parts) big.push(p);
            parts = [];
            partsLen = 0;
          }
        }
        if (nl === -1) break;
        done = pos + nl + 1;
        const line: { text: string } | { keys: KeyValues } = big ? { keys: big.values } : { text: Buffer.concat(parts, partsLen).toString('utf8') };
        parts = [];
        partsLen = 0;
        big = null;
        if (('keys' in line || line.text.trim()) && onLine(line, done)) return done;
        s = nl + 1;
      }
      pos += bytesRead;
    }
    return done;
  } finally {
    await handle.close();
  }
}

/**
 * The cwd and session of a Claude Code transcript: its first main-chain line with a cwd, however long
 * the lines before it or the line itself are (a pasted image can put the cwd past 300 KB). Some
 * versions open a session with sub-agent ("Warmup") lines, so a sidechain line alone does not make the
 * file a sub-agent's: only a file of sidechain lines (an `agent-*.jsonl`, or one with no main line
 * in its first `maxBytes`) is one.
 */
export async function claudeHead(file: string, maxBytes = CLAUDE_HEAD_BYTES): Promise<Head> {
  let side: Head | undefined;
  let main: Head | undefined;
  await scanLines(file, { maxBytes, bound: HEAD_LINE_BOUND }, (line) => {
    let cwd: unknown;
    let sessionId: unknown;
    let sidechain: boolean;
    if ('keys' in line) {
      ({ cwd, sessionId, sidechain } = line.keys);
    } else {
      // Stryker disable next-line ConditionalExpression,StringLiteral: only saves parsing a line without a cwd, which the next line turns down too (short of a key spelt with escapes, which no agent writes)
      if (!line.text.includes('"cwd"')) return false;
      const o = parseObject(line.text);
      if (!o) return false;
      ({ cwd, sessionId } = o);
      sidechain = o['isSidechain'] === true;
    }
    if (typeof cwd !== 'string') return false;
    const head: Head = { cwd, ...(typeof sessionId === 'string' ? { sessionId } : {}) };
    if (!sidechain) {
      main = { ...head, subAgent: false, settled: true };
      return true;
    }
    side ??= head;
    return false;
  });
  if (main) return main;
  if (!side) return {};
  // Only sub-agent lines so far: settled when the name or the size says it will stay that way (bytes
  // past maxBytes are never read).
  const settled = path.basename(file).startsWith('agent-') || (await fs.stat(file)).size >= maxBytes;
  return { ...side, subAgent: true, settled };
}

/**
 * Every working directory a session log names (`"cwd":"…"` keys of its lines: Claude Code writes one
 * on every line, and a `cd` changes it; Codex in `session_meta`, `turn_context` and command ends),
 * found without parsing: the bytes are searched for the key. Incremental: a later call reads only what
 * was appended; a file that shrank or was replaced is read again.
 */
export class CwdScanner {
  private offset = 0;
  private ino = -1;
  private size = -1;
  private readonly seen = new Set<string>();

  /** The cwds in order of first appearance (at most 64). */
  get cwds(): string[] {
    return [...this.seen];
  }

  /** Bytes read by the last `scan` (for a caller that spreads a big file over several looks). */
  lastBytes = 0;

  /** Reads what was appended since the last call, at most `budget` bytes of it (the rest next time). */
  async scan(file: string, st: { size: number; ino: number }, budget = Number.POSITIVE_INFINITY): Promise<string[]> {
    this.lastBytes = 0;
    if (st.ino !== this.ino || st.size < this.size) {
      this.offset = 0;
      this.seen.clear();
    }
    this.ino = st.ino;
    this.size = st.size;
    if (st.size <= this.offset) return this.cwds;
    if (isZst(file)) {
      // A compressed rollout does not grow (Codex makes it plain again to append): searched once, from
      // its start, as far as the budget of decoded bytes goes (decoding cannot resume where it stopped).
      let carry: Buffer = Buffer.alloc(0);
      await streamZst(file, (piece) => {
        this.lastBytes += piece.length;
        carry = this.search(carry.length ? Buffer.concat([carry, piece]) : piece);
        return this.seen.size >= 64 || this.lastBytes >= budget;
      });
      this.offset = st.size;
      return this.cwds;
    }
    const opened = await openRegular(file);
    if (!opened.ok) return this.cwds;
    const { handle } = opened.file;
    try {
      let pos = this.offset;
      let carry: Buffer = Buffer.alloc(0);
      while (pos < st.size && this.seen.size < 64 && this.lastBytes < budget) {
        const buf = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, st.size - pos));
        const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        this.lastBytes += bytesRead;
        const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
        const base = pos - carry.length;
        pos += bytesRead;
        carry = this.search(data);
        // Only complete lines count as read: a torn last line is searched again next time.
        const lastNl = data.lastIndexOf(NEWLINE);
        if (lastNl !== -1) this.offset = base + lastNl + 1;
      }
    } finally {
      await handle.close();
    }
    return this.cwds;
  }

  /** Adds the cwds of `data`'s lines; returns what to keep for the next bytes (a key whose value goes on). */
  private search(data: Buffer): Buffer {
    let at = data.indexOf(CWD_KEY);
    let keepFrom = Math.max(0, data.length - CWD_KEY.length);
    while (at !== -1) {
      const end = valueEnd(data, at + CWD_KEY.length);
      if (end === -1) {
        keepFrom = data.length - at <= MAX_VALUE + CWD_KEY.length ? at : keepFrom;
        break;
      }
      const v = decodeValue(data, at + CWD_KEY.length, end);
      if (v && this.seen.size < 64) this.seen.add(v);
      // One cwd a line: the rest of the line is not searched.
      const nl = data.indexOf(NEWLINE, end);
      if (nl === -1) {
        keepFrom = data.length;
        break;
      }
      at = data.indexOf(CWD_KEY, nl);
    }
    return Buffer.from(data.subarray(Math.min(keepFrom, data.length)));
  }
}

/** The cwd and session of a Codex rollout, from its `session_meta` first line. */
export async function codexHead(file: string): Promise<Head> {
  // session_meta is the first line, but it may carry the full base instructions: allow a few MB.
  const head = await scanHead(
    file,
    (line): Head | undefined => {
      const o = parseObject(line);
      const payload = o?.['payload'] as Record<string, unknown> | undefined;
      if (o?.['type'] !== 'session_meta' || !payload) return { settled: true };
      const base = historyBaseOf(payload);
      return {
        ...(base ? { historyBase: base } : {}),
        settled: true,
        ...(typeof payload['cwd'] === 'string' ? { cwd: payload['cwd'] } : {}),
        ...(typeof payload['id'] === 'string' ? { sessionId: payload['id'] } : {}),
        // Sub-agent rollouts (review, compaction helpers…) carry an object source: not the session.
        subAgent: typeof payload['source'] === 'object' && payload['source'] !== null,
      };
    },
    4 * 1024 * 1024,
  );
  return head ?? {};
}
