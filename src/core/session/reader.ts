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

  constructor(
    readonly file: string,
    readonly agent: SessionAgent,
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
    return {
      line: (bytes, lineNo) => {
        handler.line(bytes, lineNo);
        scanner.line(bytes, lineNo);
      },
      oversized: (head, tail, lineNo) => {
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
      while (next) {
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
      await this.readTaskStore();
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
export async function readSessionFile(file: string, agent: SessionAgent): Promise<SessionFacts | null> {
  return new SessionReader(file, agent).read();
}
