import { promises as fs } from 'node:fs';
import type { ContextResult } from './types';

/**
 * Turns the lines of one agent's log into a reading. The reader feeds complete lines in file order
 * to `apply`; `decisive` lets it start from the end of a huge file and stop at the newest line that
 * settles the reading on its own (every line before it can then be skipped).
 */
export interface LineParser<S> {
  initial(): S;
  /** True when this line alone settles the reading, so nothing before it matters. */
  decisive(line: string): boolean;
  /** Applies one complete line; returns the new state (never mutates `state`). */
  apply(state: S, line: string): S;
  /**
   * Optional: takes what it can from the file's first bytes (up to 256), which the reader holds anyway
   * to detect a replaced file — e.g. a session id written once at the top of a huge log.
   */
  head?(state: S, head: string): S;
  /**
   * Optional: sees the complete lines a scan read but skipped (older than the decisive line), oldest
   * first — for facts a later decisive line does not replace, such as a compaction just before a call.
   */
  skipped?(state: S, line: string): S;
  /** The reading for the state. `file` is the log the lines came from. */
  result(state: S, file: string): ContextResult;
}

/** What the last `read()` cost: tests and the benchmark assert on it. */
export interface TailReadStats {
  /** Bytes read from disk by this call. */
  bytesRead: number;
  /** `initial`: scanned back from the end; `append`: read only new bytes; `unchanged`: nothing read. */
  mode: 'initial' | 'append' | 'unchanged' | 'missing';
  /** True when the file shrank or was replaced and the reader started over. */
  restarted: boolean;
}

export interface TailReaderOptions {
  /** First chunk read from the end; later chunks double (to 8 MiB). */
  chunkSize?: number;
  /** Give up scanning back after this many bytes without a usable line (default 256 MiB). */
  maxScanBytes?: number;
}

const NL = 0x0a;
const HEAD_BYTES = 256;
const MAX_CHUNK = 8 * 1024 * 1024;

/**
 * An incremental reader for one append-only JSONL log. The first read scans back from the end in
 * growing chunks until a decisive line; later reads parse only the appended bytes. A partial last line
 * is kept for later; a file that shrinks or is replaced (other inode, or its first bytes differ) starts
 * over. Long-lived callers keep one reader per file.
 */
export class TailReader<S> {
  private state: S;
  /** Byte offset just past the last complete line applied. */
  private offset = 0;
  private size = -1;
  private mtimeMs = -1;
  private ino = -1;
  private head: Buffer = Buffer.alloc(0);
  /** A trailing line without its newline: applied tentatively, re-read next time. */
  private fragment = '';
  private scannedAll = true;
  private lastStats: TailReadStats = { bytesRead: 0, mode: 'unchanged', restarted: false };
  private total = 0;
  private readonly chunkSize: number;
  private readonly maxScanBytes: number;

  constructor(
    readonly file: string,
    private readonly parser: LineParser<S>,
    options: TailReaderOptions = {},
  ) {
    this.state = parser.initial();
    this.chunkSize = options.chunkSize ?? 64 * 1024;
    this.maxScanBytes = options.maxScanBytes ?? 256 * 1024 * 1024;
  }

  /** What the last `read()` cost. */
  get stats(): TailReadStats {
    return this.lastStats;
  }

  /** Bytes read from disk over the reader's life. */
  get totalBytesRead(): number {
    return this.total;
  }

  /** Brings the reading up to date with the file and returns it. Never throws for I/O problems. */
  async read(): Promise<ContextResult> {
    let st;
    try {
      st = await fs.stat(this.file);
    } catch (err) {
      this.reset();
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      return { known: false, reason: `cannot read ${this.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, file: this.file };
    }
    if (this.size >= 0 && st.size === this.size && st.mtimeMs === this.mtimeMs && st.ino === this.ino) {
      this.lastStats = { bytesRead: 0, mode: 'unchanged', restarted: false };
      return this.current();
    }
    const handle = await fs.open(this.file, 'r');
    try {
      let bytes = 0;
      let restarted = false;
      if (this.size >= 0) {
        const headNow = await readAt(handle, 0, Math.min(this.head.length, st.size));
        bytes += headNow.length;
        restarted = st.ino !== this.ino || st.size < this.size || !headNow.equals(this.head);
        if (restarted) this.reset();
      }
      const mode = this.size < 0 ? 'initial' : 'append';
      if (this.size < 0) {
        this.head = await readAt(handle, 0, Math.min(HEAD_BYTES, st.size));
        bytes += this.head.length;
        if (this.parser.head) this.state = this.parser.head(this.state, this.head.toString('utf8'));
      }
      bytes += await this.scan(handle, st.size);
      this.size = st.size;
      this.mtimeMs = st.mtimeMs;
      this.ino = st.ino;
      this.total += bytes;
      this.lastStats = { bytesRead: bytes, mode, restarted };
      return this.current();
    } finally {
      await handle.close();
    }
  }

  private reset(): void {
    this.state = this.parser.initial();
    this.offset = 0;
    this.size = -1;
    this.mtimeMs = -1;
    this.ino = -1;
    this.head = Buffer.alloc(0);
    this.fragment = '';
    this.scannedAll = true;
  }

  private current(): ContextResult {
    let state = this.state;
    // A last line without its newline may still be complete JSON (some writers flush it that way).
    if (this.fragment && isJson(this.fragment)) state = this.parser.apply(state, this.fragment);
    const result = this.parser.result(state, this.file);
    if (!result.known && !this.scannedAll) {
      return { ...result, reason: `${result.reason} (only the last ${mib(this.maxScanBytes)} were searched)` };
    }
    return result;
  }

  /**
   * Scans [offset, size) backwards in growing chunks until a decisive line, then applies the lines
   * from there on in order. Returns the bytes read.
   */
  private async scan(handle: fs.FileHandle, size: number): Promise<number> {
    const from = this.offset;
    let pos = size;
    let buf: Buffer = Buffer.alloc(0);
    let chunk = this.chunkSize;
    let bytes = 0;
    let lastNl = -1; // absolute position of the newline ending the last complete line
    let checkedTo = -1; // absolute position of the newline ending the next line to check
    let start = -1; // absolute position where applying starts
    while (start < 0) {
      const lower = Math.max(from, pos - chunk);
      const part = await readAt(handle, lower, pos - lower);
      bytes += part.length;
      buf = buf.length ? Buffer.concat([part, buf]) : part;
      pos = lower;
      chunk = Math.min(chunk * 2, MAX_CHUNK);
      if (lastNl < 0) {
        const i = buf.lastIndexOf(NL);
        if (i >= 0) lastNl = checkedTo = pos + i;
        else if (pos > from) continue;
        else break; // no complete line at all
      }
      // Check complete lines, newest first, while their start lies inside the buffer.
      for (;;) {
        const endRel = checkedTo - pos;
        const prev = endRel > 0 ? buf.lastIndexOf(NL, endRel - 1) : -1;
        if (prev < 0 && pos > from) break; // the line may begin before the buffer: read more
        const lineStart = prev + 1;
        if (this.parser.decisive(buf.toString('utf8', lineStart, endRel))) {
          start = pos + lineStart;
          break;
        }
        if (prev < 0) {
          start = from; // reached the lower bound: apply everything
          break;
        }
        checkedTo = pos + prev;
      }
      if (start < 0 && size - pos >= this.maxScanBytes) {
        this.scannedAll = false;
        start = checkedTo + 1;
      }
    }
    if (lastNl >= 0 && this.parser.skipped && start > pos) {
      // The complete lines read before the decisive one (the first may be cut when the scan stopped early).
      const first = pos === from ? 0 : buf.indexOf(NL) + 1;
      for (const line of buf.toString('utf8', first, Math.max(first, start - pos)).split('\n')) {
        if (line.trim()) this.state = this.parser.skipped(this.state, line);
      }
    }
    if (lastNl >= 0) {
      for (const line of buf.toString('utf8', start - pos, lastNl - pos).split('\n')) {
        if (line.trim()) this.state = this.parser.apply(this.state, line);
      }
      this.offset = lastNl + 1;
    }
    this.fragment = buf.toString('utf8', (lastNl >= 0 ? lastNl + 1 : from) - pos);
    return bytes;
  }
}

async function readAt(handle: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function mib(n: number): string {
  return `${Math.round(n / (1024 * 1024))} MiB`;
}
