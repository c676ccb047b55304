import * as path from 'node:path';
import { isTestRun } from '../artifacts/commands';
import { FeedbackTrim } from '../artifacts/feedback';
import type { AgentState, Feature, FeedbackRecord } from '../artifacts/schemas';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { resolveInside } from '../safePath';
import type { SessionCommand, SessionFacts } from './model';
import { sessionDisplayName, sessionSource, sessionSourceLabel } from './model';

export interface MergeOptions {
  /** The workspace folder: edited files outside it are not the workbench's. */
  workspaceDir: string;
  feedbackK: number;
  maxCommands: number;
}

/** The kinds of fact the packet records a source for. */
export type FactKind = 'commands' | 'task_list' | 'changed_files' | 'decisions' | 'session' | 'branch' | 'task';

const STATUS: Record<string, Feature['status']> = { pending: 'todo', in_progress: 'in_progress', completed: 'done' };

/** A session command as a feedback record (DESIGN §2 shape), so every rule reads both alike. */
export function recordOf(c: SessionCommand): FeedbackRecord {
  return {
    command: c.command,
    exit_code: c.exit_code,
    agent_note: c.agent_note,
    started_at: c.started_at,
    duration_ms: c.duration_ms,
    stdout_tail: c.stdout_tail,
    stderr_tail: c.stderr_tail,
    error: c.error,
    // Kept for the rules that tell a failure from a search with no match or a run stopped on purpose.
    ...(c.interpretation ? { interpretation: c.interpretation } : {}),
    ...(c.unfinished ? { unfinished: c.unfinished } : {}),
  };
}

/** The commands after the last human message, in call order (rejected ones included). */
function finalCommands(facts: SessionFacts): SessionCommand[] {
  const from = facts.latestRequest?.line ?? 0;
  return [...facts.commands, ...facts.rejected]
    .filter((c) => (typeof c.line === 'number' ? c.line : 0) > from)
    .sort((a, b) => a.ordinal - b.ordinal)
    .slice(-200);
}

/** "3 lines of unknown types skipped (agent-mode, …)": what `sources.skipped_lines` says. */
export function skippedLinesNote(u: { count: number; types: string[] }): string {
  const names = u.types.slice(0, 5).join(', ');
  return `${u.count} line${u.count === 1 ? '' : 's'} of unknown type${u.types.length === 1 ? '' : 's'} skipped${names ? ` (${names}${u.types.length > 5 ? ', …' : ''})` : ''}`;
}

/** Files edited after each command and before the next (command ordinal → workbench-relative paths). */
function editsAfter(facts: SessionFacts, rel: (abs: string) => string | null): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const e of facts.edits ?? []) {
    const p = rel(e.file);
    if (!p) continue;
    const after = e.beforeCommand - 1;
    if (after < 0) continue;
    const list = (out[after] ??= []);
    if (!list.includes(p)) list.push(p);
  }
  return out;
}

/**
 * The workbench a packet is built from (DESIGN §2b): the files that exist, filled in from the agent
 * session kind by kind. An explicit file wins over the derived fact of the same kind, and a kind is
 * never a mix of both: a feedback log means no session commands; a board means no task list;
 * `agent_state.json` fields (touched files, decisions, session id, branch) win where they are set.
 * `origins` says where each kind came from. Pure: no I/O.
 */
export function mergeSession(snapshot: WorkbenchSnapshot, facts: SessionFacts | null | undefined, opts: MergeOptions): WorkbenchSnapshot {
  const origins: Record<string, string> = {};
  const state = snapshot.agentState;
  // A file that exists but says nothing (an empty log, a board without features) holds no facts of its kind.
  const fileCommands = !!snapshot.feedback && snapshot.feedback.total > 0;
  const fileBoard = !!snapshot.featureList && snapshot.featureList.features.length > 0;
  if (fileCommands) origins['commands'] = 'feedback_record.jsonl';
  if (fileBoard) origins['task_list'] = snapshot.featureList?.file ?? 'feature_list.json';
  if (state?.touched_files.length) origins['changed_files'] = 'agent_state.json';
  if (state?.decisions.length) origins['decisions'] = 'agent_state.json';
  if (state?.session_id) origins['session'] = 'agent_state.json';
  if (state?.branch) origins['branch'] = 'agent_state.json';
  if (!facts) return { ...snapshot, origins, session: null };

  const relative = (f: string): string | null => (resolveInside(opts.workspaceDir, f) ? path.relative(snapshot.dir, f).split(path.sep).join('/') : null);
  const label = sessionSourceLabel(facts);
  const displayName = sessionDisplayName(facts);
  const out: WorkbenchSnapshot = { ...snapshot };

  if (!fileCommands && facts.commandCount > 0) {
    const trim = new FeedbackTrim({ feedbackK: opts.feedbackK, maxCommands: opts.maxCommands });
    for (const c of facts.commands) {
      if (c.rejected) continue;
      const line = typeof c.line === 'number' ? c.line : null;
      trim.add({ index: c.ordinal, record: recordOf(c), source: sessionSource(facts, line, c.tool ? `\`${c.tool}\` call` : 'command') });
    }
    const feedback = trim.result();
    // Commands compacted away while reading still count.
    const total = Math.max(feedback.total, facts.commandCount - facts.rejectedCount);
    const editedAfter = editsAfter(facts, relative);
    out.feedback = { ...feedback, total, omitted: total - feedback.kept.length, derivedFrom: displayName, ...(Object.keys(editedAfter).length ? { editedAfter } : {}) };
    origins['commands'] = label;
  }

  if (!fileBoard && facts.todos?.length) {
    const listLine = facts.todosSource?.line ?? null;
    const features = facts.todos.map((t, i): Feature => {
      const line = t.line ?? listLine;
      return { id: String(i + 1), status: STATUS[t.status] ?? 'todo', goal: t.content, since: t.since, ...(typeof line === 'number' ? { line } : {}) };
    });
    out.featureList = { active: null, features, file: 'the task list', derivedFrom: displayName };
    origins['task_list'] = label;
  }

  const touched = facts.filesTouched.map(relative).filter((f): f is string => !!f);
  const decisions: { decision: string; status: string; reason?: string; line?: number; file?: string; what?: string }[] = facts.rejected.map((c) => ({
    decision: `declined by the user: \`${c.command}\``,
    status: 'rejected',
    // The reason typed with the rejection is the user's instruction: kept whole.
    ...(c.rejection_reason?.trim()
      ? { reason: `the user's reason: "${c.rejection_reason.trim()}"` }
      : c.user_reply
        ? { reason: `the user then said: "${c.user_reply}"` }
        : {}),
    ...(typeof c.line === 'number' ? { line: c.line, file: facts.file } : {}),
  }));
  for (const e of facts.rejectedEdits ?? []) {
    const target = path.isAbsolute(e.target) ? (relative(e.target) ?? e.target) : e.target;
    decisions.push({
      decision: `declined by the user: ${e.target.endsWith(' call') ? `a ${target}` : `an edit of \`${target}\``}`,
      status: 'rejected',
      ...(e.reason?.trim() ? { reason: `the user's reason: "${e.reason.trim()}"` } : {}),
      ...(typeof e.line === 'number' ? { line: e.line, file: facts.file } : {}),
    });
  }
  // A request the user interrupted and rolled back (Codex thread_rolled_back) is an approach dropped on purpose.
  for (const r of facts.rolledBackRequests ?? []) {
    decisions.push({
      decision: `the user interrupted and rolled back this request: "${r.text}"`,
      status: 'rejected',
      ...(r.line > 0 ? { line: r.line } : {}),
      file: facts.file,
      what: 'rolled-back request',
    });
  }
  decisions.sort((a, b) => (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER));
  const base: AgentState = state ?? {
    touched_files: [],
    assumptions: [],
    blockers: [],
    decisions: [],
    open_risks: [],
    questions_for_human: [],
  };
  const merged: AgentState = { ...base };
  if (!base.touched_files.length && touched.length) {
    merged.touched_files = touched;
    origins['changed_files'] = label;
  }
  if (!base.decisions.length && decisions.length) {
    merged.decisions = decisions;
    origins['decisions'] = label;
  }
  if (!base.session_id) {
    merged.session_id = facts.sessionId;
    origins['session'] = label;
  }
  // Claude Code writes the branch on every line; Codex only the one the session started on, which
  // would raise a false alarm in the branch check once the agent made a branch of its own.
  if (!base.branch && facts.branch && facts.agent === 'claude-code') {
    merged.branch = facts.branch;
    origins['branch'] = label;
  }
  if (!base.summary && !base.active_task_id && (facts.firstUserRequest || facts.goal)) origins['task'] = label;
  // Lines of types the reader does not know were skipped: said where the sources are, not as errors.
  if (facts.unknownLines?.count) origins['skipped_lines'] = skippedLinesNote(facts.unknownLines);
  out.agentState = merged;
  out.origins = origins;
  out.session = {
    agent: facts.agent,
    sessionId: facts.sessionId,
    label,
    displayName,
    file: facts.file,
    firstUserRequest: facts.firstUserRequest,
    latestUserRequest: facts.latestUserRequest,
    lastAssistantMessage: facts.lastAssistantMessage,
    rejectedCount: facts.rejectedCount,
    ...(facts.closing !== undefined ? { closing: facts.closing } : {}),
    ...(facts.endedOnClosing !== undefined ? { endedOnClosing: facts.endedOnClosing } : {}),
    ...(facts.firstRequest !== undefined ? { firstRequest: facts.firstRequest } : {}),
    ...(facts.latestRequest !== undefined ? { latestRequest: facts.latestRequest } : {}),
    ...(facts.openQuestions ? { openQuestions: facts.openQuestions } : {}),
    ...(facts.answers ? { answers: facts.answers } : {}),
    ...(facts.unanswered ? { unanswered: facts.unanswered } : {}),
    ...(facts.recap !== undefined ? { recap: facts.recap } : {}),
    rejectionReasons: facts.rejected
      .filter((c) => !!c.rejection_reason?.trim())
      .map((c) => ({ command: c.command, reason: (c.rejection_reason ?? '').trim(), line: typeof c.line === 'number' ? c.line : null }))
      .concat((facts.rejectedEdits ?? []).filter((e) => !!e.reason?.trim()).map((e) => ({ command: e.target.endsWith(' call') ? e.target : `edit of ${relative(e.target) ?? e.target}`, reason: (e.reason ?? '').trim(), line: e.line })))
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
    lastTestCommand: [...facts.commands].reverse().find((c) => !c.rejected && isTestRun(recordOf(c)))?.command ?? null,
    hasTaskList: facts.todos !== null,
    ...(facts.humanMessages ? { humanMessages: facts.humanMessages } : {}),
    ...(facts.skills?.length ? { skills: facts.skills } : {}),
    ...(facts.approvedPlan ? { approvedPlan: facts.approvedPlan } : {}),
    finalCommands: finalCommands(facts),
    ...(facts.exchange ? { exchange: facts.exchange } : {}),
    ...(facts.goal ? { goal: facts.goal } : {}),
  };
  if (facts.badLines.length || facts.notRead?.length) {
    out.diagnostics = [
      ...snapshot.diagnostics,
      ...facts.badLines.map((line) => ({ file: facts.file, line, message: 'not a JSON line; skipped' })),
      ...(facts.notRead ?? []).map((n) => ({ file: n.file, message: n.message })),
    ];
  }
  return out;
}
