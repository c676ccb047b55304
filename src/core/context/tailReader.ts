import type { FileHandle } from '../fsx';
import { files, openRegular } from '../fsx';
import type { BackLine } from './lineScan';
import { backwardLines, forwardLines, readAt } from './lineScan';
import { LineSplitter, MAX_LINE_BYTES } from '../session/lines';
import { isZst, streamZst } from '../zstd';
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
  /** A longer line is skipped with a warning, never held in memory (default 16 MiB). */
  maxLineBytes?: number;
}

const HEAD_BYTES = 256;
/** Lines already read on the way back are kept up to this much, so applying them needs no second read. */
const RETAIN_BYTES = 16 * 1024 * 1024;
/** Skipped lines named in the reading's warnings; more are counted. */
const MAX_WARNINGS = 3;


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
  /** -1 until a read: no file matches it. `mtimeMs` and `ino` are compared only once it is known. */
  private size = -1;
  private mtimeMs = 0;
  private ino = 0;
  private head: Buffer = Buffer.alloc(0);
  /** A trailing line without its newline: applied tentatively, re-read next time. */
  private fragment: string | null = null;
  private scannedAll = true;
  /** Bytes [offset, overlongTo) are one unfinished line already known to be over the cap: not read again. */
  private overlongTo = -1;
  /** Lines skipped as too long, for the reading's warnings. */
  private skipped: string[] = [];
  private skippedMore = 0;
  /** The unfinished last line when it is over the cap (replaced on every read). */
  private unfinished: string | null = null;
  private lastStats: TailReadStats = { bytesRead: 0, mode: 'unchanged', restarted: false };
  private total = 0;
  private readonly chunkSize: number;
  private readonly maxScanBytes: number;
  private readonly maxLineBytes: number;

  constructor(
    readonly file: string,
    private readonly parser: LineParser<S>,
    options: TailReaderOptions = {},
  ) {
    this.state = parser.initial();
    this.chunkSize = options.chunkSize ?? 64 * 1024;
    this.maxScanBytes = options.maxScanBytes ?? 256 * 1024 * 1024;
    this.maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024;
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
      st = await files().stat(this.file);
    } catch (err) {
      this.reset();
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      return { known: false, reason: `cannot read ${this.file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, file: this.file };
    }
    // Same size, time and inode as the regular file read last (an inode never changes its type).
    if (st.size === this.size && st.mtimeMs === this.mtimeMs && st.ino === this.ino) {
      this.lastStats = { bytesRead: 0, mode: 'unchanged', restarted: false };
      return this.current();
    }
    if (isZst(this.file)) return this.readCompressed(st);
    // A FIFO or a device in place of the log would block or stream forever: refused, never read.
    const opened = await openRegular(this.file);
    if (!opened.ok) {
      this.reset();
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      const why = opened.refusal.kind === 'missing' ? 'it no longer exists' : `it ${opened.refusal.message}`;
      return { known: false, reason: `cannot read ${this.file}: ${why}`, file: this.file };
    }
    const { handle } = opened.file;
    st = { size: opened.file.size, mtimeMs: opened.file.mtimeMs, ino: opened.file.ino };
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

  /**
   * A compressed rollout (`.jsonl.zst`) cannot be read from its end: it is decoded whole as a stream,
   * keeping only what applying needs — the lines since the newest decisive line, up to RETAIN_BYTES
   * (past that they are applied as they come). Codex never appends to a compressed file, so any change
   * reads it again. Bytes counted are compressed bytes.
   */
  private async readCompressed(st: { size: number; mtimeMs: number; ino: number }): Promise<ContextResult> {
    const restarted = this.size >= 0;
    this.reset();
    const parser = this.parser;
    let first = true;
    let base = parser.initial();
    let state = base;
    let since: string[] = [];
    let sinceBytes = 0;
    const splitter = new LineSplitter({
      line: (bytes) => {
        const text = bytes.toString('utf8');
        if (parser.decisive(text)) {
          let s = base;
          if (parser.skipped) for (const older of since) s = parser.skipped(s, older);
          state = parser.apply(s, text);
          since = [];
          sinceBytes = 0;
          return;
        }
        since.push(text);
        sinceBytes += bytes.length;
        if (sinceBytes <= RETAIN_BYTES) return;
        for (const l of since) state = parser.apply(state, l);
        since = [];
        sinceBytes = 0;
      },
      oversized: (_head, _tail, lineNo) => {
        if (this.skipped.length >= MAX_WARNINGS) this.skippedMore++;
        else this.skipped.push(`${this.file}: line ${lineNo} of the decompressed rollout is over ${mib(MAX_LINE_BYTES)}; line too long, skipped`);
      },
    });
    let done;
    try {
      done = await streamZst(this.file, (piece) => {
        // The first decoded piece holds the head (a zstd block is up to 128 KiB; a shorter one is the whole file).
        if (first) {
          first = false;
          if (parser.head) state = base = parser.head(base, piece.subarray(0, HEAD_BYTES).toString('utf8'));
        }
        splitter.push(piece);
      });
    } catch (err) {
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted };
      return { known: false, reason: (err as Error).message, file: this.file };
    }
    if (!done) {
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      return { known: false, reason: `cannot read ${this.file}: it no longer exists`, file: this.file };
    }
    for (const l of since) state = parser.apply(state, l);
    this.state = state;
    this.size = st.size;
    this.mtimeMs = st.mtimeMs;
    this.ino = st.ino;
    this.total += done.bytesRead;
    this.lastStats = { bytesRead: done.bytesRead, mode: restarted ? 'append' : 'initial', restarted };
    return this.current();
  }

  private reset(): void {
    this.state = this.parser.initial();
    this.offset = 0;
    this.size = -1;
    this.head = Buffer.alloc(0);
    this.fragment = null;
    this.scannedAll = true;
    this.overlongTo = -1;
    this.skipped = [];
    this.skippedMore = 0;
    this.unfinished = null;
  }

  private current(): ContextResult {
    let state = this.state;
    // A last line without its newline may still be complete JSON (some writers flush it that way).
    if (this.fragment && isJson(this.fragment)) state = this.parser.apply(state, this.fragment);
    let result = this.parser.result(state, this.file);
    if (!result.known && !this.scannedAll) {
      result = { ...result, reason: `${result.reason} (only the last ${mib(this.maxScanBytes)} were searched)` };
    }
    const warnings = [
      ...this.skipped,
      ...(this.skippedMore ? [`${this.file}: ${this.skippedMore} more lines too long, skipped`] : []),
      ...(this.unfinished ? [this.unfinished] : []),
    ];
    return warnings.length ? { ...result, warnings } : result;
  }

  private tooLong(what: string): string {
    return `${this.file}: ${what}, over the ${mib(this.maxLineBytes)} line limit; line too long, skipped`;
  }

  private noteSkipped(start: number, length: number): void {
    if (this.skipped.length >= MAX_WARNINGS) this.skippedMore++;
    else this.skipped.push(this.tooLong(`line at byte ${start} is ${mib1(length)}`));
  }

  /**
   * Scans [offset, size) backwards in growing chunks until a decisive line, then applies the lines
   * from there on in order. Memory stays bounded by the chunk, the line cap and what is retained: a
   * line over `maxLineBytes` is read through to find its start but never held, and is skipped with a
   * warning. Returns the bytes read.
   */
  private async scan(handle: FileHandle, size: number): Promise<number> {
    const from = this.offset;
    let bytes = 0;
    // Just past the last complete line found: where the next read starts.
    let end = from;
    // Where applying starts: the newest decisive line, the oldest line the scan reached, or `from`.
    let start = from;
    // Lines from `start` on, newest first, while they fit in RETAIN_BYTES; else re-read forward.
    let retained: BackLine[] | null = [];
    let retainedBytes = 0;
    const lines = backwardLines(handle, from, size, {
      chunk: this.chunkSize,
      cap: this.maxLineBytes,
      maxScan: this.maxScanBytes,
      knownOverlongTo: this.overlongTo,
      onRead: (n) => (bytes += n),
      skipBlank: true,
    });
    this.fragment = null;
    this.overlongTo = -1;
    this.unfinished = null;
    // Older lines the scan already holds in memory once the decisive line is found (no further read):
    // facts a later decisive line does not replace, such as a compaction just before the settling call.
    const older: string[] = [];
    let readAtDecisive: number | null = null;
    for await (const item of lines) {
      if (readAtDecisive !== null) {
        if (item.kind !== 'line' || bytes !== readAtDecisive) break;
        if (item.bytes) older.push(item.bytes.toString('utf8'));
        continue;
      }
      if (item.kind === 'limit') {
        this.scannedAll = false;
        start = item.resumeAt;
        break;
      }
      if (item.kind === 'fragment') {
        // The unfinished last line, after the last newline: kept for the next read unless already over the cap.
        end = item.start;
        if (item.bytes) this.fragment = item.bytes.toString('utf8');
        else {
          this.overlongTo = item.end;
          this.unfinished = this.tooLong(`last line (from byte ${item.start}) is ${mib1(item.end - item.start)} so far without an end`);
        }
        continue;
      }
      if (retained) {
        retainedBytes += item.bytes?.length ?? 0;
        if (retainedBytes <= RETAIN_BYTES) retained.push(item);
        else retained = null;
      }
      if (item.bytes && this.parser.decisive(item.bytes.toString('utf8'))) {
        start = item.start;
        if (!this.parser.skipped) break;
        readAtDecisive = bytes;
      }
    }
    for (let i = older.length - 1; i >= 0; i--) if (older[i]!.trim()) this.state = this.parser.skipped!(this.state, older[i]!);
    // The lines from `start` to `end`: all retained (newest first), or read again.
    const apply = (line: BackLine): void => {
      if (!line.bytes) return this.noteSkipped(line.start, line.end - line.start);
      const text = line.bytes.toString('utf8');
      if (text.trim()) this.state = this.parser.apply(this.state, text);
    };
    if (retained) for (let i = retained.length - 1; i >= 0; i--) apply(retained[i]!);
    else bytes += await forwardLines(handle, start, end, this.maxLineBytes, apply, true);
    this.offset = end;
    return bytes;
  }
}

/** True when the text is one whole JSON value. */
export function isJson(text: string): boolean {
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

function mib1(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
