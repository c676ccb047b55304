import { mapSeverity } from './severity';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CommandRun, FailedAttempt } from './schema';
import { namedCommand, stepForFailure } from './failureStep';

export type NextAction =
  /** `from` names where the step came from, for the packet's `sources.next_action`. */
  | { ok: true; text: string; source: 'agent_state' | 'derived'; from: string }
  | { ok: false; reason: string };

const firstLine = (s: string): string => (s.split('\n').map((l) => l.trim()).find(Boolean) ?? s).slice(0, 160);

/**
 * The one concrete next step: the agent's own `next_action`; else the in-progress task of the
 * agent's task list, made concrete with the newest failure that bears on it; else derived from the
 * newest failing command (named with its failure) or a blocking verification finding; else the
 * user's latest request in the session. With nothing concrete to say, a refusal whose reason tells
 * the user what to record — a packet without a next step is just a report.
 */
export function decideNextAction(snapshot: WorkbenchSnapshot, failed: FailedAttempt[], commands: CommandRun[] = []): NextAction {
  const recorded = snapshot.agentState?.next_action?.trim();
  if (recorded) return { ok: true, text: recorded, source: 'agent_state', from: 'agent_state.json' };

  // The newest run of a command speaks for it: a failure that a later run of the same command fixed is
  // history, not the next step, and one that a later run repeated is told by that newer failure.
  const ranLater = (f: FailedAttempt): boolean => commands.some((c) => c.index > f.index && c.command === f.command);
  const open = [...failed].reverse().filter((f) => !ranLater(f));

  const board = snapshot.featureList;
  const task = board?.derivedFrom ? board.features.find((f) => f.status === 'in_progress' && f.goal?.trim()) : undefined;
  if (task?.goal) {
    // A failure bears on the task when it happened while the task was in progress.
    const since = typeof task['since'] === 'number' ? task['since'] : Number.POSITIVE_INFINITY;
    const bearing = open.find((f) => f.index >= since);
    const goal = task.goal.trim().replace(/[.\s]+$/, '');
    if (!bearing) return { ok: true, text: goal, source: 'derived', from: 'task list' };
    const first = bearing.outcome === 'failed'
      ? `first make ${namedCommand(bearing)} pass (it failed with exit ${bearing.exit_code}: ${firstLine(bearing.excerpt)})`
      : `first find out what ${namedCommand(bearing)} changed before it stopped (it ${bearing.outcome === 'timeout' ? 'timed out' : 'did not complete'}: ${firstLine(bearing.excerpt)}); do not simply run it again`;
    return { ok: true, text: `${goal}: ${first}.`, source: 'derived', from: 'task list' };
  }

  const newest = open[0];
  if (newest) return { ok: true, text: stepForFailure(newest), source: 'derived', from: 'newest failure' };

  const v = snapshot.verification;
  // The same rule that makes a finding a `block` risk, so the step and the risks never disagree.
  const blocking = v?.findings.find((f) => mapSeverity(f.severity) === 'block');
  if (v && !v.passed && blocking) {
    return { ok: true, text: `Resolve the blocking verification finding ${blocking.code}: ${firstLine(blocking.detail)}.`, source: 'derived', from: v.file };
  }

  const request = snapshot.session?.latestUserRequest?.trim();
  if (request) return { ok: true, text: `continue: ${firstLine(request)}`, source: 'derived', from: 'latest request' };

  return {
    ok: false,
    reason:
      'no next action: record one concrete step as "next_action" in agent_state.json ' +
      (snapshot.session
        ? `(nothing to derive one from: the ${snapshot.session.displayName} has no task in progress, no failing command and no request)`
        : '(nothing to derive one from: no failing command in feedback_record.jsonl, no blocking verification finding and no Claude Code or Codex session for this folder)'),
  };
}
