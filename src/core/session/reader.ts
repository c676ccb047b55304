import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readAt } from '../context/lineScan';
import { ClaudeHandler } from './claude';
import { codexSessionIdFromFile } from '../context/codex';
import { isZst, streamZst } from '../zstd';
import { CodexHandler } from './codex';
import { codexPredecessors, readPage } from './codexPages';
import { CredentialScanner } from './credentials';
import type { LineHandler } from './lines';
import { LineSplitter } from './lines';
import type { SessionAgent, SessionFacts } from './model';
import type { StoredTask } from './taskStore';
import { TaskStore, taskStoreDir } from './taskStore';

const CHUNK = 4 * 1024 * 1024;
const HEAD_BYTES = 256;

/**
 * Where a read stops, to see the session as it was at an earlier moment: before a 1-based line (the
 * line of a request: that request and everything after it are left out), or at the first line whose
 * time is after `untilMs`. Lines without a time are read while the read goes on.
 */
export interface SessionCut {
  beforeLine?: number;
  untilMs?: number;
}

/** A human request as met in the log, for `handoff generate --list-requests`. */
export interface SessionRequestSeen {
  /** 1-based: the first request is 1. */
  n: number;
  line: number;
  /** The line's time (ISO), when it carries one. */
  at: string | null;
  /** Commands the session ran before this request. */
  commandsBefore: number;
  /** The request's words (not redacted here: the caller's output is). */
  text: string;
}

/** The `"timestamp": "…"` of a log line (Claude Code and Codex both write one at the top level). */
const TIMESTAMP = /"timestamp"\s*:\s*"([^"]{10,40})"/;

/** How much of each end of a line is searched for its time (Claude Code writes it after the message on some lines). */
const TIME_WINDOW = 64 * 1024;

function lineTime(bytes: Uint8Array): string | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ends = buf.length <= 2 * TIME_WINDOW ? [buf] : [buf.subarray(0, TIME_WINDOW), buf.subarray(buf.length - TIME_WINDOW)];
  for (const part of ends) {
    const m = TIMESTAMP.exec(part.toString('utf8'));
    if (m?.[1] && !Number.isNaN(Date.parse(m[1]))) return m[1];
  }
  return null;
}

/** What the last `read()` cost (tests and the benchmark look at it). */
export interface SessionReadStats {
  bytesRead: number;
  mode: 'initial' | 'append' | 'unchanged' | 'missing';
  restarted: boolean;
}

/**
 * An incremental reader of one agent session log. The first `read()` streams the whole file once
 * (bounded memory: lines are split without holding the file, and over-long lines are not held);
 * later calls read only the bytes appended since. A torn last line is left for the next read. A file
 * that shrank or was replaced (other inode, other first bytes) is read again from the start.
 */
export class SessionReader {
  private handler: ClaudeHandler | CodexHandler;
  /** Every line also goes through the credential scan (its own pre-filter keeps it cheap). */
  private scanner: CredentialScanner;
  private splitter: LineSplitter;
  /** Byte offset just past the last complete line read. */
  private offset = 0;
  private size = -1;
  private mtimeMs = -1;
  private ino = -1;
  private head: Buffer = Buffer.alloc(0);
  private cached: SessionFacts | null = null;
  private cachedRevision = -1;
  /** Claude Code's on-disk task list of this session, when it keeps one. */
  private store: TaskStore | null = null;
  private storeTasks: StoredTask[] | null = null;
  private lastStats: SessionReadStats = { bytesRead: 0, mode: 'unchanged', restarted: false };

  /** The cut was reached: nothing after it is read. */
  private stopped = false;

  constructor(
    readonly file: string,
    readonly agent: SessionAgent,
    private readonly opts: { cut?: SessionCut; onRequest?: (r: SessionRequestSeen) => void } = {},
  ) {
    this.handler = this.newHandler();
    this.scanner = new CredentialScanner(this.agent === 'codex' ? 'codex' : 'claude-code');
    this.splitter = new LineSplitter(this.tee());
  }

  get stats(): SessionReadStats {
    return this.lastStats;
  }

  private newHandler(): ClaudeHandler | CodexHandler {
    return this.agent === 'claude-code' ? new ClaudeHandler() : new CodexHandler();
  }

  /** The handler's and the scanner's view of each line, in that order. */
  private tee(): LineHandler {
    const handler: LineHandler = this.handler;
    const scanner = this.scanner;
    const { cut, onRequest } = this.opts;
    const acc = this.handler.acc;
    return {
      line: (bytes, lineNo) => {
        if (this.stopped) return;
        const at = cut?.untilMs !== undefined || onRequest ? lineTime(bytes) : null;
        if (cut && ((cut.beforeLine !== undefined && lineNo >= cut.beforeLine) || (cut.untilMs !== undefined && at !== null && Date.parse(at) > cut.untilMs))) {
          this.stopped = true;
          return;
        }
        const before = onRequest ? acc.readSoFar : null;
        handler.line(bytes, lineNo);
        scanner.line(bytes, lineNo);
        if (before && onRequest && acc.readSoFar.requests > before.requests) {
          const now = acc.readSoFar;
          onRequest({ n: now.requests, line: lineNo, at, commandsBefore: before.commands, text: now.latest ?? '' });
        }
      },
      oversized: (head, tail, lineNo) => {
        if (this.stopped || (this.opts.cut?.beforeLine !== undefined && lineNo >= this.opts.cut.beforeLine)) {
          this.stopped = true;
          return;
        }
        handler.oversized(head, tail, lineNo);
        scanner.oversized(head, tail, lineNo);
      },
    };
  }

  private reset(): void {
    this.handler = this.newHandler();
    this.scanner = new CredentialScanner(this.agent === 'codex' ? 'codex' : 'claude-code');
    this.splitter = new LineSplitter(this.tee());
    this.offset = 0;
    this.size = -1;
    this.head = Buffer.alloc(0);
    this.cached = null;
    this.cachedRevision = -1;
    this.store = null;
    this.storeTasks = null;
    this.stopped = false;
  }

  /** Brings the facts up to date with the file. Null when the file cannot be read. */
  async read(): Promise<SessionFacts | null> {
    let st;
    try {
      st = await fs.stat(this.file);
    } catch {
      this.reset();
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      return null;
    }
    // A FIFO, device or socket would block the open or never end: only regular files are read.
    if (!st.isFile()) {
      this.reset();
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      return null;
    }
    if (this.size >= 0 && st.size === this.size && st.mtimeMs === this.mtimeMs && st.ino === this.ino) {
      this.lastStats = { bytesRead: 0, mode: 'unchanged', restarted: false };
      return this.facts();
    }
    if (isZst(this.file)) return this.readCompressed(st);
    let handle;
    try {
      handle = await fs.open(this.file, 'r');
    } catch {
      this.lastStats = { bytesRead: 0, mode: 'missing', restarted: false };
      return this.cached;
    }
    try {
      let bytes = 0;
      let restarted = false;
      if (this.size >= 0) {
        const headNow = await readAt(handle, 0, Math.min(this.head.length, st.size));
        bytes += headNow.length;
        restarted = st.ino !== this.ino || st.size < this.offset || !headNow.equals(this.head);
        if (restarted) this.reset();
      }
      const mode = this.size < 0 ? 'initial' : 'append';
      if (this.size < 0) {
        this.head = await readAt(handle, 0, Math.min(HEAD_BYTES, st.size));
        bytes += this.head.length;
        bytes += await this.readPages();
      }
      // The next chunk is read while the current one is split and parsed.
      let pos = this.offset;
      let next = pos < st.size ? readAt(handle, pos, Math.min(CHUNK, st.size - pos)) : null;
      // A cut read stops at its line: what comes after is never read.
      while (next && !this.stopped) {
        const chunk = await next;
        if (chunk.length === 0) break;
        bytes += chunk.length;
        pos += chunk.length;
        next = pos < st.size ? readAt(handle, pos, Math.min(CHUNK, st.size - pos)) : null;
        this.splitter.push(chunk);
      }
      // The unfinished last line is read again, whole, next time.
      this.offset = pos - this.splitter.pendingBytes;
      this.splitter.discardPending();
      this.size = st.size;
      this.mtimeMs = st.mtimeMs;
      this.ino = st.ino;
      this.lastStats = { bytesRead: bytes, mode, restarted };
      // The on-disk task list is today's, not the cut's: a cut read goes by the log alone.
      if (!this.opts.cut) await this.readTaskStore();
      return this.facts();
    } finally {
      await handle.close();
    }
  }

  /**
   * A compressed Codex rollout (`.jsonl.zst`): Codex never appends to one (it makes it plain again
   * first), so any change is read again whole, decoded as a stream (memory bounded like a plain read).
   * Data that stops decoding keeps the lines before it and counts as a bad line where it stopped.
   */
  private async readCompressed(st: { size: number; mtimeMs: number; ino: number }): Promise<SessionFacts | null> {
    const restarted = this.size >= 0;
    this.reset();
    let bytes = await this.readPages();
    try {
      const done = await streamZst(this.file, (piece) => this.splitter.push(piece));
      if (!done) {
        this.lastStats = { bytesRead: bytes, mode: 'missing', restarted: false };
        return null;
      }
      bytes += done.bytesRead;
    } catch {
      this.handler.acc.badLine(this.splitter.lineNo);
    }
    this.splitter.discardPending();
    this.size = st.size;
    this.mtimeMs = st.mtimeMs;
    this.ino = st.ino;
    this.lastStats = { bytesRead: bytes, mode: restarted ? 'append' : 'initial', restarted };
    return this.facts();
  }

  /**
   * The older pages of a paginated Codex thread (FORMATS.md, Late 2026, L2.7), oldest first, up to
   * each one's cut: their lines go to the session facts before this file's own (the credential scan
   * stays with this file: each page is listed by `handoff secrets` on its own). Returns the bytes read.
   */
  private async readPages(): Promise<number> {
    if (this.agent !== 'codex') return 0;
    let bytes = 0;
    const { pages } = await codexPredecessors(this.file);
    for (const page of pages) bytes += await readPage(page, this.handler);
    return bytes;
  }

  /** Re-reads the task list Claude Code keeps on disk for the session (read-only), when the log changed. */
  private async readTaskStore(): Promise<void> {
    if (this.agent !== 'claude-code') return;
    const dir = taskStoreDir(this.file, this.handler.acc.sessionId ?? fallbackSessionId(this.file, this.agent));
    if (!dir) return;
    if (this.store?.dir !== dir) this.store = new TaskStore(dir);
    const { tasks, changed } = await this.store.read();
    if (!changed) return;
    this.storeTasks = tasks;
    this.handler.acc.touchRevision();
  }

  private facts(): SessionFacts {
    const acc = this.handler.acc;
    const revision = acc.revision * 65536 + this.scanner.revision;
    if (this.cached && this.cachedRevision === revision) return this.cached;
    const facts = acc.facts(this.file, fallbackSessionId(this.file, this.agent), { store: this.storeTasks });
    const credentials = this.scanner.credentials();
    // A new credential is a changed fact too.
    this.cached = credentials.length ? { ...facts, credentials, revision: facts.revision + this.scanner.revision } : facts;
    this.cachedRevision = revision;
    return this.cached;
  }
}

/** The session id from the file name: Claude `<id>.jsonl`, Codex `rollout-<time>-<uuid>.jsonl(.zst)`. */
function fallbackSessionId(file: string, agent: SessionAgent): string {
  if (agent === 'codex') return codexSessionIdFromFile(file);
  const base = path.basename(file, '.jsonl');
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(base);
  return m?.[1] ?? base;
}

/** Reads one session log once (the CLI's way). */
export async function readSessionFile(file: string, agent: SessionAgent, opts: { cut?: SessionCut } = {}): Promise<SessionFacts | null> {
  return new SessionReader(file, agent, opts).read();
}

/** Every human request of a log with its line, time and the commands before it (one read). */
export async function listSessionRequests(file: string, agent: SessionAgent): Promise<{ requests: SessionRequestSeen[]; commands: number }> {
  const requests: SessionRequestSeen[] = [];
  const reader = new SessionReader(file, agent, { onRequest: (r) => requests.push(r) });
  const facts = await reader.read();
  return { requests, commands: facts?.commandCount ?? 0 };
}
