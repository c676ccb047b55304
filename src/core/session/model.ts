/**
 * The workbench facts derived from an agent's own session file (DESIGN §2b): what a Claude Code
 * transcript or a Codex rollout says about commands, edits, the task list and the user's requests.
 * Every string in a `SessionFacts` value has been redacted; nothing raw leaves the readers.
 */

import { shortSessionId } from '../packet/sources';
import type { Source } from '../source';
import type { ExchangeEvent } from './exchange';

export type SessionAgent = 'claude-code' | 'codex' | 'cline' | 'roo' | 'zoo' | 'kilo' | 'opencode' | 'copilot-chat' | 'gemini' | 'qwen' | 'copilot-cli';

/**
 * Why a command has no exit status. `stopped`: a background command stopped on purpose (KillShell /
 * TaskStop): not a failure, may have partly applied. `completed`: a Monitor stream that ended (no exit
 * code exists). `cancelled`: never ran (a parallel sibling failed).
 */
export type Unfinished = 'timeout' | 'background' | 'running' | 'interrupted' | 'no-result' | 'error' | 'stopped' | 'completed' | 'cancelled';

/** A piece of human or agent text with the line it came from (redacted; whole up to the reader's cap). */
export interface SessionText {
  text: string;
  /** 1-based line in the session file. */
  line: number;
  /** How many characters the reader left out (0 when whole). */
  omittedChars?: number;
}

/** A question the session left open: in the closing message, or a question-tool call with no answer. */
export interface SessionQuestion {
  text: string;
  source: 'closing' | 'question-tool';
  line: number;
  /** The choices the question tool offered. */
  options?: string[];
}

/** A human request that never got a real answer (only API errors, an interrupt, or nothing). */
export interface UnansweredRequest extends SessionText {
  why: 'api-error' | 'interrupted' | 'no-reply';
}

/** An answer the human gave to an agent's question (question tool). */
export interface SessionAnswer {
  question: string;
  answer: string;
  line: number;
}

/** One place of a task's JSON files (Cline / Roo Code / Kilo Code) where a credential was seen. */
export interface CredentialPlace {
  /** The task file (absolute): `ui_messages.json`, `api_conversation_history.json`, an SDK messages file. */
  file: string;
  /** The 1-based line of the file where the message starts (1 for a file written on one line). */
  line: number;
  /** The 0-based index of the message in the file's top-level array. */
  index: number;
}

/** A credential seen in the session file (never the value itself). */
export interface SessionCredential {
  /** Rule kind, e.g. "Stripe secret key". */
  kind: string;
  /** sha256 of the value, hex, first 16 chars: deduplicates across files without holding the value. */
  fingerprint: string;
  /** Every line it was seen on (bounded). */
  lines: number[];
  /** What printed it: "`cat .env` output", "Read of .env.local", "user message", "assistant text". */
  printedBy: string | null;
  /** The command/tool call that printed it, when known. */
  callLine?: number | null;
  /**
   * Set for a task of several JSON files (Cline / Roo Code / Kilo Code): every message it was seen in
   * (bounded); `lines` then are the lines of the first place's file.
   */
  places?: CredentialPlace[];
  /**
   * A possible credential only: every sighting was a key name with a value whose shape does not say
   * "secret" (a word, a value shown cut). Masked; reported as a warning, never as one to rotate now.
   */
  weak?: boolean;
}

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
  /** 1-based line of the call, and of its result (null when none came). */
  line?: number | null;
  result_line?: number | null;
  /** The tool that ran it: `Bash`, `Monitor`, `PowerShell`, `exec_command`, `shell`, … */
  tool?: string;
  /** The reason the user typed with a rejection ("The user provided the following reason…"), whole. */
  rejection_reason?: string | null;
  /** The agent's own reading of the exit code, e.g. Claude Code's `returnCodeInterpretation` "No matches found". */
  interpretation?: string | null;
  /** Sent to the background (run_in_background, a timeout moved to the background, Monitor). */
  background?: { task_id: string | null; status: 'pending' | 'completed' | 'failed' | 'stopped'; resolved_line: number | null } | null;
  /** Codex: the command was in a turn that `thread_rolled_back` removed (its side effects happened). */
  rolled_back?: boolean;
  /** The working directory the command ran in, when the session says. */
  cwd?: string | null;
  /** What the call says it is for (Claude Code's Bash `description`). */
  description?: string;
  /** The agent's own words just before the call (since the last human message), cut at a word. */
  intent?: string;
}

export interface SessionTodo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  /** The ordinal of the first command after the list that set this task in progress. */
  since: number;
  /** The task tool's id (`TaskCreate` #N), when the list came from task tools. */
  id?: string;
  /** 1-based line that last set this item. */
  line?: number;
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
  /** Every working directory the session was in (first one first; bounded). */
  cwds?: string[];
  /**
   * Every message the human typed, in order (the first and the newest ~120), each with its line and
   * whole up to about 2 000 characters: the corrections and constraints a successor must keep.
   */
  humanMessages?: SessionText[];
  /** File edits (and other non-command calls) the user declined, with the reason typed with each. */
  rejectedEdits?: { target: string; reason: string | null; line: number | null }[];
  /** The newest plan the user approved (plan mode's exit accepted, "Implement the plan"), whole up to ~8 000 characters. */
  approvedPlan?: SessionText;
  /** Skills the session ran (their workflow is part of the task), with the line that ran them. */
  skills?: { name: string; line: number | null }[];
  /** The first and the latest human request with their lines, whole up to about 2 000 characters. */
  firstRequest?: SessionText | null;
  latestRequest?: SessionText | null;
  /**
   * The closing words (DESIGN §2c): the main chain's final assistant text after the last human message
   * (every text part of that turn; Codex: `task_complete.last_agent_message`), whole up to a reader cap
   * (about 12 000 characters; the packet cuts it at a paragraph boundary). Null when the session ended on
   * a human message or has no assistant text.
   */
  closing?: SessionText | null;
  /** True when no human message came after the closing words (the session ended on them). */
  endedOnClosing?: boolean;
  /** Unanswered question-tool calls (AskUserQuestion with no answer, dismissed, or auto-continued). */
  openQuestions?: SessionQuestion[];
  /** Answers the human gave to the agent's questions, in order (bounded). */
  answers?: SessionAnswer[];
  /** Human requests that never got a real answer, in order. */
  unanswered?: UnansweredRequest[];
  /** The agent's own recap (Claude Code `away_summary`), newest; `(disable recaps…)` stripped. */
  recap?: SessionText | null;
  /** Where the task list came from: `TodoWrite`, `task tools`, `task store`, `update_plan`, …; and its line. */
  todosSource?: { tool: string; line: number | null } | null;
  /** Requests removed by Codex `thread_rolled_back` (not the task; kept for the record). */
  rolledBackRequests?: SessionText[];
  /** Credentials seen anywhere in the file (issue: flagged, never only masked). */
  credentials?: SessionCredential[];
  /** The model id of the latest main-chain request, when the session names it. */
  model?: string | null;
  /** The agent's CLI version, when the session names it. */
  version?: string | null;
  /**
   * Edits in order: the absolute path, the line of the edit call, and `beforeCommand`, the ordinal of
   * the first command after it (so the edits between command N and N+1 have `beforeCommand` N+1).
   * Lets an uncertain command's "may have changed" name only what was edited after it. Bounded.
   */
  edits?: { file: string; line: number; beforeCommand: number }[];
  apiErrorLines: number;
  /** Changes whenever a fact changes: a cheap way to tell whether a refresh is needed. */
  revision: number;
  /** The goal the user set with Claude Code's `/goal` and did not clear, verbatim (redacted): the standing task. */
  goal?: SessionText | null;
  /** The final exchange, in order: from the last human message to the end of the record (session/exchange.ts). */
  exchange?: ExchangeEvent[];
  /** Lines of a type the reader does not know: skipped, counted (and their types, bounded). */
  unknownLines?: { count: number; types: string[] };
  /** Lines that were not JSON (not the torn last line), with their 1-based line numbers (bounded). */
  badLines: number[];
  /** What was not read, said plainly (a huge task file read from its end), per file. */
  notRead?: { file: string; message: string }[];
}

const LABEL: Record<SessionAgent, string> = { 'claude-code': 'claude', codex: 'codex', cline: 'cline', roo: 'roo', zoo: 'zoo', kilo: 'kilo', opencode: 'opencode', 'copilot-chat': 'copilot-chat', gemini: 'gemini', qwen: 'qwen', 'copilot-cli': 'copilot-cli' };
const NAME: Record<SessionAgent, string> = { 'claude-code': 'Claude Code', codex: 'Codex', cline: 'Cline', roo: 'Roo Code', zoo: 'Zoo Code', kilo: 'Kilo Code', opencode: 'OpenCode', 'copilot-chat': 'Copilot Chat', gemini: 'Gemini CLI', qwen: 'Qwen Code', 'copilot-cli': 'Copilot CLI' };

/** Every agent whose sessions the product reads, for people: "Claude Code, Codex, Cline, Roo Code, Zoo Code or Kilo Code". */
export function agentsRead(): string {
  const names = Object.values(NAME);
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1] ?? ''}`;
}

/** The agent's name for people: "Claude Code", "Codex", "Cline", "Roo Code", "Kilo Code". */
export function agentName(agent: SessionAgent): string {
  return NAME[agent];
}

/** `claude:<id>` / `codex:<id>` / `cline:<task>`: where a kind of fact came from, as the packet records it. */
export function sessionSourceLabel(facts: Pick<SessionFacts, 'agent' | 'sessionId'>): string {
  return `${LABEL[facts.agent]}:${facts.sessionId}`;
}

/** "Claude Code session 7f3e2a91" / "Cline task 1733…" — for people. */
export function sessionDisplayName(facts: Pick<SessionFacts, 'agent' | 'sessionId'>): string {
  const unit = facts.agent === 'cline' || facts.agent === 'roo' || facts.agent === 'zoo' || facts.agent === 'kilo' ? 'task' : 'session';
  return `${NAME[facts.agent]} ${unit} ${shortSessionId(facts.sessionId)}`;
}

/** A session item's source (file and line). */
export function sessionSource(facts: Pick<SessionFacts, 'file'>, line: number | null, what?: string): Source {
  return what === undefined ? { file: facts.file, line } : { file: facts.file, line, what };
}
