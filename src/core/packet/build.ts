import { createHash } from 'node:crypto';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { topicOf } from '../artifacts/topic';
import type { CleanFinding } from '../clean/types';
import type { ContextResult } from '../context/types';
import { stripControlLine } from '../controlChars';
import type { HandoffOptions } from '../options';
import { redact, redactDeep, redactedJson, type Redacted } from '../redact';
import { commandsRun, failedAttempts, withMayHaveChanged } from './commands';
import { chooseNextAction } from './nextAction';
import { collectHumanWords, collectOpenQuestions, packetClosing, waitingForAnswers } from './judgement';
import { collectAssumptions, collectDecisions, collectQuestions } from './notes';
import { collectReadFirst } from './readFirst';
import { collectRisks } from './risks';
import type { ChangedFile, Packet } from './schema';
import { PacketSchema } from './schema';
import { composeSummary } from './summary';

import type { GitInput } from './gitInput';
export type { GitInput } from './gitInput';

export interface PacketInput {
  snapshot: WorkbenchSnapshot;
  options: HandoffOptions;
  /** The folder name the packet will be written to. */
  packetId: string;
  /** Overrides the session id derived from the artifacts. */
  sessionId?: string;
  git: GitInput | null;
  clean: { clean: boolean; findings: CleanFinding[] } | null;
  /** The user accepted a dirty workbench (clean findings become `block` risks). */
  allowDirty: boolean;
  context: ContextResult | null;
  /** What the person wants the next session to achieve (blank: none). */
  nextGoal?: string | null;
  /** The goal came from an MCP client (`handoff_generate`), not the person: data, never an instruction. */
  nextGoalFromClient?: boolean;
}

export type BuildResult = { ok: true; packet: Packet } | { ok: false; reason: string };

const EPOCH = '1970-01-01T00:00:00.000Z';

/** The longest goal a packet keeps: one focused sentence or two, not a second summary. */
export const MAX_GOAL_CHARS = 500;

/** A goal as one trimmed line, cut to MAX_GOAL_CHARS; null when blank. */
export function goalOf(goal: string | null | undefined): string | null {
  const one = redact(goal ?? '').replace(/\s+/g, ' ').trim();
  if (!one) return null;
  return one.length > MAX_GOAL_CHARS ? `${one.slice(0, MAX_GOAL_CHARS - 1)}…` : one;
}

/** The session id: the agent's, else the context reading's, else a stable hash of the inputs. */
export function deriveSessionId(input: Pick<PacketInput, 'snapshot' | 'sessionId' | 'context'>): string {
  // Redacted: the id becomes the packet's folder name, where no mask could reach it later.
  if (input.sessionId?.trim()) return redact(input.sessionId.trim());
  const own = input.snapshot.agentState?.session_id?.trim();
  if (own) return redact(own);
  const ctx = input.context?.sessionId?.trim();
  if (ctx) return redact(ctx);
  const h = createHash('sha256');
  for (const s of input.snapshot.sources) h.update(`${s.file}\0${s.sha256}\n`);
  return `session-${h.digest('hex').slice(0, 12)}`;
}

/** Folder names come from agent-written ids: keep them to one safe path segment. */
export function safeSegment(id: string): string {
  const s = id.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '_').slice(0, 100);
  return s || 'session';
}

/** Newest `started_at` among the kept records, else the HEAD commit time, else a fixed epoch. */
function generatedAt(commands: Packet['commands_run'], git: GitInput | null): string {
  const times = commands.map((c) => c.started_at).filter((t): t is string => !!t && !Number.isNaN(Date.parse(t)));
  if (times.length) return new Date(Math.max(...times.map((t) => Date.parse(t)))).toISOString();
  return git?.headTime && !Number.isNaN(Date.parse(git.headTime)) ? new Date(git.headTime).toISOString() : EPOCH;
}

function contextField(ctx: ContextResult | null): Packet['context'] {
  if (!ctx) return null;
  if (!ctx.known) return { known: false, reason: ctx.reason };
  const { source, sessionId, model, usedTokens, windowTokens, percent, compactAtPercent, at } = ctx;
  return { known: true, source, sessionId, ...(model ? { model } : {}), usedTokens, windowTokens, percent, compactAtPercent, at };
}

/** Where each kind of fact came from; git always contributes the changed files it sees. */
function sourcesOf(snapshot: WorkbenchSnapshot, git: GitInput | null, nextFrom: string): Record<string, string> {
  const sources: Record<string, string> = { ...(snapshot.origins ?? {}), next_action: nextFrom };
  if (git) sources['changed_files'] = sources['changed_files'] ? `git + ${sources['changed_files']}` : 'git';
  return sources;
}

/**
 * Builds the handoff packet (DESIGN §3) from plain inputs. Pure and deterministic: no clock, no I/O,
 * stable ordering; every string is redacted. Refuses (as a value) when there is no next action.
 */
export function buildPacket(input: PacketInput): BuildResult {
  const { snapshot, git } = input;
  const kept = snapshot.feedback?.kept ?? [];
  const agent = snapshot.agentState;
  // Paths are one line of plain text: a NUL, an escape sequence or a line break in a file name (or in
  // what an agent wrote as one) must not reach the markdown, the prompt or a terminal.
  const changed: ChangedFile[] = git
    ? git.changedFiles.map((c) => ({ ...c, path: stripControlLine(c.path), ...(c.from ? { from: stripControlLine(c.from) } : {}) }))
    : [...new Set((agent?.touched_files ?? []).map(stripControlLine).filter((p) => p !== ''))].map((p) => ({ path: p, kind: 'touched' as const }));
  const commands = commandsRun(kept);
  const failed = withMayHaveChanged(failedAttempts(kept, snapshot.feedback?.resolvedBy), changed, snapshot.feedback?.editedAfter, git?.knownFiles ?? []);
  const next = chooseNextAction(snapshot, failed, commands);
  if (!next.ok) return { ok: false, reason: next.reason };

  const branch = git?.branch ?? agent?.branch ?? null;
  const prereqs = collectReadFirst(snapshot, changed, failed, { tempGlobs: input.options.tempGlobs, knownFiles: git?.knownFiles ?? null }, next.text);
  // Say why there is no last known good commit, so the next session does not assume HEAD is safe.
  const questions = collectOpenQuestions(snapshot);
  const lkgNote = git && !git.lastKnownGoodCommit && git.lkgUnknownReason ? ` Last known good commit unknown: ${git.lkgUnknownReason}.` : '';

  const packet: Packet = {
    schema_version: 1,
    packet_id: input.packetId,
    session_id: deriveSessionId(input),
    topic: topicOf(snapshot),
    repo: git?.repo ?? null,
    ...(git?.remote ? { remote: git.remote } : {}),
    branch,
    head_commit: git?.headCommit ?? null,
    last_known_good_commit: git?.lastKnownGoodCommit ?? agent?.last_known_good_commit ?? null,
    status: 'active',
    superseded_by: null,
    generated_at: generatedAt(commands, git),
    summary: `${composeSummary(snapshot, failed, branch)}${lkgNote}`,
    changed_files: changed,
    commands_run: commands,
    commands_omitted: snapshot.feedback?.omitted ?? 0,
    failed_attempts: failed,
    open_risks: collectRisks(snapshot, input.clean, git, git?.secretOrigins),
    next_action: next.text,
    next_action_source: next.source,
    next_action_origin: next.origin,
    ...(next.ending ? { ending: next.ending } : {}),
    closing: packetClosing(snapshot),
    questions,
    waiting_for_answers: waitingForAnswers(snapshot, questions),
    human_words: collectHumanWords(snapshot),
    sources: sourcesOf(snapshot, git, next.from),
    next_goal: goalOf(input.nextGoal),
    ...(input.nextGoalFromClient && goalOf(input.nextGoal) ? { next_goal_from: 'mcp-client' as const } : {}),
    verdict_pointer: {
      verification: snapshot.verification
        ? { file: snapshot.verification.file, passed: snapshot.verification.passed, task_id: snapshot.verification.task_id ?? null }
        : null,
      review: snapshot.review
        ? { file: snapshot.review.file, verdict: snapshot.review.verdict, total: snapshot.review.total, task_id: snapshot.review.task_id ?? null }
        : null,
    },
    decisions: collectDecisions(snapshot),
    assumptions_to_validate: collectAssumptions(snapshot),
    questions_for_human: collectQuestions(snapshot),
    next_session_prereqs: prereqs,
    clean_state: input.clean ? { clean: input.clean.clean, findings: input.clean.findings.map((f) => ({ ...f })) } : null,
    context: contextField(input.context),
    inputs: [...snapshot.sources].sort((a, b) => a.file.localeCompare(b.file)).map((s) => ({ file: s.file, sha256: s.sha256 })),
  };
  // Redact last, over the whole object, so no field can slip through; then fix the key order.
  return { ok: true, packet: PacketSchema.parse(redactDeep(packet)) };
}

/** The packet as written to `handoff.json`: schema key order, 2-space indent, trailing newline. */
export function serializePacket(packet: Packet): Redacted {
  return redactedJson(PacketSchema.parse(packet), 2, '\n');
}
