import { isTestCommand, normalizeCommand } from '../artifacts/commands';
import { redact } from '../redact';
import type { SessionAgent, SessionAnswer, SessionCommand, SessionFacts, SessionQuestion, SessionText, SessionTodo, UnansweredRequest, Unfinished } from './model';
import { ExchangeRecorder } from './exchange';
import { TaskList } from './taskList';
import type { StoredTask } from './taskStore';
import { cut, cutAtWord, firstSentence, MAX_TEXT_CHARS, RAW_TAIL_CHARS, STDERR_TAIL_CHARS, STDOUT_TAIL_CHARS, tail } from './text';

/** Commands with a result kept before the list is compacted. */
const COMPACT_AT = 200;
/** After compaction: the newest commands, the newest failures, the newest run of each test command. */
const KEEP_NEWEST = 60;
const KEEP_FAILURES = 40;
const KEEP_TEST_KEYS = 50;
const MAX_REJECTED = 30;
const MAX_REQUESTS = 20;
/** Every message the human typed is kept (the first and the newest this many), each with its line. */
const MAX_HUMAN_MESSAGES = 120;
/** What the agent said it was doing when it made a call: its text's first sentences, up to this. */
const MAX_INTENT_CHARS = 300;
/** An approved plan is kept whole up to this (it is what the next session implements). */
const MAX_PLAN_CHARS = 8_000;
const MAX_FILES = 500;
const MAX_BAD_LINES = 20;
/** Distinct unknown line types named (the count covers them all). */
const MAX_UNKNOWN_TYPES = 10;
const MAX_PENDING = 500;
/** Human words (requests, reasons, answers) are kept whole up to this (after redaction). */
export const MAX_HUMAN_CHARS = 2_000;
/** The closing words are kept whole up to this (after redaction); the packet cuts them further. */
export const MAX_CLOSING_CHARS = 12_000;
/** Raw text is held a little longer than its published bound, so that redaction never sees a cut secret. */
const RAW_MARGIN = 2_000;
const MAX_CWDS = 50;
const MAX_QUESTIONS = 20;
const MAX_ANSWERS = 20;
const MAX_UNANSWERED = 20;
const MAX_ROLLED_BACK = 20;
const MAX_BACKGROUND = 500;
/** Edits kept in order (oldest dropped first): enough to say what was edited after a recent command. */
const MAX_EDITS = 500;
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
  /** 1-based line of the result. */
  line?: number | null;
  /** The reason the user typed with a rejection. */
  rejectionReason?: string | null;
  /** The agent's own reading of the exit code ("No matches found"). */
  interpretation?: string | null;
  /** Sent to the background: its outcome comes later (a notification, a stop), matched by this task id. */
  background?: { taskId: string | null } | null;
}

/** Where a command was called, for its provenance. */
export interface CommandMeta {
  line?: number | null;
  tool?: string;
  cwd?: string | null;
  /** What the call says it is for (Claude Code's Bash `description`). */
  description?: string | null;
}

type BackgroundStatus = 'pending' | 'completed' | 'failed' | 'stopped';

/** A human request while the log is read: raw text, its line, and whether a real answer came. */
interface Request {
  text: string;
  line: number | null;
  /** Commands seen before it (its turn's commands have this ordinal or more). */
  commandsBefore: number;
  answered: boolean;
  why: UnansweredRequest['why'];
}

interface PendingQuestion {
  questions: { question: string; options: string[] }[];
  line: number | null;
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
  line: number | null;
  resultLine: number | null;
  tool: string | null;
  cwd: string | null;
  rejectionReason: string | null;
  interpretation: string | null;
  background: { taskId: string | null; status: BackgroundStatus; resolvedLine: number | null } | null;
  rolledBack: boolean;
  /** What the call says it is for, and what the agent said just before it (raw). */
  description: string | null;
  intent: string | null;
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
  model: string | null = null;
  version: string | null = null;
  private first: Request | null = null;
  private requests: Request[] = [];
  /** Every typed message (the first and the newest), for the words a successor must not break. */
  private humanList: Request[] = [];
  /** The agent's newest text since the last human message: what it said it was about to do. */
  private lastText: string | null = null;
  /** Skills the session ran (Claude Code's Skill tool, a Codex `[$skill](…)` mention, a SKILL.md read). */
  private skillList: { name: string; line: number | null }[] = [];
  private rejectedEditList: { target: string; reason: string | null; line: number | null }[] = [];
  /** A plan the agent proposed (Codex `<proposed_plan>`), and the newest plan the user approved. */
  private proposedPlan: { text: string; line: number | null } | null = null;
  private approvedPlanText: { text: string; line: number | null } | null = null;
  private commands: Entry[] = [];
  private answeredSinceCompact = 0;
  private count = 0;
  private rejectedList: Entry[] = [];
  private rejectedTotal = 0;
  private readonly pending = new Map<string, Entry>();
  /** Background commands whose outcome has not come yet, by tool-call id and by task id. */
  private readonly backgroundById = new Map<string, Entry>();
  private readonly backgroundByTask = new Map<string, Entry>();
  /** Every background command by task id, resolved or not: its output file may be read later. */
  private readonly taskOutputs = new Map<string, Entry>();
  /** Commands whose result came and that no assistant text has commented on yet. */
  private awaitingNote: Entry[] = [];
  /** Rejected commands waiting for the user's next message. */
  private awaitingReply: Entry[] = [];
  private files: string[] = [];
  private readonly fileSet = new Set<string>();
  private editList: { file: string; line: number; beforeCommand: number }[] = [];
  private readonly taskList = new TaskList();
  private lastAssistant: { key: string; parts: string[] } | null = null;
  /** The assistant text since the last human message and the last tool call: the closing words so far. */
  private segment: { parts: string[]; chars: number; line: number | null } | null = null;
  /** A tool call came after the segment's text. */
  private segmentClosed = false;
  private cwdList: string[] = [];
  private readonly askPending = new Map<string, PendingQuestion>();
  private open: SessionQuestion[] = [];
  private answerList: SessionAnswer[] = [];
  /** The latest request, until a real answer came. */
  private current: Request | null = null;
  private unansweredList: Request[] = [];
  private rolledBack: { text: string; line: number | null }[] = [];
  private recapText: { text: string; line: number | null } | null = null;
  private apiErrors = 0;
  private readonly seen = new Set<string>();
  private bad: number[] = [];
  /** The final exchange in order (from the last human message on): recorded, never judged here. */
  private readonly exchange = new ExchangeRecorder();
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

  /** A working directory the session was in (the first one is `cwd`). */
  addCwd(cwd: string): void {
    if (!this.cwd) this.cwd = cwd;
    if (this.cwdList.length >= MAX_CWDS || this.cwdList.includes(cwd)) return;
    this.cwdList.push(cwd);
    this.rev++;
  }

  /** A file edit (or another non-command call) the user declined, with the reason typed with it. */
  rejectedEdit(target: string, reason: string | null, line: number | null): void {
    this.rejectedEditList.push({ target: target.slice(0, 1000), reason: reason ? reason.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN) : null, line });
    if (this.rejectedEditList.length > MAX_REJECTED) this.rejectedEditList.shift();
    this.rev++;
  }

  /** The user approved a plan (Claude Code's ExitPlanMode accepted, "Implement the plan" after a proposed one). */
  planApproved(text: string, line: number | null): void {
    const t = text.trim();
    if (!t) return;
    this.approvedPlanText = { text: t.slice(0, MAX_PLAN_CHARS + RAW_MARGIN), line };
    this.rev++;
  }

  /** A skill the session ran: its workflow is part of the task. */
  skill(name: string, line: number | null): void {
    const n = name.trim().slice(0, 100);
    if (!n || this.skillList.some((x) => x.name === n) || this.skillList.length >= 20) return;
    this.skillList.push({ name: n, line });
    this.rev++;
  }

  /** A command call. Returns false for a duplicate id. */
  startCommand(id: string, command: string, at: string | null, meta: CommandMeta = {}): boolean {
    if (!command.trim() || this.pending.has(id)) return false;
    const skillFile = /[\\/]skills[\\/]([\w.-]+)[\\/]SKILL\.md\b/.exec(command);
    if (skillFile?.[1]) this.skill(skillFile[1], meta.line ?? null);
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
      line: meta.line ?? null,
      resultLine: null,
      tool: meta.tool ?? null,
      cwd: meta.cwd ?? null,
      rejectionReason: null,
      interpretation: null,
      background: null,
      rolledBack: false,
      description: meta.description?.trim() ? meta.description.trim().slice(0, MAX_INTENT_CHARS) : null,
      intent: this.lastText,
      version: 0,
    };
    this.commands.push(entry);
    this.pending.set(id, entry);
    this.exchange.add({ kind: 'command', id, line: entry.line });
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
    if (!keepPending) this.exchange.add({ kind: 'result', id, line: r.line ?? null, exit: r.exit, outcome: r.rejected ? 'rejected' : r.exit === 0 ? 'ok' : r.exit === null || r.background ? 'unfinished' : 'failed' });
    e.answered = true;
    e.exit = r.exit;
    e.rejected = r.rejected === true;
    e.unfinished = r.exit === null && !e.rejected ? (r.unfinished ?? 'error') : null;
    if (r.stdout !== undefined) e.stdout = tail(r.stdout, RAW_TAIL_CHARS);
    if (r.stderr !== undefined) e.stderr = tail(r.stderr, RAW_TAIL_CHARS);
    e.error = r.error ?? null;
    if (r.line !== undefined && r.line !== null) e.resultLine = r.line;
    if (r.rejectionReason) e.rejectionReason = r.rejectionReason.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN);
    // Raw text is kept with a margin: the final cut comes after redaction, so it never splits a secret.
    if (r.interpretation) e.interpretation = r.interpretation.slice(0, 500 + RAW_MARGIN);
    if (r.background) {
      e.background = { taskId: r.background.taskId, status: 'pending', resolvedLine: null };
      this.backgroundById.set(e.id, e);
      if (r.background.taskId) {
        this.backgroundByTask.set(r.background.taskId, e);
        this.taskOutputs.set(r.background.taskId, e);
        if (this.taskOutputs.size > MAX_BACKGROUND) this.taskOutputs.delete(this.taskOutputs.keys().next().value as string);
      }
      if (this.backgroundById.size > MAX_BACKGROUND) this.backgroundById.delete(this.backgroundById.keys().next().value as string);
      if (this.backgroundByTask.size > MAX_BACKGROUND) this.backgroundByTask.delete(this.backgroundByTask.keys().next().value as string);
    }
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

  /** True when a background command waits for its outcome under this tool-call id or task id. */
  isBackground(ref: { id?: string | null; taskId?: string | null }): boolean {
    return !!((ref.id && this.backgroundById.has(ref.id)) || (ref.taskId && this.backgroundByTask.has(ref.taskId)));
  }

  /**
   * The outcome of a background command (a task notification, a stop, a poll that saw it end): matched
   * by its tool-call id, else by its task id. `killed` means stopped on purpose (no exit code). A
   * Monitor that ended has no exit code either. Returns false when no background command matches.
   */
  resolveBackground(ref: { id?: string | null; taskId?: string | null }, outcome: { status: 'completed' | 'failed' | 'killed'; exit: number | null; line: number | null; summary?: string | null }): boolean {
    const e = (ref.id ? this.backgroundById.get(ref.id) : undefined) ?? (ref.taskId ? this.backgroundByTask.get(ref.taskId) : undefined);
    if (!e?.background || e.background.status !== 'pending') return false;
    this.backgroundById.delete(e.id);
    if (e.background.taskId) this.backgroundByTask.delete(e.background.taskId);
    const monitor = e.tool === 'Monitor';
    e.background.resolvedLine = outcome.line;
    e.error = null;
    if (outcome.status === 'killed') {
      e.exit = null;
      e.unfinished = 'stopped';
      e.background.status = 'stopped';
      e.error = 'stopped on purpose before it ended (it may have partly applied); no exit status';
    } else if (outcome.exit !== null) {
      e.exit = outcome.exit;
      e.unfinished = null;
      e.background.status = outcome.exit === 0 ? 'completed' : 'failed';
    } else if (monitor && outcome.status === 'completed') {
      e.exit = null;
      e.unfinished = 'completed';
      e.background.status = 'completed';
      e.error = 'the monitor stream ended (a monitor has no exit code)';
    } else {
      // A failure told without its code reads as 1, as older Claude Code results do.
      e.exit = outcome.status === 'failed' ? 1 : 0;
      e.unfinished = null;
      e.background.status = outcome.status;
    }
    // A failure's notice says how it ended; a success needs no error line.
    if (outcome.summary && e.exit !== null && e.exit !== 0) e.error = outcome.summary.slice(0, 500 + RAW_MARGIN);
    e.version++;
    this.rev++;
    return true;
  }

  /** True when `taskId` is a background command of this session (its output file can be matched to it). */
  isBackgroundTask(taskId: string): boolean {
    return this.taskOutputs.has(taskId);
  }

  /** A background command's output, as the agent read it from its output file or a poll. */
  backgroundOutput(taskId: string, stdout: string): void {
    const e = this.taskOutputs.get(taskId);
    if (!e || !stdout.trim()) return;
    e.stdout = tail(stdout, RAW_TAIL_CHARS);
    e.version++;
    this.rev++;
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
  abortPending(unfinished: Unfinished, error: string, line: number | null = null): void {
    for (const id of [...this.pending.keys()]) this.finishCommand(id, { exit: null, unfinished, error, line });
  }

  /** Any tool call: the assistant moved on, so earlier results get no note, and its text so far is not its last word. */
  toolUse(line: number | null = null): void {
    this.exchange.add({ kind: 'tool', line });
    this.awaitingNote = [];
    if (this.segment) this.segmentClosed = true;
    this.answered();
  }

  /** Main-chain assistant text. `key` groups the streamed parts of one message. */
  assistantText(text: string, key: string, line: number | null = null): void {
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
    // Kept raw with a margin (redaction, then the cut, come when the facts are made): nothing is redacted per message.
    const kept = t.length > MAX_TEXT_CHARS + RAW_MARGIN ? t.slice(0, MAX_TEXT_CHARS + RAW_MARGIN) : t;
    if (last && last.key === key) {
      if (!last.parts.includes(kept)) last.parts.push(kept);
    } else {
      this.lastAssistant = { key, parts: [kept] };
    }
    this.addClosingPart(t, line);
    this.exchange.add({ kind: 'text', line });
    this.lastText = cut(t, MAX_INTENT_CHARS + RAW_MARGIN);
    const proposed = /<proposed_plan>([\s\S]*?)(?:<\/proposed_plan>|$)/.exec(t);
    if (proposed?.[1]?.trim()) this.proposedPlan = { text: proposed[1].trim().slice(0, MAX_PLAN_CHARS + RAW_MARGIN), line };
    this.answered();
    this.rev++;
  }

  private addClosingPart(t: string, line: number | null): void {
    const limit = MAX_CLOSING_CHARS + RAW_MARGIN;
    if (!this.segment || this.segmentClosed) {
      this.segment = { parts: [], chars: 0, line };
      this.segmentClosed = false;
    }
    const seg = this.segment;
    if (seg.parts.includes(t) || seg.chars >= limit) {
      if (!seg.parts.includes(t)) seg.chars += t.length;
      return;
    }
    seg.parts.push(t.length > limit ? t.slice(0, limit) : t);
    seg.chars += t.length;
  }

  /** The agent's own last words for its turn (Codex `task_complete.last_agent_message`): the closing words. */
  setClosing(text: string, line: number | null): void {
    const t = text.trim();
    if (!t) return;
    this.segment = null;
    this.segmentClosed = false;
    this.addClosingPart(t, line);
    this.exchange.add({ kind: 'text', line });
    this.answered();
    this.rev++;
  }

  /** The current request got a real answer (text or a tool call). */
  private answered(): void {
    if (this.current) {
      this.current.answered = true;
      this.current = null;
    }
  }

  apiError(line: number | null = null): void {
    this.exchange.add({ kind: 'api-error', line });
    this.apiErrors++;
    if (this.current) this.current.why = 'api-error';
    this.rev++;
  }

  /** The human interrupted the turn: the words before it were cut short, not the session's last. */
  interrupted(line: number | null = null): void {
    this.exchange.add({ kind: 'interrupt', line });
    if (this.current && this.current.why !== 'api-error') this.current.why = 'interrupted';
    if (this.segment) this.segmentClosed = true;
    this.rev++;
  }

  /** How many human requests and commands were read so far (every one, not the bounded lists). */
  get readSoFar(): { requests: number; commands: number; latest: string | null } {
    return { requests: this.requestsSeen, commands: this.count, latest: this.requests[this.requests.length - 1]?.text ?? null };
  }

  private requestsSeen = 0;

  /** A message the human typed. */
  humanRequest(text: string, line: number | null = null): void {
    const raw = text.trim();
    if (!raw) return;
    const t = raw.length > MAX_HUMAN_CHARS + RAW_MARGIN ? raw.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN) : raw;
    const req: Request = { text: t, line, commandsBefore: this.count, answered: false, why: 'no-reply' };
    for (const m of t.matchAll(/\[\$([\w.-]+)\]\(/g)) if (m[1]) this.skill(m[1], line);
    // "Implement the plan." after a proposed plan approves it.
    if (this.proposedPlan && /^\W*(?:please\s+)?(?:implement|execute|go ahead with|proceed with|carry out|do)\s+(?:the|this|that|your)\s+plan\b/i.test(t)) {
      this.planApproved(this.proposedPlan.text, this.proposedPlan.line);
      this.proposedPlan = null;
    }
    this.requestsSeen++;
    if (this.current) {
      this.unansweredList.push(this.current);
      if (this.unansweredList.length > MAX_UNANSWERED) this.unansweredList.shift();
    }
    this.current = req;
    this.exchange.human(line);
    this.lastText = null;
    if (this.first === null) this.first = req;
    this.humanList.push(req);
    if (this.humanList.length > MAX_HUMAN_MESSAGES) this.humanList.splice(this.humanList[0] === this.first ? 1 : 0, 1);
    this.requests.push(req);
    if (this.requests.length > MAX_REQUESTS) this.requests.splice(this.requests[0] === this.first ? 1 : 0, 1);
    for (const e of this.awaitingReply) {
      if (e.reply === null) {
        e.reply = cut(t, MAX_TEXT_CHARS + RAW_MARGIN);
        e.version++;
      }
    }
    this.awaitingReply = [];
    // The words before it were not the session's last; a question it asked is answered or moot.
    this.segment = null;
    this.segmentClosed = false;
    this.open = [];
    this.askPending.clear();
    this.rev++;
  }

  /** The latest request was read from another copy of the same message (Codex's event): its line. */
  relineLatestRequest(line: number): void {
    const last = this.requests[this.requests.length - 1];
    if (last) last.line = line;
    this.rev++;
  }

  /**
   * Codex `thread_rolled_back`: the last `n` user turns are gone from the thread. Their requests are
   * not the task any more (kept apart for the record); their commands stay, marked, as their side
   * effects happened.
   */
  rollBack(n: number): void {
    if (!(n > 0)) return;
    const removed = this.requests.splice(Math.max(0, this.requests.length - n), n);
    if (!removed.length) return;
    const from = (removed[0] as Request).commandsBefore;
    for (const e of [...this.commands, ...this.rejectedList, ...this.pending.values()]) {
      if (e.ordinal >= from && !e.rolledBack) {
        e.rolledBack = true;
        e.version++;
      }
    }
    for (const r of removed) {
      this.rolledBack.push({ text: r.text, line: r.line });
      if (this.rolledBack.length > MAX_ROLLED_BACK) this.rolledBack.shift();
    }
    const gone = new Set(removed);
    this.humanList = this.humanList.filter((r) => !gone.has(r));
    this.unansweredList = this.unansweredList.filter((r) => !gone.has(r));
    if (this.current && gone.has(this.current)) this.current = null;
    if (this.first && gone.has(this.first)) this.first = this.requests[0] ?? null;
    // The rolled-back turn's words and questions went with it.
    this.segment = null;
    this.segmentClosed = false;
    this.open = [];
    this.askPending.clear();
    this.rev++;
  }

  /** The agent asked the human through its question tool. */
  askQuestions(id: string, questions: { question: string; options: string[] }[], line: number | null): void {
    if (!questions.length) return;
    this.askPending.set(id, { questions: questions.slice(0, MAX_QUESTIONS), line });
    if (this.askPending.size > MAX_QUESTIONS) this.askPending.delete(this.askPending.keys().next().value as string);
    this.rev++;
  }

  isAsking(id: string): boolean {
    return this.askPending.has(id);
  }

  /**
   * The question tool's result: `answers` maps a question to what the human chose or typed; a question
   * without an answer (dismissed, auto-continued while the human was away) stays open.
   */
  questionResult(id: string, answers: Record<string, string>, line: number | null): void {
    const q = this.askPending.get(id);
    if (!q) return;
    this.askPending.delete(id);
    for (const item of q.questions) {
      const a = answers[item.question];
      if (a !== undefined && a.trim()) {
        this.answerList.push({ question: item.question.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN), answer: a.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN), line: line ?? q.line ?? 0 });
        if (this.answerList.length > MAX_ANSWERS) this.answerList.shift();
      } else {
        this.pushOpen(item, q.line);
      }
    }
    this.rev++;
  }

  private pushOpen(item: { question: string; options: string[] }, line: number | null): void {
    this.open.push({ text: item.question.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN), source: 'question-tool', line: line ?? 0, ...(item.options.length ? { options: item.options.slice(0, 20) } : {}) });
    if (this.open.length > MAX_QUESTIONS) this.open.shift();
  }

  /** The agent's own recap (Claude Code `away_summary`). */
  setRecap(text: string, line: number | null): void {
    const t = text.trim();
    if (!t) return;
    this.recapText = { text: t.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN), line };
    this.exchange.add({ kind: 'recap', line });
    this.rev++;
  }

  /** A compaction, with the summary the agent wrote of where the work stood when the record has one. */
  compacted(summary: string | null, line: number | null): void {
    this.exchange.add({ kind: 'compaction', line, text: summary?.trim() || null });
    this.rev++;
  }

  /** The ordinal the next command will get: an edit called now comes before that command. */
  get nextOrdinal(): number {
    return this.count;
  }

  /**
   * An edit that succeeded: the file counts as touched, and the edit is recorded with its call line and
   * the ordinal of the first command after its call (`beforeCommand`, taken when the call was made).
   */
  edited(file: string, line: number | null, beforeCommand: number): void {
    this.touch(file);
    this.editList.push({ file, line: line ?? 0, beforeCommand });
    if (this.editList.length > MAX_EDITS) this.editList.shift();
    this.rev++;
  }

  /** A file the session edited (absolute path). */
  touch(file: string): void {
    if (this.fileSet.has(file) || this.files.length >= MAX_FILES) return;
    this.fileSet.add(file);
    this.files.push(file);
    this.rev++;
  }

  /** True once the session has a task list of any kind. */
  get hasTodos(): boolean {
    return this.taskList.items !== null;
  }

  /** A new task list (each call replaces the whole list). */
  setTodos(items: { content: string; status: string; id?: string }[], source: { tool: string; line: number | null } | null = null): void {
    this.taskList.set(items, source, this.count);
    this.rev++;
  }

  /** A task the agent created (task tools): it starts pending. */
  taskCreate(id: string, subject: string, line: number | null): void {
    if (this.taskList.create(id, subject, line, this.count)) this.rev++;
  }

  /** A successful task update: a new status (`deleted` removes it) or subject. */
  taskUpdate(id: string, change: { status?: string; subject?: string }, line: number | null): void {
    if (this.taskList.update(id, change, line, this.count)) this.rev++;
  }

  /** True when the task list holds tasks and every one is completed (a finished list). */
  get todosAllCompleted(): boolean {
    return this.taskList.allCompleted;
  }

  // --- Facts recorded as they are (no judgement): the standing goal, lines of unknown types. ---

  private goalText: { text: string; line: number | null } | null = null;
  private readonly unknownTypes = new Map<string, number>();
  private unknownTotal = 0;

  /** The goal the user set (Claude Code `/goal <condition>`), verbatim; null clears it. */
  setGoal(text: string | null, line: number | null): void {
    const t = text?.trim();
    this.goalText = t ? { text: t.slice(0, MAX_HUMAN_CHARS + RAW_MARGIN), line } : null;
    this.rev++;
  }

  /** A line whose type the reader does not know: skipped, and counted by type. */
  unknownLine(type: string): void {
    this.unknownTotal++;
    if (this.unknownTypes.has(type) || this.unknownTypes.size < MAX_UNKNOWN_TYPES) this.unknownTypes.set(type, (this.unknownTypes.get(type) ?? 0) + 1);
    this.rev++;
  }

  badLine(line: number): void {
    if (this.bad.length < MAX_BAD_LINES) this.bad.push(line);
    this.rev++;
  }

  /** Marks the facts changed (something outside the lines, such as the task store, changed). */
  touchRevision(): void {
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
      if (!e.answered || e.background?.status === 'pending') keep.add(e);
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
  facts(file: string, fallbackId: string, extra: { store?: readonly StoredTask[] | null } = {}): SessionFacts {
    const lastText = this.lastAssistant ? this.lastAssistant.parts.join('\n\n') : null;
    const human = (t: string): string => cutAtWord(redact(t), MAX_HUMAN_CHARS).text;
    const humanText = (r: { text: string; line: number | null }): SessionText => {
      const c = cutAtWord(redact(r.text), MAX_HUMAN_CHARS);
      return { text: c.text, line: r.line ?? 0, ...(c.omitted ? { omittedChars: c.omitted } : {}) };
    };
    const latest = this.requests[this.requests.length - 1];
    const seg = this.segment;
    let closing: SessionText | null = null;
    if (seg?.parts.length) {
      const whole = redact(seg.parts.join('\n\n'));
      const c = cutAtWord(whole, MAX_CLOSING_CHARS);
      const omitted = c.omitted + Math.max(0, seg.chars - seg.parts.reduce((n, p) => n + p.length, 0));
      closing = { text: c.text, line: seg.line ?? 0, ...(omitted ? { omittedChars: omitted } : {}) };
    }
    const open = [...this.open];
    // Questions still on screen when the log ends got no answer either.
    for (const q of this.askPending.values()) for (const item of q.questions) open.push({ text: item.question, source: 'question-tool', line: q.line ?? 0, ...(item.options.length ? { options: item.options } : {}) });
    const unanswered = [...this.unansweredList.filter((r) => !r.answered), ...(this.current && !this.current.answered ? [this.current] : [])];
    // The on-disk task list is the live one (it survives compaction); the transcript's replay says since when a task is in progress.
    const store = extra.store?.length ? extra.store : null;
    const replayed = new Map((this.taskList.items ?? []).filter((t) => t.id !== undefined).map((t) => [t.id as string, t]));
    const todos = store
      ? store.map((t): SessionTodo => {
          const before = replayed.get(t.id);
          return { content: cut(t.subject, 500), status: t.status, since: t.status === 'in_progress' && before?.status === 'in_progress' ? before.since : this.count, id: t.id };
        })
      : this.taskList.items;
    const todosSource = store ? { tool: 'task store', line: null } : this.taskList.source;
    return {
      agent: this.agent,
      file,
      sessionId: this.sessionId ?? fallbackId,
      cwd: this.cwd,
      branch: this.branch,
      firstUserRequest: this.first === null ? null : human(this.first.text),
      latestUserRequest: latest ? human(latest.text) : null,
      userRequests: this.requests.map((r) => human(r.text)),
      commands: this.commands.map((e) => this.publish(e)),
      commandCount: this.count,
      rejected: this.rejectedList.map((e) => this.publish(e)),
      rejectedCount: this.rejectedTotal,
      filesTouched: [...this.files].sort(),
      edits: this.editList.map((e) => ({ ...e })),
      todos: todos ? todos.map((t) => ({ ...t, content: redact(t.content) })) : null,
      lastAssistantMessage: lastText === null ? null : cut(redact(lastText), MAX_TEXT_CHARS),
      cwds: this.cwdList.map((c) => redact(c)),
      humanMessages: this.humanList.map((r) => humanText(r)),
      ...(this.approvedPlanText ? { approvedPlan: (() => { const c = cutAtWord(redact(this.approvedPlanText.text), MAX_PLAN_CHARS); return { text: c.text, line: this.approvedPlanText.line ?? 0, ...(c.omitted ? { omittedChars: c.omitted } : {}) }; })() } : {}),
      ...(this.rejectedEditList.length ? { rejectedEdits: this.rejectedEditList.map((e) => ({ target: redact(e.target), reason: e.reason ? cutAtWord(redact(e.reason), MAX_HUMAN_CHARS).text : null, line: e.line })) } : {}),
      ...(this.skillList.length ? { skills: this.skillList.map((k) => ({ name: redact(k.name), line: k.line })) } : {}),
      firstRequest: this.first ? humanText(this.first) : null,
      latestRequest: latest ? humanText(latest) : null,
      closing,
      endedOnClosing: closing !== null && !this.segmentClosed,
      openQuestions: open.map((q) => ({ ...q, text: human(q.text), ...(q.options ? { options: q.options.map((o) => cut(redact(o), 500)) } : {}) })),
      answers: this.answerList.map((a) => ({ question: human(a.question), answer: human(a.answer), line: a.line })),
      unanswered: unanswered.map((r) => ({ ...humanText(r), why: r.why })),
      recap: this.recapText ? humanText(this.recapText) : null,
      todosSource: todos ? todosSource : null,
      rolledBackRequests: this.rolledBack.map((r) => humanText(r)),
      model: this.model,
      version: this.version,
      apiErrorLines: this.apiErrors,
      revision: this.rev,
      badLines: [...this.bad],
      goal: this.goalText ? humanText(this.goalText) : null,
      exchange: this.exchange.events.map((e) => (e.kind === 'compaction' && e.text ? { ...e, text: redact(e.text) } : { ...e })),
      ...(this.unknownTotal ? { unknownLines: { count: this.unknownTotal, types: [...this.unknownTypes.keys()].map((t) => cut(redact(t), 60)) } } : {}),
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
      user_reply: e.reply ? cutAtWord(redact(e.reply), MAX_HUMAN_CHARS).text : null,
      line: e.line,
      result_line: e.resultLine,
      ...(e.tool ? { tool: e.tool } : {}),
      rejection_reason: e.rejectionReason ? cutAtWord(redact(e.rejectionReason), MAX_HUMAN_CHARS).text : null,
      interpretation: e.interpretation ? cut(e.interpretation, 500) : null,
      background: e.background ? { task_id: e.background.taskId, status: e.background.status, resolved_line: e.background.resolvedLine } : null,
      rolled_back: e.rolledBack,
      ...(e.description ? { description: redact(e.description) } : {}),
      ...(e.intent ? { intent: cutAtWord(redact(e.intent), MAX_INTENT_CHARS).text } : {}),
      cwd: e.cwd === null ? null : redact(e.cwd),
    };
    e.published = { version: e.version, value };
    return value;
  }
}
