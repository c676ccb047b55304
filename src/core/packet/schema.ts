import { z } from 'zod';

/**
 * The handoff packet (`handoff.json`, DESIGN §3). The JSON is the truth; `handoff.md` and the
 * restart prompt are renders of it. This schema validates packets read back from disk too.
 */

export const SEVERITIES = ['block', 'high', 'warn', 'info'] as const;
export const SeveritySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof SeveritySchema>;

/** Where a derived item came from (core/source.ts): a session or workbench file and its 1-based line. */
export const SourceSchema = z.object({ file: z.string(), line: z.number().int().nullable(), what: z.string().optional() });

export const ChangedFileSchema = z.object({
  path: z.string(),
  kind: z.enum(['added', 'modified', 'deleted', 'renamed', 'untracked', 'touched']),
  from: z.string().optional(),
});

export const CommandRunSchema = z.object({
  /** 0-based line number in feedback_record.jsonl. */
  index: z.number().int(),
  command: z.string(),
  exit_code: z.number().int().nullable(),
  outcome: z.enum(['ok', 'failed', 'timeout', 'error']),
  started_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  note: z.string().nullable(),
  /** Where the command was recorded: the session file and the line of its call, or feedback_record.jsonl:N. */
  source: SourceSchema.optional(),
  /**
   * Set when a non-zero exit is no failure: a search that found nothing (`grep`, `rg`, … exit 1 with no
   * output), or a probe (`test -f`, `which`, `command -v`, `ls` of a missing path); or a background run
   * stopped on purpose. Such a command is not among the failed attempts.
   */
  not_a_failure: z.string().optional(),
});

export const FailedAttemptSchema = z.object({
  index: z.number().int(),
  command: z.string(),
  outcome: z.enum(['failed', 'timeout', 'error']),
  exit_code: z.number().int().nullable(),
  note: z.string().nullable(),
  /** A short excerpt of the failing output (or the error). */
  excerpt: z.string(),
  /** A timeout, spawn error or kill: the command may have partly applied. */
  uncertain: z.boolean(),
  /** For an uncertain attempt: changed files it plausibly touched (named by it first, then the rest). */
  may_have_changed: z.array(z.string()).optional(),
  /** Where the command was recorded (session file and line, or feedback_record.jsonl:N). */
  source: SourceSchema.optional(),
  /** The index of a later passing run of the same command or test target: history, not an open failure. */
  resolved_by: z.number().int().optional(),
});

export const RiskSchema = z.object({
  id: z.string(),
  severity: SeveritySchema,
  detail: z.string(),
  /** Where the risk comes from: an artifact file (`verification_report.json`), `clean_state`, `git`, … */
  source: z.string(),
  owner: z.enum(['human', 'agent']).optional(),
  /** A command that proves the risk closed. */
  verify: z.string().optional(),
  paths: z.array(z.string()).optional(),
});

export const DecisionSchema = z.object({
  text: z.string(),
  status: z.enum(['made', 'rejected']),
  /** Where the decision was recorded (agent_state.json, or the session line of a declined command). */
  source: SourceSchema.optional(),
});

/**
 * The session's closing words (DESIGN §2c): its final assistant message after the last human message,
 * whole up to about 3 000 characters, else cut at a paragraph boundary; `omitted_chars` says how much
 * was left out (the rest is at `source`).
 */
export const ClosingSchema = z.object({
  text: z.string(),
  source: SourceSchema,
  omitted_chars: z.number().int().min(0).optional(),
});

/** An open question of the session, with where it was asked. */
export const QuestionSchema = z.object({
  text: z.string(),
  /** `closing`: in the closing words; `question-tool`: an unanswered question-tool call; `agent_state`: questions_for_human. */
  from: z.enum(['closing', 'question-tool', 'agent_state']),
  source: SourceSchema.nullable(),
  options: z.array(z.string()).optional(),
});

/** The human's own words, kept whole up to about 2 000 characters (never cut inside a word). */
export const HumanWordsSchema = z.object({
  /** `message`: any other message the human typed (a correction, a constraint, an approval); `goal`: the /goal set. */
  kind: z.enum(['goal', 'first-request', 'latest-request', 'rejection-reason', 'answer', 'unanswered-request', 'message', 'approved-plan']),
  text: z.string(),
  source: SourceSchema.nullable(),
  /** For an answer: the question it answers; for a rejection reason: the declined command. */
  about: z.string().optional(),
  omitted_chars: z.number().int().min(0).optional(),
});

/** The kinds of next action, in the order they are chosen (DESIGN §2c). */
export const NEXT_ACTION_KINDS = [
  'agent_state',
  'closing-next',
  'recap',
  'unanswered-request',
  'task',
  'failure',
  'verification',
  'questions',
  'latest-request',
  'done',
  'unfinished-step',
  'waiting',
] as const;

/** How the session ended (the final exchange: the last human message and everything after it). */
export const ENDING_KINDS = ['cut-mid-step', 'waiting-for-human', 'human-unanswered', 'agent-closed', 'no-reply'] as const;
export const EndingSchema = z.object({
  kind: z.enum(ENDING_KINDS),
  /** One line for people: how the session ended, with its lines. */
  summary: z.string(),
  source: SourceSchema.nullable(),
});
export const NextActionOriginSchema = z.object({ kind: z.enum(NEXT_ACTION_KINDS), source: SourceSchema.nullable() });

export const CleanFindingSchema = z.object({
  check: z.enum(['working-tree', 'temp-artifacts', 'tests', 'feature-board', 'branch']),
  detail: z.string(),
  paths: z.array(z.string()).optional(),
  fix: z.string(),
  severity: z.enum(['block', 'warn']).optional(),
  silence: z.string().optional(),
});

export const ContextAtGenerationSchema = z.union([
  z.object({
    known: z.literal(true),
    source: z.enum(['claude', 'codex', 'generic', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli']),
    sessionId: z.string(),
    model: z.string().optional(),
    usedTokens: z.number(),
    windowTokens: z.number(),
    percent: z.number(),
    compactAtPercent: z.number(),
    at: z.string(),
  }),
  z.object({ known: z.literal(false), reason: z.string() }),
]);

export const PacketSchema = z.object({
  schema_version: z.literal(1),
  /** The packet's folder name under the output dir (session id, or session id + short suffix). */
  packet_id: z.string(),
  session_id: z.string(),
  topic: z.string(),
  repo: z.string().nullable(),
  /** The repository's remote (`origin`), credentials removed: tells a receiver whether it matches their checkout. */
  remote: z.string().nullable().optional(),
  branch: z.string().nullable(),
  head_commit: z.string().nullable(),
  last_known_good_commit: z.string().nullable(),
  status: z.enum(['active', 'superseded', 'archived']),
  superseded_by: z.string().nullable(),
  /** Derived from the inputs (never the wall clock), so the same inputs give the same bytes. */
  generated_at: z.string(),

  summary: z.string().min(1),
  changed_files: z.array(ChangedFileSchema),
  commands_run: z.array(CommandRunSchema),
  commands_omitted: z.number().int().min(0),
  failed_attempts: z.array(FailedAttemptSchema),
  open_risks: z.array(RiskSchema),
  next_action: z.string().min(1),
  next_action_source: z.enum(['agent_state', 'derived']),
  /** Which step of the precedence gave the next action, and where it came from (older packets: absent). */
  next_action_origin: NextActionOriginSchema.optional(),
  /** How the session ended, which decides the next action (absent without a session). */
  ending: EndingSchema.optional(),
  /** The session's closing words, verbatim (redacted); null when the session had none. */
  closing: ClosingSchema.nullable().optional(),
  /** Open questions with their sources: the closing words', unanswered question-tool calls, questions_for_human. */
  questions: z.array(QuestionSchema).optional(),
  /** The session ended on its questions (no human message after them): the next session asks them first. */
  waiting_for_answers: z.boolean().optional(),
  /** The human's words kept whole: first and latest request, rejection reasons, answers. */
  human_words: z.array(HumanWordsSchema).optional(),
  /** Where each kind of fact came from, e.g. `{ "commands": "claude:<session id>", "next_action": "task list" }`. */
  sources: z.record(z.string(), z.string()).default({}),
  /** What the person wants the next session to achieve, when they said so at generation. */
  next_goal: z.string().nullable().default(null),
  /**
   * Who gave `next_goal`: absent for the person (`--goal`); `mcp-client` when an MCP client passed it to
   * `handoff_generate` — text from elsewhere, handed on as data to confirm, never as an instruction.
   */
  next_goal_from: z.literal('mcp-client').optional(),
  verdict_pointer: z.object({
    verification: z.object({ file: z.string(), passed: z.boolean(), task_id: z.string().nullable() }).nullable(),
    review: z
      .object({ file: z.string(), verdict: z.string(), total: z.number(), task_id: z.string().nullable() })
      .nullable(),
  }),

  decisions: z.array(DecisionSchema),
  assumptions_to_validate: z.array(z.object({ text: z.string(), verified: z.literal(false) })),
  questions_for_human: z.array(z.string()),
  next_session_prereqs: z.array(z.string()),
  clean_state: z.object({ clean: z.boolean(), findings: z.array(CleanFindingSchema) }).nullable(),
  context: ContextAtGenerationSchema.nullable(),
  /** The input artifacts and their content hashes, to tell when an input changed after the packet. */
  inputs: z.array(z.object({ file: z.string(), sha256: z.string() })),
});

export type Packet = z.infer<typeof PacketSchema>;
export type Risk = z.infer<typeof RiskSchema>;
export type FailedAttempt = z.infer<typeof FailedAttemptSchema>;
export type CommandRun = z.infer<typeof CommandRunSchema>;
export type ChangedFile = z.infer<typeof ChangedFileSchema>;
export type PacketQuestion = z.infer<typeof QuestionSchema>;
export type HumanWords = z.infer<typeof HumanWordsSchema>;
export type NextActionKind = (typeof NEXT_ACTION_KINDS)[number];
export type Ending = z.infer<typeof EndingSchema>;

/** Ordering of severities, most severe first. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}
