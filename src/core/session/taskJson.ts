import { promises as fs } from 'node:fs';
import { jsonErrorDetail, parseJsonLocated } from '../artifacts/readJson';
import { openRegular, readRegular } from '../fsx';
import { readArrayTail } from './jsonTail';

/** The agents rewrite their task files whole; a task of a long session runs to tens of MB. */
export const MAX_TASK_FILE_BYTES = 256 * 1024 * 1024;
/**
 * A task file that is one array and bigger than this is read from its end: its last messages up to
 * TAIL_BYTES (the scan gives up after SCAN_BYTES), with a notice of what was left out. Parsing a 250 MB
 * file whole took seconds and over a GB of memory.
 */
export const TAIL_FROM_BYTES = 32 * 1024 * 1024;
export const TAIL_BYTES = 8 * 1024 * 1024;
export const SCAN_BYTES = 64 * 1024 * 1024;
/** Bytes that stay invalid this long after their last write are broken, not half-written. */
export const SETTLE_MS = 5_000;

/** One JSON document as last read. */
export interface JsonDocState {
  /** The last valid version's value (undefined when there has been none). */
  value: unknown;
  /** 1-based line where each element of a top-level array starts (empty for other values). */
  lines: number[];
  /** The file is not there (any more). */
  missing: boolean;
  /**
   * True while the file's current bytes are not valid JSON and have not settled: most likely caught
   * half-written, so the last valid version stands and the next change is read again.
   */
  pending: boolean;
  /** A located message once invalid bytes stayed unchanged past `SETTLE_MS` (or the file cannot be read at all). */
  problem: string | null;
  /** Bumped whenever `value` changes. */
  version: number;
  /** Set when only the end of a big array was read: what was left out, a sentence after the file's name. */
  partial?: string | null;
}

/** What the big task files left out, as the packet's sources say it. */
export function notReadOf(docs: [string, JsonDocState][]): { file: string; message: string }[] {
  return docs.flatMap(([file, d]) => (d.partial ? [{ file, message: d.partial }] : []));
}

/**
 * A JSON file an agent rewrites whole on every save (Cline and Roo Code task files). Read again only
 * when its size, mtime or inode moved. A version that is not valid JSON is never reported on the first
 * try: the agent may be writing it right now, so the last valid version is kept and the file is read
 * again on its next change; only bytes that stay invalid after they settled are reported, located.
 */
export class JsonDocFile {
  private state: JsonDocState = { value: undefined, lines: [], missing: true, pending: false, problem: null, version: 0 };
  private key = '';
  /** The located parse error of the current bytes, held back until they settle. */
  private detail: string | null = null;

  constructor(
    readonly file: string,
    private readonly opts: { arrayLines?: boolean; maxBytes?: number; now?: () => number; settleMs?: number; tail?: { fromBytes?: number; tailBytes?: number; scanBytes?: number } } = {},
  ) {}

  async read(): Promise<JsonDocState> {
    let st;
    try {
      st = await fs.stat(this.file);
    } catch {
      if (!this.state.missing || this.state.value !== undefined) this.state = { value: undefined, lines: [], missing: true, pending: false, problem: null, version: this.state.version + 1 };
      this.key = '';
      return this.state;
    }
    const key = `${st.size}:${st.mtimeMs}:${st.ino}`;
    const now = (this.opts.now ?? Date.now)();
    if (key === this.key) {
      // A second look at bytes that did not parse: broken once nothing wrote them for a while (a
      // half-written file is finished within moments; the first look is never the one that reports).
      if (this.state.pending && now - st.mtimeMs >= (this.opts.settleMs ?? SETTLE_MS)) {
        this.state = { ...this.state, pending: false, problem: this.detail ?? `${this.file}: not valid JSON` };
      }
      return this.state;
    }
    this.key = key;
    if (this.opts.tail && st.size > (this.opts.tail.fromBytes ?? TAIL_FROM_BYTES)) return this.readTail();
    const read = await readRegular(this.file, { maxBytes: this.opts.maxBytes ?? MAX_TASK_FILE_BYTES });
    if (!read.ok) {
      if (read.refusal.kind === 'missing') {
        this.key = '';
        this.state = { value: undefined, lines: [], missing: true, pending: false, problem: null, version: this.state.version + 1 };
      } else {
        this.state = { ...this.state, missing: false, pending: false, problem: `${this.file} ${read.refusal.message}` };
      }
      return this.state;
    }
    let text = read.bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const parsed = parseJsonLocated(text);
    if (!parsed.ok) {
      // A file cut short has no position in the engine's words: it ends on its last line.
      const located = parsed.line === undefined && /end of JSON input/i.test(parsed.message) ? { ...parsed, line: lineCount(text) } : parsed;
      this.detail = `${this.file}: not valid JSON (${jsonErrorDetail(located)})`;
      this.state = { ...this.state, missing: false, pending: true, problem: null };
      return this.state;
    }
    this.detail = null;
    this.state = {
      value: parsed.value,
      lines: this.opts.arrayLines && Array.isArray(parsed.value) ? elementLines(text) : [],
      missing: false,
      pending: false,
      problem: null,
      version: this.state.version + 1,
    };
    return this.state;
  }

  /** A big array: its last elements only, with a notice of what was left out. */
  private async readTail(): Promise<JsonDocState> {
    const opened = await openRegular(this.file);
    if (!opened.ok) {
      if (opened.refusal.kind === 'missing') {
        this.key = '';
        this.state = { value: undefined, lines: [], missing: true, pending: false, problem: null, version: this.state.version + 1 };
      } else {
        this.state = { ...this.state, missing: false, pending: false, problem: `${this.file} ${opened.refusal.message}` };
      }
      return this.state;
    }
    const t = this.opts.tail ?? {};
    let tail;
    try {
      tail = await readArrayTail(opened.file.handle, opened.file.size, { tailBytes: t.tailBytes ?? TAIL_BYTES, scanBytes: t.scanBytes ?? SCAN_BYTES });
    } catch (err) {
      this.state = { ...this.state, missing: false, pending: false, problem: `${this.file} cannot be read: ${(err as Error).message}` };
      return this.state;
    } finally {
      await opened.file.handle.close().catch(() => undefined);
    }
    if (!tail) {
      // Like a file that does not parse: maybe caught half-written; reported once it settled.
      this.detail = `${this.file}: not valid JSON (its end is not that of a JSON array of messages)`;
      this.state = { ...this.state, missing: false, pending: true, problem: null };
      return this.state;
    }
    this.detail = null;
    this.state = { value: tail.values, lines: tail.lines, missing: false, pending: false, problem: null, version: this.state.version + 1, partial: tail.notice };
    return this.state;
  }
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The 1-based line where each element of a top-level JSON array starts. One pass over the text,
 * tracking strings and nesting; a file written on one line gives line 1 for every element.
 */
export function elementLines(text: string): number[] {
  const out: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expect = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 10) {
      line++;
      continue;
    }
    if (c === 32 || c === 9 || c === 13) continue;
    if (depth === 1 && expect && c !== 93) out.push(line);
    expect = false;
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth === 1) expect = true;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 1) expect = true;
  }
  return out;
}
