/** What a session reader does with each complete line of a log. */
export interface LineHandler {
  /** One complete line (without its newline), at most `MAX_LINE_BYTES`. */
  line(bytes: Buffer, lineNo: number): void;
  /** A line too long to hold: its first and last bytes only. */
  oversized(head: string, tail: string, lineNo: number): void;
}

/** Lines longer than this are not held in memory: only their head and tail are looked at. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** How much of an oversized line's start and end is kept. */
export const OVERSIZED_KEEP = 64 * 1024;

const needles = new Map<string, Buffer>();
function needle(s: string): Buffer {
  let b = needles.get(s);
  if (!b) {
    b = Buffer.from(s, 'utf8');
    needles.set(s, b);
  }
  return b;
}

/** True when the bytes contain `s` (a JSON-structure pattern such as `"type":"user"`). */
export function has(bytes: Buffer, s: string): boolean {
  return bytes.indexOf(needle(s)) !== -1;
}

/** Bytes at each end of a line where top-level keys sit (the big nested `message` / `payload` is between). */
const EDGE = 4096;

/**
 * True when `s` occurs within the first or last few KB of the line: the cheap test for a top-level
 * key such as `"type":"user"` that does not scan the middle of a line of hundreds of KB.
 */
export function hasAtEdges(bytes: Buffer, s: string): boolean {
  if (bytes.length <= 2 * EDGE) return has(bytes, s);
  return bytes.subarray(0, EDGE).indexOf(needle(s)) !== -1 || bytes.subarray(bytes.length - EDGE).indexOf(needle(s)) !== -1;
}

/** True when `s` occurs within the first few KB of the line. */
export function hasInHead(bytes: Buffer, s: string): boolean {
  return (bytes.length <= EDGE ? bytes : bytes.subarray(0, EDGE)).indexOf(needle(s)) !== -1;
}

/** Every string value that follows `prefix` (which ends with an opening quote), up to the closing quote. */
export function idsAfter(bytes: Buffer, prefix: string): string[] {
  const n = needle(prefix);
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const at = bytes.indexOf(n, from);
    if (at === -1) break;
    const start = at + n.length;
    const end = bytes.indexOf(0x22, start);
    if (end === -1 || end - start > 200) break;
    out.push(bytes.toString('utf8', start, end));
    from = end + 1;
  }
  return out;
}

/**
 * Splits a byte stream into lines with bounded memory: a line is held only up to `MAX_LINE_BYTES`;
 * beyond that only its first and last `OVERSIZED_KEEP` bytes are kept. The last line without a
 * newline is not handed out: `pendingBytes` says how long it is, so the caller can re-read it later.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private oversize: { head: Buffer; tail: Buffer } | null = null;
  /** 1-based number of the next line. */
  lineNo = 1;

  constructor(private readonly handler: LineHandler) {}

  /** Bytes of the current, unfinished line. */
  get pendingBytes(): number {
    return this.partBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      this.add(chunk.subarray(start, end));
      if (nl === -1) return;
      this.emit();
      start = nl + 1;
    }
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    this.partBytes += piece.length;
    if (this.oversize) {
      this.oversize.tail = keepTail(this.oversize.tail, piece);
      return;
    }
    this.parts.push(piece);
    if (this.partBytes > MAX_LINE_BYTES) {
      const all = Buffer.concat(this.parts);
      this.oversize = { head: Buffer.from(all.subarray(0, OVERSIZED_KEEP)), tail: Buffer.from(all.subarray(all.length - OVERSIZED_KEEP)) };
      this.parts = [];
    }
  }

  /** Forgets the unfinished last line: the caller reads it again, whole, once it is complete. */
  discardPending(): void {
    this.parts = [];
    this.partBytes = 0;
    this.oversize = null;
  }

  private emit(): void {
    const lineNo = this.lineNo++;
    if (this.oversize) {
      this.handler.oversized(this.oversize.head.toString('utf8'), this.oversize.tail.toString('utf8'), lineNo);
    } else if (this.partBytes > 0) {
      const bytes = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
      if (!isBlank(bytes)) this.handler.line(bytes, lineNo);
    }
    this.parts = [];
    this.partBytes = 0;
    this.oversize = null;
  }
}

function keepTail(prev: Buffer, piece: Buffer): Buffer {
  if (piece.length >= OVERSIZED_KEEP) return Buffer.from(piece.subarray(piece.length - OVERSIZED_KEEP));
  const joined = Buffer.concat([prev, piece]);
  return joined.length > OVERSIZED_KEEP ? Buffer.from(joined.subarray(joined.length - OVERSIZED_KEEP)) : joined;
}

function isBlank(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}
