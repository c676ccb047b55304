import { agentsRead } from '../session/model';
import { mapSeverity } from './severity';
import { isTestCommand, looseKey } from '../artifacts/commands';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { Source } from '../source';
import type { CommandRun, Ending, FailedAttempt, NextActionKind } from './schema';
import { oneLine, readEnding } from './ending';
import { namedCommand, stepForFailure } from './failureStep';
import { closingOf, collectOpenQuestions, labelledNext, reportsDone, waitingForAnswers } from './judgement';
import { redact } from '../redact';

export type NextAction =
  /** `from` names where the step came from, for the packet's `sources.next_action`. */
  | { ok: true; text: string; source: 'agent_state' | 'derived'; from: string }
  | { ok: false; reason: string };

/** The next action with the step of the precedence that gave it and that step's source (file and line). */
export type NextActionWithOrigin =
  | { ok: true; text: string; source: 'agent_state' | 'derived'; from: string; origin: { kind: NextActionKind; source: Source | null }; ending?: Ending }
  | { ok: false; reason: string };

/** `chooseNextAction` without the origin. */
export function decideNextAction(snapshot: WorkbenchSnapshot, failed: FailedAttempt[], commands: CommandRun[] = []): NextAction {
  const r = chooseNextAction(snapshot, failed, commands);
  if (!r.ok) return r;
  return { ok: true, text: r.text, source: r.source, from: r.from };
}

// Redacted before any cut: a cut never leaves part of a secret.
const firstLine = (text: string): string => {
  const s: string = redact(text);
  return (s.split('\n').map((l) => l.trim()).find(Boolean) ?? s).slice(0, 160);
};
/** One line of the session's words, at most `n` characters, cut at a space. */

/** Test, build, lint and type-check commands: their failures come first among the open ones. */
const CHECK = /(^|[ /])(tsc|eslint|ruff|mypy|pyright|flake8|pylint|clippy|biome|prettier --check|golangci-lint|type-?check|lint|build|compile|make|cargo (build|check)|go (build|vet)|gradle|mvn)( |:|$)/;
export function isCheckCommand(command: string): boolean {
  return isTestCommand(command) || CHECK.test(command);
}

/**
 * The failures still open, newest first: not resolved by a later passing run (`resolved_by`), and not
 * told again by a later run of the same command (flags aside). Test, build, lint and type-check
 * failures come before the others.
 */
export function openFailures(failed: readonly FailedAttempt[], commands: readonly CommandRun[] = [], checksFirst = true): FailedAttempt[] {
  const ranLater = (f: FailedAttempt): boolean => commands.some((c) => c.index > f.index && looseKey(c.command) === looseKey(f.command));
  const open = [...failed].reverse().filter((f) => f.resolved_by === undefined && !ranLater(f));
  if (!checksFirst) return open;
  return [...open.filter((f) => isCheckCommand(f.command)), ...open.filter((f) => !isCheckCommand(f.command))];
}

/**
 * The one concrete next step, in this order (DESIGN §2c), each with its source:
 * the agent's own `next_action` → a labelled next step in the closing words ("Next:", "Next step(s):",
 * "Next action:", "Remaining:") or the agent's recap ("Next action: …") → a human request that never got
 * a real answer → the task in progress (made concrete with an open failure bearing on it) → an open
 * failure → a blocking verification finding → when the closing words report the work done and nothing
 * is open: verify and ask what comes next → the latest request. With nothing to derive a step from, a
 * refusal whose reason tells the user what to record — a packet without a next step is just a report.
 */
export function chooseNextAction(snapshot: WorkbenchSnapshot, failed: FailedAttempt[], commands: CommandRun[] = []): NextActionWithOrigin {
  const recorded = snapshot.agentState?.next_action?.trim();
  if (recorded) {
    return { ok: true, text: recorded, source: 'agent_state', from: 'agent_state.json', origin: { kind: 'agent_state', source: { file: 'agent_state.json', line: null, what: 'next_action' } } };
  }
  const session = snapshot.session;
  const derived = (text: string, from: string, kind: NextActionKind, source: Source | null): NextActionWithOrigin => ({ ok: true, text, source: 'derived', from, origin: { kind, source } });
  const at = (line: number | null | undefined, what: string): Source | null => (session ? { file: session.file, line: line ?? null, what } : null);

  // With a session, how it ended decides (the ending model); the workbench's rules follow only when
  // the ending leaves the step open (an open failure, a task in progress, a verification finding).
  const ending = readEnding(snapshot, failed, commands);
  if (ending?.next) {
    const r = derived(ending.next.text, ending.next.from, ending.next.kind, ending.next.source);
    return r.ok ? { ...r, ending: ending.ending } : r;
  }
  const withEnding = (r: NextActionWithOrigin): NextActionWithOrigin => (r.ok && ending ? { ...r, ending: ending.ending } : r);
  if (ending) return withEnding(afterEnding(snapshot, failed, commands, { open: ending.openFailures, bearing: ending.openFailures, latestText: ending.request?.text ?? session?.latestUserRequest ?? null, lastWords: true }, derived, at));

  const closing = closingOf(snapshot);
  // "Next: nothing, all done" names no step.
  const real = (s: string | null): string | null => (s && !/^(none|nothing|n\/a|no further|no next)\b/i.test(s.trim()) ? s : null);
  const closingNext = closing ? real(labelledNext(closing.text)) : null;
  if (closingNext) return derived(oneLine(closingNext, 600), 'closing words', 'closing-next', at(closing?.line, 'closing message'));
  const recapNext = session?.recap ? real(labelledNext(session.recap.text)) : null;
  if (recapNext) return derived(oneLine(recapNext, 600), 'recap', 'recap', at(session?.recap?.line, 'recap'));

  const unanswered = session?.unanswered ?? [];
  const request = unanswered.at(-1);
  if (request) {
    const why = request.why === 'api-error' ? 'the assistant answered only with API errors' : request.why === 'interrupted' ? 'it was interrupted' : 'nothing was done with it';
    const more = unanswered.length > 1 ? ` (${unanswered.length} requests got no real answer; this is the newest)` : '';
    return derived(`Answer the request that never got a real answer (${why})${more}: "${oneLine(request.text, 400)}"`, 'unanswered request', 'unanswered-request', at(request.line, 'request'));
  }

  const latestText = session?.latestRequest?.text ?? session?.latestUserRequest ?? null;
  return afterEnding(snapshot, failed, commands, { open: openFailures(failed, commands), bearing: openFailures(failed, commands, false), latestText, lastWords: false }, derived, at);
}

type Derive = (text: string, from: string, kind: NextActionKind, source: Source | null) => NextActionWithOrigin;
type At = (line: number | null | undefined, what: string) => Source | null;

/**
 * The workbench's rules, after the session's ending left the step open (or with no session): the task
 * in progress (made concrete with an open failure bearing on it) → an open failure → a blocking
 * verification finding → questions the session ended on → a reported-done closing → the latest request.
 */
function afterEnding(
  snapshot: WorkbenchSnapshot,
  failed: FailedAttempt[],
  commands: CommandRun[],
  state: { open: FailedAttempt[]; bearing: FailedAttempt[]; latestText: string | null; lastWords: boolean },
  derived: Derive,
  at: At,
): NextActionWithOrigin {
  const { open, latestText } = state;
  const session = snapshot.session;
  const closing = closingOf(snapshot);
  const board = snapshot.featureList;
  const task = board?.derivedFrom ? board.features.find((f) => f.status === 'in_progress' && f.goal?.trim()) : undefined;
  if (task?.goal) {
    // A failure bears on the task when it happened while the task was in progress.
    const since = typeof task['since'] === 'number' ? task['since'] : Number.POSITIVE_INFINITY;
    // The newest open failure since the task started, whatever kind: it is what stopped the task.
    const bearing = state.bearing.find((f) => f.index >= since);
    const goal = task.goal.trim().replace(/[.\s]+$/, '');
    const src = typeof task['line'] === 'number' ? at(task['line'], 'task list') : at(null, 'task list');
    if (!bearing) return derived(goal, 'task list', 'task', src);
    const first = bearing.outcome === 'failed'
      ? `first make ${namedCommand(bearing)} pass (it failed with exit ${bearing.exit_code}: ${firstLine(bearing.excerpt)})`
      : `first find out what ${namedCommand(bearing)} changed before it stopped (it ${bearing.outcome === 'timeout' ? 'timed out' : 'did not complete'}: ${firstLine(bearing.excerpt)}); do not simply run it again`;
    return derived(`${goal}: ${first}.`, 'task list', 'task', src);
  }

  const newest = open[0];
  if (newest) return derived(stepForFailure(newest), 'newest failure', 'failure', newest.source ?? null);

  const v = snapshot.verification;
  // The same rule that makes a finding a `block` risk, so the step and the risks never disagree.
  const blocking = v?.findings.find((f) => mapSeverity(f.severity) === 'block');
  if (v && !v.passed && blocking) {
    return derived(`Resolve the blocking verification finding ${blocking.code}: ${firstLine(blocking.detail)}.`, v.file, 'verification', { file: v.file, line: null });
  }

  // The session ended on its questions and names no step of its own: the answers come first.
  const questions = collectOpenQuestions(snapshot).filter((q) => q.from !== 'agent_state');
  if (questions.length && waitingForAnswers(snapshot, questions)) {
    const then = latestText?.trim() ? `, then continue: ${firstLine(latestText)}` : ', then go on with the task';
    const first = questions[0]?.source ?? at(closing?.line, 'closing message');
    return derived(`Get the answers to the ${questions.length === 1 ? 'question' : `${questions.length} questions`} the previous session ended on (listed below)${then}`, 'questions', 'questions', first);
  }

  if (closing && reportsDone(closing.text)) {
    const test = session?.lastTestCommand ?? snapshot.feedback?.lastTestRun?.record.command ?? null;
    const testText = typeof test === 'string' ? test : Array.isArray(test) ? test.join(' ') : null;
    const verify = testText ? `Verify with \`${oneLine(testText, 160).replace(/`/g, "'")}\`` : 'Verify the result';
    return derived(`The previous session reported the task done: "${oneLine(closing.text, 300)}". ${verify} and ask what comes next.`, 'closing words', 'done', at(closing.line, 'closing message'));
  }

  const latest = latestText;
  if (latest?.trim()) {
    // Where the closing words leave it, when the agent answered: the next session starts from there.
    const stand = state.lastWords && closing && session?.endedOnClosing !== false ? ` — the previous session's last words: "${oneLine(closing.text, 240).replace(/"/g, "'")}"` : '';
    return derived(`continue: ${firstLine(latest)}${stand}`, 'latest request', 'latest-request', at(session?.latestRequest?.line ?? null, 'latest request'));
  }

  return {
    ok: false,
    reason:
      'no next action: record one concrete step as "next_action" in agent_state.json ' +
      (snapshot.session
        ? `(nothing to derive one from: the ${snapshot.session.displayName} has no task in progress, no failing command and no request)`
        : `(nothing to derive one from: no failing command in feedback_record.jsonl, no blocking verification finding and no ${agentsRead()} session for this folder)`),
  };
}
