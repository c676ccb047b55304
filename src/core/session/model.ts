/**
 * The workbench facts derived from an agent's own session file (DESIGN §2b): what a Claude Code
 * transcript or a Codex rollout says about commands, edits, the task list and the user's requests.
 * Every string in a `SessionFacts` value has been redacted; nothing raw leaves the readers.
 */

export type SessionAgent = 'claude-code' | 'codex';

/** Why a command has no exit status. */
export type Unfinished = 'timeout' | 'background' | 'running' | 'interrupted' | 'no-result' | 'error';

/** One shell command the session ran (or tried to run), in order. */
export interface SessionCommand {
  /** 0-based position among the session's commands (rejected ones included). */
  ordinal: number;
  /** Claude `tool_use.id` / Codex `call_id`. */
  id: string;
  command: string;
  /**
   * Null when it timed out, went to the background, is still running, or never answered. A failure
   * flagged without its code (older Claude Code versions) reads as 1.
   */
  exit_code: number | null;
  /** No exit status: timed out, sent to the background or still running when the log ends. */
  timed_out: boolean;
  /** What kind of unfinished, when `exit_code` is null and the user did not reject it. */
  unfinished: Unfinished | null;
  /** The user declined it at the permission prompt: it never ran. */
  rejected: boolean;
  started_at: string | null;
  duration_ms: number | null;
  /** Tails of the output (redacted before the cut). */
  stdout_tail: string | null;
  stderr_tail: string | null;
  /** Why there is no exit status, or the tool's error line. */
  error: string | null;
  /** First sentence of the assistant text that followed the result. */
  agent_note: string | null;
  /** For a rejected command: what the user said next. */
  user_reply: string | null;
}

export interface SessionTodo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The ordinal of the first command after the list that set this task in progress. */
  since: number;
}

export interface SessionFacts {
  agent: SessionAgent;
  /** The log the facts come from. */
  file: string;
  sessionId: string;
  cwd: string | null;
  branch: string | null;
  firstUserRequest: string | null;
  latestUserRequest: string | null;
  /** The first request and the newest ones (bounded). */
  userRequests: string[];
  /** Commands kept for the packet: the newest ones, every recent failure, the last test runs. Ordered. */
  commands: SessionCommand[];
  /** Every command seen (rejected ones included), also the ones not kept. */
  commandCount: number;
  /** Declined by the user (newest, bounded), in order. */
  rejected: SessionCommand[];
  /** How many commands the user declined in all. */
  rejectedCount: number;
  /** Absolute paths of edited files, sorted (bounded). */
  filesTouched: string[];
  /** The last task list (TodoWrite / update_plan), or null when the session has none. */
  todos: SessionTodo[] | null;
  /** The last main-chain assistant message, which says where the agent stopped. */
  lastAssistantMessage: string | null;
  apiErrorLines: number;
  /** Changes whenever a fact changes: a cheap way to tell whether a refresh is needed. */
  revision: number;
  /** Lines that were not JSON (not the torn last line), with their 1-based line numbers (bounded). */
  badLines: number[];
}

/** `claude:<id>` / `codex:<id>`: where a kind of fact came from, as the packet records it. */
export function sessionSourceLabel(facts: Pick<SessionFacts, 'agent' | 'sessionId'>): string {
  return `${facts.agent === 'claude-code' ? 'claude' : 'codex'}:${facts.sessionId}`;
}

/** "Claude Code session 7f3e2a91" — for people. */
export function sessionDisplayName(facts: Pick<SessionFacts, 'agent' | 'sessionId'>): string {
  return `${facts.agent === 'claude-code' ? 'Claude Code' : 'Codex'} session ${facts.sessionId.slice(0, 8)}`;
}
