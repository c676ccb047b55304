import { isTestCommand, normalizeCommand } from '../artifacts/commands';
import { redact } from '../redact';
import type { SessionAgent, SessionCommand, SessionFacts, SessionTodo, Unfinished } from './model';
import { cut, firstSentence, MAX_TEXT_CHARS, RAW_TAIL_CHARS, STDERR_TAIL_CHARS, STDOUT_TAIL_CHARS, tail } from './text';

/** Commands with a result kept before the list is compacted. */
const COMPACT_AT = 200;
/** After compaction: the newest commands, the newest failures, the newest run of each test command. */
const KEEP_NEWEST = 60;
const KEEP_FAILURES = 40;
const KEEP_TEST_KEYS = 50;
const MAX_REJECTED = 30;
const MAX_REQUESTS = 20;
const MAX_FILES = 500;
const MAX_TODOS = 100;
const MAX_BAD_LINES = 20;
const MAX_PENDING = 500;
/** Ids seen (for de-duplicating streamed lines); forgotten in halves beyond this. */
const MAX_SEEN_IDS = 20_000;

/** The result of a command as a reader found it (raw text: redacted later, once, when published). */
export interface CommandResult {
  exit: number | null;
  unfinished?: Unfinished | null;
  rejected?: boolean;
  stdout?: string;
  stderr?: string;
  error?: string | null;
  at?: string | null;
  durationMs?: number | null;
}

/** A command while the log is being read: raw strings, and whether its result came. */
interface Entry {
  ordinal: number;
  id: string;
  command: string;
  isTest: boolean;
  answered: boolean;
  exit: number | null;
  unfinished: Unfinished | null;
  rejected: boolean;
  startedAt: string | null;
  durationMs: number | null;
  stdout: string;
  stderr: string;
  error: string | null;
  note: string | null;
  reply: string | null;
  /** Bumped on every change; the published (redacted) copy is rebuilt when it moves. */
  version: number;
  published?: { version: number; value: SessionCommand };
}

/**
 * The facts of one session as its lines are applied, shared by the Claude Code and Codex readers.
 * Memory is bounded whatever the log's size: commands are compacted to what a packet can use, and
 * every list is capped. Raw text stays inside; `facts()` publishes redacted copies.
 */
export class SessionAccumulator {
  sessionId: string | null = null;
  cwd: string | null = null;
  branch: string | null = null;
  private first: string | null = null;
  private requests: string[] = [];
  private commands: Entry[] = [];
  private answeredSinceCompact = 0;
  private count = 0;
  private rejectedList: Entry[] = [];
  private rejectedTotal = 0;
  private readonly pending = new Map<string, Entry>();
  /** Commands whose result came and that no assistant text has commented on yet. */
  private awaitingNote: Entry[] = [];
  /** Rejected commands waiting for the user's next message. */
  private awaitingReply: Entry[] = [];
  private files: string[] = [];
  private readonly fileSet = new Set<string>();
  private todos: SessionTodo[] | null = null;
  private lastAssistant: { key: string; parts: string[] } | null = null;
  private apiErrors = 0;
  private readonly seen = new Set<string>();
  private bad: number[] = [];
  private rev = 0;

  constructor(readonly agent: SessionAgent) {}

  /** True the first time an id (tool_use id, message id…) is seen; false for a streamed duplicate. */
  firstSight(id: string): boolean {
    if (this.seen.has(id)) return false;
    if (this.seen.size >= MAX_SEEN_IDS) {
      // Streamed duplicates sit next to each other: old ids are safe to forget.
      let drop = this.seen.size / 2;
      for (const k of this.seen) {
        if (drop-- <= 0) break;
        this.seen.delete(k);
      }
    }
    this.seen.add(id);
    return true;
  }

  isPending(id: string): boolean {
    return this.pending.has(id);
  }

  /** Ids of commands still waiting for their result. */
  pendingIds(): IterableIterator<string> {
    return this.pending.keys();
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** A command call. Returns false for a duplicate id. */
  startCommand(id: string, command: string, at: string | null): boolean {
    if (!command.trim() || this.pending.has(id)) return false;
    const entry: Entry = {
      ordinal: this.count++,
      id,
      command: command.length > 8 * MAX_TEXT_CHARS ? command.slice(0, 8 * MAX_TEXT_CHARS) : command,
      isTest: isTestCommand(command),
      answered: false,
      exit: null,
      unfinished: 'no-result',
      rejected: false,
      startedAt: at,
      durationMs: null,
      stdout: '',
      stderr: '',
      error: null,
      note: null,
      reply: null,
      version: 0,
    };
    this.commands.push(entry);
    this.pending.set(id, entry);
    // A log whose results never come (a crash, a torn file) must not grow this without bound: the
    // oldest unanswered command stays "no result".
    if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.awaitingNote = [];
    this.rev++;
    return true;
  }

  /** The result of a pending command. `keepPending` for a process that is still running (polled later). */
  finishCommand(id: string, r: CommandResult, keepPending = false): void {
    const e = this.pending.get(id);
    if (!e) return;
    if (!keepPending) this.pending.delete(id);
    e.answered = true;
    e.exit = r.exit;
    e.rejected = r.rejected === true;
    e.unfinished = r.exit === null && !e.rejected ? (r.unfinished ?? 'error') : null;
    if (r.stdout !== undefined) e.stdout = tail(r.stdout, RAW_TAIL_CHARS);
    if (r.stderr !== undefined) e.stderr = tail(r.stderr, RAW_TAIL_CHARS);
    e.error = r.error ?? null;
    if (r.durationMs !== undefined && r.durationMs !== null) e.durationMs = r.durationMs;
    else if (r.at && e.startedAt) {
      const d = Date.parse(r.at) - Date.parse(e.startedAt);
      if (Number.isFinite(d) && d >= 0) e.durationMs = d;
    }
    e.version++;
    this.rev++;
    if (e.rejected) {
      this.commands = this.commands.filter((c) => c !== e);
      this.rejectedList.push(e);
      this.rejectedTotal++;
      if (this.rejectedList.length > MAX_REJECTED) this.rejectedList.shift();
      this.awaitingReply.push(e);
      return;
    }
    if (!keepPending) this.awaitingNote.push(e);
    if (++this.answeredSinceCompact >= COMPACT_AT) this.compact();
  }

  /** More output of a running process (a poll); the exit comes with `finishCommand` when it ends. */
  appendOutput(id: string, stdout: string): void {
    const e = this.pending.get(id);
    if (!e || !stdout) return;
    e.stdout = tail(e.stdout + stdout, RAW_TAIL_CHARS);
    e.version++;
    this.rev++;
  }

  /** Everything still pending ends the way the caller says (an aborted turn). */
  abortPending(unfinished: Unfinished, error: string): void {
    for (const id of [...this.pending.keys()]) this.finishCommand(id, { exit: null, unfinished, error });
  }

  /** Any tool call: the assistant moved on, so earlier results get no note. */
  toolUse(): void {
    this.awaitingNote = [];
  }

  /** Main-chain assistant text. `key` groups the streamed parts of one message. */
  assistantText(text: string, key: string): void {
    const t = text.trim();
    if (!t) return;
    if (this.awaitingNote.length) {
      const note = firstSentence(t);
      for (const e of this.awaitingNote) {
        if (e.note === null && note) {
          e.note = note;
          e.version++;
        }
      }
      this.awaitingNote = [];
    }
    const last = this.lastAssistant;
    if (last && last.key === key) {
      if (!last.parts.includes(t)) last.parts.push(cut(t, MAX_TEXT_CHARS));
    } else {
      this.lastAssistant = { key, parts: [cut(t, MAX_TEXT_CHARS)] };
    }
    this.rev++;
  }

  apiError(): void {
    this.apiErrors++;
    this.rev++;
  }

  /** A message the human typed. */
  humanRequest(text: string): void {
    const t = cut(text.trim(), MAX_TEXT_CHARS);
    if (!t) return;
    if (this.first === null) this.first = t;
    this.requests.push(t);
    if (this.requests.length > MAX_REQUESTS) this.requests.splice(1, 1);
    for (const e of this.awaitingReply) {
      if (e.reply === null) {
        e.reply = t;
        e.version++;
      }
    }
    this.awaitingReply = [];
    this.rev++;
  }

  /** A file the session edited (absolute path). */
  touch(file: string): void {
    if (this.fileSet.has(file) || this.files.length >= MAX_FILES) return;
    this.fileSet.add(file);
    this.files.push(file);
    this.rev++;
  }

  /** A new task list (each call replaces the whole list). */
  setTodos(items: { content: string; status: string }[]): void {
    const previous = new Map((this.todos ?? []).map((t) => [t.content, t]));
    const next: SessionTodo[] = [];
    for (const it of items.slice(0, MAX_TODOS)) {
      const content = cut(it.content.trim(), 500);
      if (!content) continue;
      const status = it.status === 'in_progress' || it.status === 'completed' ? it.status : 'pending';
      const before = previous.get(content);
      const since = status === 'in_progress' && before?.status === 'in_progress' ? before.since : this.count;
      next.push({ content, status, since });
    }
    this.todos = next;
    this.rev++;
  }

  badLine(line: number): void {
    if (this.bad.length < MAX_BAD_LINES) this.bad.push(line);
    this.rev++;
  }

  get revision(): number {
    return this.rev;
  }

  /**
   * Drops what no packet can use: keeps the newest commands, the newest failures, the newest run of
   * each test command and everything still pending.
   */
  private compact(): void {
    this.answeredSinceCompact = 0;
    const keep = new Set<Entry>(this.commands.slice(-KEEP_NEWEST));
    let failures = 0;
    const testKeys = new Set<string>();
    for (let i = this.commands.length - 1; i >= 0; i--) {
      const e = this.commands[i] as Entry;
      if (!e.answered) keep.add(e);
      else if (e.exit !== 0 && failures < KEEP_FAILURES) {
        keep.add(e);
        failures++;
      }
      if (e.answered && e.isTest) {
        const key = normalizeCommand(e.command);
        if (!testKeys.has(key) && testKeys.size < KEEP_TEST_KEYS) {
          testKeys.add(key);
          keep.add(e);
        }
      }
    }
    this.commands = this.commands.filter((e) => keep.has(e));
  }

  /** The facts as of now: redacted copies, safe to hand out. */
  facts(file: string, fallbackId: string): SessionFacts {
    const lastText = this.lastAssistant ? this.lastAssistant.parts.join('\n\n') : null;
    return {
      agent: this.agent,
      file,
      sessionId: this.sessionId ?? fallbackId,
      cwd: this.cwd,
      branch: this.branch,
      firstUserRequest: this.first === null ? null : redact(this.first),
      latestUserRequest: this.requests.length ? redact(this.requests[this.requests.length - 1] as string) : null,
      userRequests: this.requests.map((r) => redact(r)),
      commands: this.commands.map((e) => this.publish(e)),
      commandCount: this.count,
      rejected: this.rejectedList.map((e) => this.publish(e)),
      rejectedCount: this.rejectedTotal,
      filesTouched: [...this.files].sort(),
      todos: this.todos ? this.todos.map((t) => ({ ...t, content: redact(t.content) })) : null,
      lastAssistantMessage: lastText === null ? null : cut(redact(lastText), MAX_TEXT_CHARS),
      apiErrorLines: this.apiErrors,
      revision: this.rev,
      badLines: [...this.bad],
    };
  }

  /** One command as published: redacted as whole texts first, then cut to the excerpt size. */
  private publish(e: Entry): SessionCommand {
    if (e.published?.version === e.version) return e.published.value;
    const value: SessionCommand = {
      ordinal: e.ordinal,
      id: e.id,
      command: cut(redact(e.command), MAX_TEXT_CHARS),
      exit_code: e.exit,
      timed_out: !e.rejected && e.exit === null && (e.unfinished === 'timeout' || e.unfinished === 'background' || e.unfinished === 'running'),
      unfinished: e.rejected ? null : e.unfinished,
      rejected: e.rejected,
      started_at: e.startedAt,
      duration_ms: e.durationMs,
      stdout_tail: e.stdout ? tail(redact(e.stdout), STDOUT_TAIL_CHARS) : null,
      stderr_tail: e.stderr ? tail(redact(e.stderr), STDERR_TAIL_CHARS) : null,
      error: e.error ? cut(redact(e.error), 500) : null,
      agent_note: e.note ? redact(e.note) : null,
      user_reply: e.reply ? redact(e.reply) : null,
    };
    e.published = { version: e.version, value };
    return value;
  }
}
