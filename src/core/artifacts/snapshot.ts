import type { Diagnostic } from '../diagnostics';
import type { AgentState, FeatureList, FeedbackRecord, ReviewReport, VerificationReport } from './schemas';
import type { SessionAgent, SessionAnswer, SessionCommand, SessionQuestion, SessionText, UnansweredRequest } from '../session/model';
import type { Source } from '../source';
import type { ExchangeEvent } from '../session/exchange';

/** One feedback record with its 0-based line number in `feedback_record.jsonl`. */
export interface IndexedRecord {
  index: number;
  record: FeedbackRecord;
  /** Where the record came from when it is not `feedback_record.jsonl` line index + 1 (a session's call line). */
  source?: Source;
}

/** Where an artifact was read from, relative to the workbench dir, with a content hash for freshness. */
export interface ArtifactSource {
  file: string;
  sha256: string;
}

/**
 * A credential the loader masked in an input file: where it was and what kind ("a Stripe live key").
 * The secret itself is not kept.
 */
export interface SecretFinding {
  /** The artifact, relative to the workbench dir. */
  file: string;
  /** 1-based line, when known. */
  line: number | null;
  rule: string;
  label: string;
  /** The first 16 hex digits of the value's sha256: one credential seen in several places is one risk. */
  fingerprint?: string;
  /** What printed it into an agent session (`` `cat .env` ``, "Read of .env.local"), and that call's line. */
  printedBy?: string | null;
  callLine?: number | null;
  /** Set when `file` is an agent's session file (absolute path): the transcript holds a copy. */
  session?: string;
  /** Every line of `file` it was seen on, when more than one (bounded). */
  lines?: number[];
  /** The file the session printed it from (`cat .env`, a file read), absolute, when the call names one. */
  sourceFile?: string;
  /** Set when `file` is one of a Cline / Roo Code / Kilo Code task's JSON files: "Cline task 1764…". */
  task?: string;
  /** With `task`: the 0-based index of each message it was seen in, parallel to `lines`. */
  messages?: number[];
  /** A possible credential only (a key name with a value of no secret's shape): a warning, not "rotate now". */
  weak?: boolean;
}

/**
 * What the loader read from a workbench: every artifact optional, never a partial crash.
 * Only the records the packet can use are kept (bounded memory for huge feedback logs).
 */
export interface WorkbenchSnapshot {
  /** Absolute path of the workbench dir. */
  dir: string;
  agentState: AgentState | null;
  verification: (VerificationReport & { file: string }) | null;
  review: (ReviewReport & { file: string }) | null;
  /**
   * The board, or the agent's task list when no board file exists (`derivedFrom` then names the
   * session, and `file` reads "the task list").
   */
  featureList: (FeatureList & { file: string; derivedFrom?: string }) | null;
  feedback: {
    /** Trimmed records: last K plus every failure, original order, at most `maxKept`. */
    kept: IndexedRecord[];
    /** Total valid records seen. */
    total: number;
    /** Valid records not kept. */
    omitted: number;
    /** The newest record that looks like a test run (pytest, npm test, go test, …), if any. */
    lastTestRun: IndexedRecord | null;
    /**
     * The newest record for each command that matters to the clean-state checks (a board
     * feature's `done_when`, or a test-runner command), keyed by the command as one normalized
     * string (argv joined by single spaces). Bounded in size.
     */
    lastRunOf: Record<string, IndexedRecord>;
    /** Set when the log was derived from an agent session: the session for people ("Claude Code session 7f3e2a91"). */
    derivedFrom?: string;
    /**
     * Kept failures that a later run passed (the same command, flags aside, or a test run covering the
     * same target): failure index → index of the passing run. Such a failure is history, not open.
     */
    resolvedBy?: Record<number, number>;
    /** Files edited after each kept command and before the next one (command index → paths), when known. */
    editedAfter?: Record<number, string[]>;
  } | null;
  sources: ArtifactSource[];
  diagnostics: Diagnostic[];
  /** Where each kind of fact came from: a workbench file, or the agent session (`claude:<id>`). */
  origins?: Record<string, string>;
  /** The agent session merged into this snapshot, when one was found for the folder. */
  session?: SessionSummary | null;
  /** Credentials masked in the input files (every string above is already redacted). */
  secrets?: SecretFinding[];
}

/** What the packet says of the agent session itself (all text already redacted). */
export interface SessionSummary {
  agent: SessionAgent;
  sessionId: string;
  /** `claude:<id>` / `codex:<id>`. */
  label: string;
  /** "Claude Code session 7f3e2a91". */
  displayName: string;
  file: string;
  firstUserRequest: string | null;
  latestUserRequest: string | null;
  lastAssistantMessage: string | null;
  rejectedCount: number;
  /** The session's judgement (DESIGN §2c), when the reader found it; every text redacted. */
  closing?: SessionText | null;
  /** No human message came after the closing words. */
  endedOnClosing?: boolean;
  firstRequest?: SessionText | null;
  latestRequest?: SessionText | null;
  openQuestions?: SessionQuestion[];
  answers?: SessionAnswer[];
  unanswered?: UnansweredRequest[];
  recap?: SessionText | null;
  /** Reasons the user typed when declining a command, whole, with the line of the call. */
  rejectionReasons?: { command: string; reason: string; line: number | null }[];
  /** The newest test command the session ran (for "verify with …"), when it ran one. */
  lastTestCommand?: string | null;
  /** The session has a task tool (a task list, even an empty one). */
  hasTaskList?: boolean;
  /** Every message the human typed, in order, each with its line (bounded; see SessionFacts). */
  humanMessages?: SessionText[];
  /** The newest plan the user approved, with its line. */
  approvedPlan?: SessionText;
  /** Skills the session ran, with their lines. */
  skills?: { name: string; line: number | null }[];
  /** The commands after the last human message (the final exchange), in order, rejected ones included. */
  finalCommands?: SessionCommand[];
  /** The goal the user set with `/goal` and did not clear (Claude Code): the standing task, verbatim. */
  goal?: SessionText | null;
  /** The final exchange, in order: from the last human message to the end of the record (session/exchange.ts). */
  exchange?: ExchangeEvent[];
}
