import { promises as fs } from 'node:fs';
import { jsonErrorDetail, parseJsonLocated } from '../artifacts/readJson';
import { readRegular } from '../fsx';

/** The agents rewrite their task files whole; a task of a long session runs to tens of MB. */
export const MAX_TASK_FILE_BYTES = 256 * 1024 * 1024;
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
    private readonly opts: { arrayLines?: boolean; maxBytes?: number; now?: () => number; settleMs?: number } = {},
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
