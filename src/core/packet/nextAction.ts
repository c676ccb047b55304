import { mapSeverity } from './severity';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CommandRun, FailedAttempt } from './schema';

export type NextAction =
  | { ok: true; text: string; source: 'agent_state' | 'derived' }
  | { ok: false; reason: string };

const firstLine = (s: string): string => (s.split('\n').map((l) => l.trim()).find(Boolean) ?? s).slice(0, 160);

/**
 * The one concrete next step: the agent's own `next_action`, else derived from the newest failing
 * command (named with its failure) or a blocking verification finding. With nothing concrete to say,
 * a refusal whose reason tells the user what to record — a packet without a next step is just a report.
 */
export function decideNextAction(snapshot: WorkbenchSnapshot, failed: FailedAttempt[], commands: CommandRun[] = []): NextAction {
  const recorded = snapshot.agentState?.next_action?.trim();
  if (recorded) return { ok: true, text: recorded, source: 'agent_state' };

  // A failure that a later run of the same command fixed is history, not the next step.
  const fixedLater = (f: FailedAttempt): boolean => commands.some((c) => c.index > f.index && c.command === f.command && c.outcome === 'ok');
  const newest = [...failed].reverse().find((f) => !fixedLater(f));
  if (newest) {
    const why =
      newest.outcome === 'failed'
        ? `it failed with exit ${newest.exit_code}: ${firstLine(newest.excerpt)}`
        : `it ${newest.outcome === 'timeout' ? 'timed out' : 'did not complete'}: ${firstLine(newest.excerpt)}`;
    const step =
      newest.outcome === 'failed'
        ? `Fix the cause and re-run \`${newest.command}\` (${why}).`
        : `Check whether \`${newest.command}\` partly applied, then re-run it (${why}).`;
    return { ok: true, text: step, source: 'derived' };
  }

  const v = snapshot.verification;
  // The same rule that makes a finding a `block` risk, so the step and the risks never disagree.
  const blocking = v?.findings.find((f) => mapSeverity(f.severity) === 'block');
  if (v && !v.passed && blocking) {
    return { ok: true, text: `Resolve the blocking verification finding ${blocking.code}: ${firstLine(blocking.detail)}.`, source: 'derived' };
  }

  return {
    ok: false,
    reason:
      'no next action: record one concrete step as "next_action" in agent_state.json ' +
      '(nothing to derive one from: no failing command in feedback_record.jsonl and no blocking verification finding)',
  };
}
