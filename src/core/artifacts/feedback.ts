import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { jsonMayHoldControl, stripControlDeep } from '../controlChars';
import type { Diagnostic } from '../diagnostics';
import { openRegular } from '../fsx';
import { isFailure, isTestCommand, isTestOutput, looseKey, normalizeCommand, outcomeOf } from './commands';
import { testTargets } from '../clean/command';
import { decodeText, parseJsonLocated, zodMessage } from './readJson';
import type { FeedbackRecord } from './schemas';
import { FeedbackRecordSchema } from './schemas';
import type { ArtifactSource, IndexedRecord, SecretFinding, WorkbenchSnapshot } from './snapshot';
import { credentialsInJsonLine, fingerprintOf, freeTextOffsets, mayHoldCredential } from '../redact/scan';

/** A single line longer than this is not a feedback record; it is skipped without being buffered. */
const MAX_LINE_BYTES = 1024 * 1024;
/** Diagnostics per file are capped so a garbage file cannot flood the output. */
const MAX_DIAGNOSTICS = 50;
/** `lastRunOf` holds at most this many distinct commands. */
const MAX_TRACKED = 200;
/**
 * A log bigger than this is read from its end: the lines of its last 16 MB are the records (about a
 * hundred thousand short ones); the lines before are hashed and counted, not parsed. A log of a million
 * records took seconds to parse whole, and what the packet keeps (the newest runs and failures) lies at
 * the end.
 */
export const FEEDBACK_WINDOW_BYTES = 16 * 1024 * 1024;

export interface FeedbackOptions {
  /** Keep the last K records. */
  feedbackK: number;
  /** Never keep more than this many records. */
  maxCommands: number;
  /** Commands whose newest run is tracked in `lastRunOf` (normalized on the way in). */
  watchCommands?: string[];
  /** The folder the log must really lie in (a symlink leading out of it is refused). */
  root?: string;
  /** A log bigger than this is read from its end (default FEEDBACK_WINDOW_BYTES). */
  windowBytes?: number;
  /**
   * Scan the lines before the window for credentials too (`handoff secrets`): every line is then
   * looked at, though only the window's lines are records.
   */
  scanWhole?: boolean;
}

/** `feedback` and `source` are null when the file was refused (not a regular file, leads outside). */
export type FeedbackResult = {
  feedback: WorkbenchSnapshot['feedback'];
  source: ArtifactSource | null;
  diagnostics: Diagnostic[];
  /** Credentials in any record, kept or not (every line is scanned; the value is never kept). */
  secrets?: SecretFinding[];
} | null;

/** Credentials listed per log: the first ones are what the user must act on. */
const MAX_SECRETS = 20;

/**
 * Streams `feedback_record.jsonl` with memory bounded by what is kept (a ring of the last K, the newest
 * failures up to the cap, the tracked last runs) — never by the file size. Hashes while streaming.
 * Returns null when the file does not exist; a FIFO, device or symlink leading out of `root` in its
 * place is one diagnostic and no records.
 */
export async function readFeedback(abs: string, file: string, opts: FeedbackOptions): Promise<FeedbackResult> {
  const hash = createHash('sha256');
  const diagnostics: Diagnostic[] = [];
  let suppressed = 0;
  const report = (d: Diagnostic): void => {
    if (diagnostics.length < MAX_DIAGNOSTICS) diagnostics.push(d);
    else suppressed++;
  };

  const trim = new FeedbackTrim(opts);
  const secrets: SecretFinding[] = [];
  const seenSecrets = new Set<string>();
  /** Every record is scanned, not only the kept ones: a key in an old green record is still a leak. */
  const scan = (bytes: Buffer, text: string, line: number, freeText: boolean | undefined): void => {
    if (secrets.length >= MAX_SECRETS || !mayHoldCredential(bytes, freeText)) return;
    for (const f of credentialsInJsonLine(text)) {
      const fingerprint = fingerprintOf(f.value);
      if (seenSecrets.has(`${fingerprint}:${line}`) || secrets.length >= MAX_SECRETS) continue;
      seenSecrets.add(`${fingerprint}:${line}`);
      secrets.push({ file, line, rule: f.rule, label: f.kind, fingerprint });
    }
  };

  /** Lines before the window that were scanned for credentials only (`scanWhole`); counted as records. */
  let scannedOnly = 0;
  /** The first line of the window that holds anything (`scanWhole`: what the diagnostic names). */
  let firstWindowLine = 0;
  const take = (index: number, bytes: Buffer, isLast: boolean, scanOnly: boolean): void => {
    const decoded = decodeText(bytes);
    if (!decoded.ok) return scanOnly ? undefined : report({ file, line: index + 1, message: decoded.message.replace('JSON text', 'a JSON line') });
    takeText(index, bytes, decoded.text, isLast, false, undefined, scanOnly);
  };
  /**
   * A decoded line; `controlFree` when its bytes are known to hold no control character or escape;
   * `freeText` whether a free-text word lies in it, when the caller looked for them in a whole block;
   * `scanOnly` for a line before the window: looked at for credentials, not parsed.
   */
  const takeText = (index: number, bytes: Buffer, decoded: string, isLast: boolean, controlFree: boolean, freeText: boolean | undefined, scanOnly: boolean): void => {
    const line = index + 1;
    // `trim` drops a byte order mark too (the decoder's, and one more the old reader also dropped).
    const text = decoded.trim();
    if (text === '') return;
    scan(bytes, text, line, freeText);
    if (scanOnly) {
      scannedOnly++;
      return;
    }
    firstWindowLine ||= line;
    const parsed = parseJsonLocated(text);
    if (parsed.ok && !controlFree && jsonMayHoldControl(text)) parsed.value = stripControlDeep(parsed.value);
    if (!parsed.ok) {
      if (isLast) return report({ file, line, message: 'partial last line (no newline, not valid JSON) skipped — the agent may still be writing it' });
      return report({ file, line, message: parsed.message });
    }
    let record = quickRecord(parsed.value);
    // Stryker disable next-line ConditionalExpression: zod passes the same records the quick check does, only slower
    if (!record) {
      const checked = FeedbackRecordSchema.safeParse(parsed.value);
      if (!checked.success) return report({ file, line, message: zodMessage(checked.error).message });
      record = checked.data;
    }
    trim.add({ index, record });
  };
  /**
   * The whole lines of a chunk, `bytes` without its last newline: decoded in one go when they are all
   * valid UTF-8 without a NUL (a newline byte never lies inside a character, so each line is too), and
   * split at the same newlines in the bytes and in the text. Otherwise line by line, each bad line
   * named by its own number. `at` is the offset of `bytes` in the file: a line that starts before the
   * window is only scanned. Returns the index after the last line.
   */
  const takeLines = (first: number, bytes: Buffer, at: number): number => {
    let index = first;
    let b = 0;
    if (bytes.indexOf(0) === -1 && isUtf8(bytes)) {
      const ascii = isAscii(bytes);
      const text = bytes.toString(ascii ? 'latin1' : 'utf8');
      // ASCII without a backslash or DEL has neither the escapes nor the characters stripControlDeep removes.
      const controlFree = ascii && bytes.indexOf(0x5c) === -1 && bytes.indexOf(0x7f) === -1;
      // The free-text words, looked for once in the block: a line holds one when one starts inside it.
      const words = freeTextOffsets(text);
      let w = 0;
      let t = 0;
      for (;;) {
        const nl = bytes.indexOf(10, b);
        const tn = ascii ? nl : text.indexOf('\n', t);
        const end = tn === -1 ? text.length : tn;
        while (w < words.length && words[w]! < t) w++;
        takeText(index++, bytes.subarray(b, nl === -1 ? bytes.length : nl), text.slice(t, end), false, controlFree, w < words.length && words[w]! < end, at + b < windowFrom);
        if (nl === -1) return index;
        b = nl + 1;
        t = tn + 1;
      }
    }
    for (;;) {
      const nl = bytes.indexOf(10, b);
      take(index++, bytes.subarray(b, nl === -1 ? bytes.length : nl), false, at + b < windowFrom);
      if (nl === -1) return index;
      b = nl + 1;
    }
  };

  let index = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Where the unfinished line in `pending` starts in the file. */
  let pendingAt = 0;
  let overlong = false;
  const opened = await openRegular(abs, { root: opts.root });
  if (!opened.ok) {
    if (opened.refusal.kind === 'missing') return null;
    return { feedback: null, source: null, diagnostics: [{ file, message: opened.refusal.message }] };
  }
  // The window: the lines that start at or after this offset are the records.
  const windowBytes = Math.max(0, opts.windowBytes ?? FEEDBACK_WINDOW_BYTES);
  const windowFrom = opened.file.size > windowBytes ? opened.file.size - windowBytes : 0;
  // Before the window (unless it is scanned too), only newlines are counted: the first line starting
  // at or after `windowFrom` follows the first newline at or after `seek`. -1 once it is found.
  let seek = windowFrom > 0 && !opts.scanWhole ? windowFrom - 1 : -1;
  /** The lines before the window, counted (`seek`) or scanned only (`scanWhole`). */
  let before = 0;
  let pos = 0;
  try {
    // Stryker disable next-line all: the read size changes the speed, never what is read
    const stream = opened.file.handle.createReadStream({ highWaterMark: 256 * 1024 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      hash.update(chunk);
      const at = pos;
      pos += chunk.length;
      let start = 0;
      if (seek !== -1) {
        const from = Math.max(0, seek - at);
        index += countNewlines(chunk, 0, Math.min(from, chunk.length));
        if (from >= chunk.length) continue;
        const nl = chunk.indexOf(10, from);
        if (nl === -1) {
          seek = pos;
          continue;
        }
        index++;
        before = index;
        seek = -1;
        start = nl + 1;
      }
      // The line the previous chunk left unfinished, first; then the chunk's whole lines at once.
      while (pending.length || overlong) {
        const nl = chunk.indexOf(10, start);
        const end = nl === -1 ? chunk.length : nl;
        // Past the limit the pieces are dropped again each time they add up to it: memory stays bounded.
        pending.push(chunk.subarray(start, end));
        pendingBytes += end - start;
        if (pendingBytes > MAX_LINE_BYTES) {
          overlong = true;
          pending = [];
          pendingBytes = 0;
        }
        if (nl === -1) {
          start = chunk.length;
          break;
        }
        if (overlong) report({ file, line: index + 1, message: `line longer than ${MAX_LINE_BYTES / 1048576} MB; line too long, skipped` });
        // Stryker disable next-line ConditionalExpression: concatenating a single piece only copies the same bytes
        else take(index, pending.length === 1 ? pending[0]! : Buffer.concat(pending), false, pendingAt < windowFrom);
        index++;
        pending = [];
        pendingBytes = 0;
        overlong = false;
        start = nl + 1;
      }
      const last = chunk.lastIndexOf(10);
      if (last >= start) {
        index = takeLines(index, chunk.subarray(start, last), at + start);
        start = last + 1;
      }
      if (start < chunk.length) {
        if (!pending.length) pendingAt = at + start;
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        // A chunk is far smaller than the limit: an unfinished line passes it only over later chunks.
        if (pendingBytes > MAX_LINE_BYTES) {
          overlong = true;
          pending = [];
          pendingBytes = 0;
        }
      }
    }
  } catch (err) {
    diagnostics.push({ file, message: `cannot be read: ${(err as Error).message}` });
  } finally {
    await opened.file.handle.close().catch(() => undefined);
  }
  if (overlong) report({ file, line: index + 1, message: `line longer than ${MAX_LINE_BYTES / 1048576} MB; line too long, skipped` });
  else take(index, Buffer.concat(pending), true, pendingAt < windowFrom);
  if (seek !== -1) before = index;
  if (windowFrom > 0) {
    // Blank lines aside, a line before the window is counted as a record (the packet's "left out").
    trim.total += opts.scanWhole ? scannedOnly : before;
    const scanned = opts.scanWhole ? 'scanned for credentials only' : 'counted, not read nor scanned for credentials (handoff secrets scans them)';
    const firstLine = opts.scanWhole ? firstWindowLine : before + 1;
    diagnostics.unshift({ file, line: firstLine, message: `is ${(opened.file.size / 1048576).toFixed(0)} MB: its records are read from its last ${(windowBytes / 1048576).toFixed(windowBytes < 1048576 ? 2 : 0)} MB (line ${firstLine} on); the lines before are ${scanned}` });
  }
  // No newline, no bytes left over and nothing wrong: the file has no bytes at all.
  if (index === 0 && pendingBytes === 0 && diagnostics.length === 0) {
    diagnostics.push({ file, line: 1, message: 'is empty: no feedback records' });
  }
  if (suppressed > 0) diagnostics.push({ file, message: `${suppressed} more bad lines not listed` });

  return { feedback: trim.result(), source: { file, sha256: hash.digest('hex') }, diagnostics, ...(secrets.length ? { secrets } : {}) };
}

/** The newlines in `b` from `from` up to `to`: native searches, one per line. */
function countNewlines(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = b.indexOf(10, from); i !== -1 && i < to; i = b.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * Only the log's hash, as `readFeedback` computes it, without parsing a line: what freshness compares.
 * Linear in the file's bytes at hashing speed, so a million-record log still answers a SessionStart.
 */
export async function hashFeedback(abs: string, file: string, opts: Pick<FeedbackOptions, 'root'>): Promise<{ source: ArtifactSource | null; diagnostics: Diagnostic[] } | null> {
  const opened = await openRegular(abs, { root: opts.root });
  if (!opened.ok) {
    if (opened.refusal.kind === 'missing') return null;
    return { source: null, diagnostics: [{ file, message: opened.refusal.message }] };
  }
  const hash = createHash('sha256');
  try {
    // Stryker disable next-line all: the read size changes the speed, never what is read
    for await (const chunk of opened.file.handle.createReadStream({ highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) hash.update(chunk);
  } catch (err) {
    return { source: null, diagnostics: [{ file, message: `cannot be read: ${(err as Error).message}` }] };
  } finally {
    await opened.file.handle.close().catch(() => undefined);
  }
  return { source: { file, sha256: hash.digest('hex') }, diagnostics: [] };
}

/**
 * The feedback trim (DESIGN §3) over records fed in order: a ring of the last K, the newest failures
 * up to the cap, the newest test run and the tracked last runs — memory bounded by what is kept.
 * The one rule for a feedback log, whether it was read from feedback_record.jsonl or derived from
 * an agent session.
 */
export class FeedbackTrim {
  private readonly k: number;
  private readonly cap: number;
  private readonly watch: Set<string>;
  private readonly ring: IndexedRecord[] = [];
  /** The kept failures, oldest first, each with what resolved it (if a later run did). */
  private readonly failures: Failure[] = [];
  /**
   * The newest run of each tracked command, and when it was tracked (its order: the oldest is evicted
   * first). Updated in place: deleting and re-adding the key on every run churns the map's table.
   */
  private readonly lastRunOf = new Map<string, { rec: IndexedRecord; seq: number }>();
  private seq = 0;
  private lastTestRun: IndexedRecord | null = null;
  /**
   * The kept failures no later run has resolved yet, indexed so a passing run finds the ones it may
   * resolve without comparing itself with every failure: by loose key, and the test runs by runner and
   * by each target's folders (`tests/unit/a.py` under itself, `tests/unit` and `tests`). A pass looks
   * up only the failures under its own targets: linear in the log. A failure that is resolved or
   * dropped is only marked closed (lookups pass over it); the index is filed anew from the open ones
   * once it holds about twice the cap, so it stays as small as the kept failures.
   */
  private index: FailureIndex = newIndex();
  /** Failures filed in `index`, open or closed. */
  private filed = 0;
  total = 0;

  constructor(opts: FeedbackOptions) {
    this.k = Math.max(0, Math.floor(opts.feedbackK));
    this.cap = Math.max(1, Math.floor(opts.maxCommands));
    this.watch = new Set<string>(opts.watchCommands?.map((c) => normalizeCommand(c)));
  }

  add(rec: IndexedRecord): void {
    const { ring, failures, lastRunOf, watch } = this;
    this.total++;
    ring.push(rec);
    if (ring.length > this.k) ring.shift();
    const c = classify(rec.record.command);
    const { key, isTest: testCommand } = c;
    // A script whose output reads as a runner's summary ("69 passing") is a test run too.
    const isTest = testCommand || isTestOutput(rec.record.stdout_tail) || isTestOutput(rec.record.stderr_tail);
    if (isFailure(rec.record, key)) {
      const f: Failure = { rec, c, open: true, by: undefined };
      failures.push(f);
      this.file(f);
      // The newest failures are the most useful; drop the oldest beyond the cap.
      if (failures.length > this.cap) for (const dropped of failures.splice(0, failures.length - this.cap)) dropped.open = false;
    } else if (failures.length && outcomeOf(rec.record) === 'ok') {
      this.resolveBy(rec, c, isTest);
    }
    if (isTest) this.lastTestRun = rec;
    if ((isTest || watch.has(key)) && (lastRunOf.has(key) || lastRunOf.size < MAX_TRACKED || watch.has(key))) {
      const slot = lastRunOf.get(key);
      if (slot) {
        slot.rec = rec;
        slot.seq = ++this.seq;
      } else {
        lastRunOf.set(key, { rec, seq: ++this.seq });
        if (lastRunOf.size > MAX_TRACKED) evictOldestUnwatched(lastRunOf, watch);
      }
    }
  }

  /** A new failure (already last in `failures`): filed in the index, open until a later passing run resolves it. */
  private file(f: Failure): void {
    if (this.filed < 2 * this.cap + 16) return this.fileIn(f);
    this.index = newIndex();
    this.filed = 0;
    for (const o of this.failures) if (o.open) this.fileIn(o);
  }

  private fileIn(f: Failure): void {
    const { loose, tests } = this.index;
    this.filed++;
    addTo(loose, f.c.loose, f);
    if (f.c.isTest) {
      const shape = testShapeOf(f.c);
      let t = tests.get(shape.runner);
      if (!t) tests.set(shape.runner, (t = { all: [], under: new Map() }));
      t.all.push(f);
      for (const key of shape.folders) addTo(t.under, key, f);
    }
  }

  /**
   * A passing run resolves the open failures of the same command (flags aside) and, when it is a test
   * run, the failed test runs of the same runner whose targets it covers — what `resolves` decides.
   * Only the failures filed under its own loose key and its own targets are looked at.
   */
  private resolveBy(pass: IndexedRecord, c: Classified, isTest: boolean): void {
    const by = pass.index;
    const loose = this.index.loose.get(c.loose);
    if (loose) for (const f of loose) if (f.open) close(f, by);
    const tests = isTest ? this.index.tests.get(testShapeOf(c).runner) : undefined;
    if (!tests) return;
    const { targets, lookup } = testShapeOf(c);
    // No target: the whole suite, every open failure of the runner. Else those under its targets.
    if (!targets.length) for (const f of tests.all) if (f.open) close(f, by);
    for (const q of lookup) {
      const under = tests.under.get(q);
      if (under) for (const f of under) if (f.open && covers(targets, testShapeOf(f.c).targets)) close(f, by);
    }
  }

  result(): NonNullable<WorkbenchSnapshot['feedback']> {
    // Every failure first (the newest up to the cap, whatever K is), then the newest of the last K.
    const kept = new Map<number, IndexedRecord>();
    const resolvedBy: Record<number, number> = {};
    for (const f of this.failures) {
      kept.set(f.rec.index, f.rec);
      if (f.by !== undefined) resolvedBy[f.rec.index] = f.by;
    }
    for (const r of [...this.ring].reverse()) {
      if (kept.size >= this.cap) break;
      kept.set(r.index, r);
    }
    const list = [...kept.values()].sort((a, b) => a.index - b.index);
    return {
      kept: list,
      total: this.total,
      omitted: this.total - list.length,
      lastTestRun: this.lastTestRun,
      lastRunOf: Object.fromEntries([...this.lastRunOf].sort((a, b) => a[1].seq - b[1].seq).map(([key, slot]) => [key, slot.rec])),
      ...(Object.keys(resolvedBy).length ? { resolvedBy } : {}),
    };
  }
}

// The quick check may decline any record: zod then decides alone, so declining a good one costs time, never the answer.
// Stryker disable ConditionalExpression,LogicalOperator,ArrowFunction: a check that declines more hands the record to zod, same answer
const isNullableNumber = (v: unknown): boolean => v === undefined || v === null || typeof v === 'number';
const isNullableString = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';

/**
 * The common, well-formed record checked by hand: zod builds an issue object for every failed union
 * branch, which dominates the cost on a million-line log. Anything unusual goes through zod for its
 * message. The schema has no defaults or transforms, so a record that passes is already its output.
 */
function quickRecord(v: unknown): FeedbackRecord | null {
  // Stryker disable next-line EqualityOperator: declining every object hands it to zod; a primitive has no command either way
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const r = v as Record<string, unknown>;
  // Stryker disable next-line StringLiteral: without a command the record goes to zod, same answer
  const cmd = r['command'];
  const cmdOk = typeof cmd === 'string' || (Array.isArray(cmd) && cmd.every((a) => typeof a === 'string'));
  const exit = r['exit_code'];
  const exitOk = exit === undefined || exit === null || Number.isInteger(exit);
  const started = r['started_at'];
  const startedOk = isNullableNumber(started) || typeof started === 'string';
  const ok = cmdOk && exitOk && startedOk && isNullableNumber(r['duration_ms']) &&
    ['agent_note', 'stdout_tail', 'stderr_tail', 'error'].every((k) => isNullableString(r[k]));
  return ok ? (r as FeedbackRecord) : null;
}
// Stryker restore ConditionalExpression,LogicalOperator,ArrowFunction

/** The runner part of a test command: its words that are neither flags nor targets (`python -m pytest`). */
function runnerOf(command: string): string {
  const targets = new Set(testTargets(command));
  return command.split(' ').filter((w) => !w.startsWith('-') && !targets.has(w.replace(/::.*/, '').replace(/:\d+$/, '').replace(/^["']|["']$/g, ''))).join(' ');
}

/**
 * True when a passing run of `passed` resolves an earlier failure of `failed`: the same command (flags
 * aside), or a test run of the same runner whose targets cover the failed one's (no target: the whole suite).
 */
export function resolves(passed: string | string[], passedIsTest: boolean, failed: string | string[]): boolean {
  if (looseKey(passed) === looseKey(failed)) return true;
  if (!passedIsTest || !isTestCommand(failed)) return false;
  const p = testShapeOf(classify(passed));
  const f = testShapeOf(classify(failed));
  return p.runner === f.runner && covers(p.targets, f.targets);
}

/** A passing run's targets cover a failed run's: no target (the whole suite), or each failed target under one. */
function covers(passed: string[], failed: string[]): boolean {
  if (!passed.length) return true;
  return failed.length > 0 && failed.every((t) => passed.some((q) => t === q || t.startsWith(`${q.replace(/\/$/, '')}/`)));
}

/** A test command's runner and targets, computed once per distinct command (the classify cache holds them). */
function testShapeOf(c: Classified): TestShape {
  if (!c.shape) {
    const targets = testTargets(c.key);
    // What a passing run looks its failures up by: each target, and the target without a trailing `/`.
    const lookup = [...new Set(targets.flatMap((q) => [q, q.replace(/\/$/, '')]))];
    // What a failure is filed under: each target and the folders above it.
    const folders = [...new Set(targets.flatMap(foldersOf))];
    c.shape = { runner: runnerOf(c.key), targets, lookup, folders };
  }
  return c.shape;
}

/** A test target and the folders above it: the keys a passing run of any of them looks it up by. */
function foldersOf(target: string): string[] {
  const out = [target];
  for (let i = target.lastIndexOf('/'); i > 0; i = target.lastIndexOf('/', i - 1)) out.push(target.slice(0, i));
  return out;
}

function addTo<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A kept failure: open until a later passing run resolves it (`by`) or it is dropped beyond the cap. */
interface Failure { rec: IndexedRecord; c: Classified; open: boolean; by: number | undefined }
/** The failures by loose key, and the test runs by runner: all of them, and by target and folder. */
interface FailureIndex { loose: Map<string, Failure[]>; tests: Map<string, { all: Failure[]; under: Map<string, Failure[]> }> }
const newIndex = (): FailureIndex => ({ loose: new Map(), tests: new Map() });
/** A failure resolved by the run at `by`: no longer open. */
function close(f: Failure, by: number): void {
  f.open = false;
  f.by = by;
}

/** Agents repeat the same few commands; remember their key and test-runner verdict. */
interface TestShape { runner: string; targets: string[]; lookup: string[]; folders: string[] }
interface Classified { key: string; isTest: boolean; loose: string; shape?: TestShape }
/**
 * Classified commands by their words: a string command under its own key, an array word by word (a
 * lookup per word, no joined string built for every record of a million-line log).
 */
interface ClassifyNode { next: Map<string, ClassifyNode> | undefined; hit: Classified | undefined }
let classifyRoot: { strings: Map<string, Classified>; arrays: ClassifyNode } = { strings: new Map(), arrays: { next: undefined, hit: undefined } };
let classified = 0;
function classify(command: string | string[]): Classified {
  if (!Array.isArray(command)) {
    let hit = classifyRoot.strings.get(command);
    // Stryker disable next-line ConditionalExpression: without the cache the same answer is computed again
    if (!hit) classifyRoot.strings.set(command, (hit = classifyNew(command)));
    return hit;
  }
  let node = classifyRoot.arrays;
  for (const word of command) {
    let next = node.next?.get(word);
    if (!next) (node.next ??= new Map()).set(word, (next = { next: undefined, hit: undefined }));
    node = next;
  }
  // Stryker disable next-line ConditionalExpression: without the cache the same answer is computed again
  if (!node.hit) node.hit = classifyNew(command);
  return node.hit;
}

function classifyNew(command: string | string[]): Classified {
  const key = normalizeCommand(command);
  // Stryker disable next-line all: the bound keeps the cache small; it does not change any answer
  if (++classified > 2000) {
    classifyRoot = { strings: new Map(), arrays: { next: undefined, hit: undefined } };
    classified = 0;
  }
  return { key, isTest: isTestCommand(key), loose: looseKey(key) };
}

/** Drops the least recently tracked command that is not watched. */
function evictOldestUnwatched(map: Map<string, { seq: number }>, watch: Set<string>): void {
  let oldest: string | undefined;
  let seq = Infinity;
  for (const [key, slot] of map) {
    if (slot.seq < seq && !watch.has(key)) {
      oldest = key;
      seq = slot.seq;
    }
  }
  if (oldest !== undefined) map.delete(oldest);
}
