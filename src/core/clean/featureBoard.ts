import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { Feature } from '../artifacts/schemas';
import type { CheckResult, CleanFinding } from './types';
import { normalizeCommand } from '../artifacts/commands';

/**
 * Feature board: at most one feature in progress, `active` agrees with the board, and no `done`
 * feature whose `done_when` command last failed. No board at all passes (nothing to disagree with).
 */
export function checkFeatureBoard(snapshot: WorkbenchSnapshot): CheckResult {
  const base = { check: 'feature-board' as const, title: 'Feature board' };
  const board = snapshot.featureList;
  if (!board) {
    // A session with no task tool has no task list: nothing to check, which is neutral, never a failure.
    const session = snapshot.session;
    if (session && session.hasTaskList !== true) {
      return { ...base, passed: true, unknown: true, summary: `No feature board (feature_list.json), and no task list in this session (the ${session.displayName} used no task tool): nothing to check.`, findings: [] };
    }
    return { ...base, passed: true, summary: 'No feature board (feature_list.json) to check.', findings: [] };
  }
  if (board.derivedFrom) return checkTaskList(board.features, board.derivedFrom);
  const file = board.file;
  const findings: CleanFinding[] = [];
  const inProgress = board.features.filter((f) => f.status === 'in_progress').map((f) => f.id);
  if (inProgress.length > 1) {
    findings.push({
      check: 'feature-board',
      kind: 'several-in-progress',
      detail: `${inProgress.length} features are in progress in ${file} (${inProgress.join(', ')}); at most one may be.`,
      paths: [file],
      fix: `Finish or pause all but one of ${inProgress.join(', ')} (status todo, blocked or done).`,
    });
  }
  const active = board.active ?? null;
  if (active !== null) {
    const feature = board.features.find((f) => f.id === active);
    if (!feature) {
      findings.push({
        check: 'feature-board',
        kind: 'active-unknown',
        detail: `${file} says \`active\` is ${active}, but no feature has that id.`,
        paths: [file],
        fix: `Set \`active\` to the feature being worked on${inProgress.length === 1 ? ` (${inProgress[0]})` : ''}, or add ${active} to the board.`,
      });
    } else if (feature.status !== 'in_progress' && (feature.status === 'done' || inProgress.length > 0)) {
      findings.push({
        check: 'feature-board',
        kind: 'active-not-in-progress',
        detail: `${file} says \`active\` is ${active}, but ${active} is ${feature.status}${inProgress.length ? ` while ${inProgress.join(', ')} is in progress` : ''}.`,
        paths: [file],
        fix: inProgress.length === 1 ? `Set \`active\` to ${inProgress[0]}.` : `Set \`active\` to the feature being worked on, or null.`,
      });
    }
  } else if (inProgress.length === 1) {
    findings.push({
      check: 'feature-board',
      kind: 'active-missing',
      detail: `${file} has no \`active\` feature, but ${inProgress[0]} is in progress.`,
      paths: [file],
      fix: `Set \`active\` to ${inProgress[0]}.`,
    });
  }
  const lastRunOf = snapshot.feedback?.lastRunOf ?? {};
  for (const f of board.features) {
    if (f.status !== 'done' || !f.done_when) continue;
    const run = lastRunOf[normalizeCommand(f.done_when)];
    if (run && run.record.exit_code !== 0) {
      const how = run.record.exit_code == null ? 'did not finish' : `failed with exit ${run.record.exit_code}`;
      findings.push({
        check: 'feature-board',
        kind: 'done-feature-failing',
        detail: `${f.id} is done, but its done_when command \`${normalizeCommand(f.done_when)}\` last ${how} (feedback_record.jsonl line ${run.index + 1}).`,
        paths: [file],
        fix: `Re-run \`${normalizeCommand(f.done_when)}\` until it passes, or set ${f.id} back to in_progress.`,
        commands: [normalizeCommand(f.done_when)],
      });
    }
  }
  const summary =
    findings.length > 0
      ? (findings[0] as CleanFinding).detail
      : `The board agrees with itself: ${inProgress.length ? `${inProgress[0]} in progress` : 'nothing in progress'}, ${board.features.filter((f) => f.status === 'done').length} done.`;
  return { ...base, passed: findings.length === 0, summary, findings };
}

/**
 * The agent's own task list (TodoWrite / update_plan) when there is no board file: at most one task in
 * progress. A task list has no `active` field and no `done_when` commands to disagree with.
 */
function checkTaskList(tasks: readonly Feature[], session: string): CheckResult {
  const base = { check: 'feature-board' as const, title: 'Feature board' };
  const inProgress = tasks.filter((t) => t.status === 'in_progress');
  const done = tasks.filter((t) => t.status === 'done').length;
  if (inProgress.length > 1) {
    const names = inProgress.map((t) => `"${t.goal ?? t.id}"`).join(', ');
    const detail = `${inProgress.length} tasks are in progress in the task list of the ${session} (${names}); at most one may be.`;
    return {
      ...base,
      passed: false,
      summary: detail,
      findings: [{ check: 'feature-board', kind: 'several-in-progress', detail, fix: 'Ask the agent to finish or set back to pending all but one of them in its task list.' }],
    };
  }
  const now = inProgress[0];
  return {
    ...base,
    passed: true,
    summary: `The task list of the ${session} agrees with itself: ${now ? `"${now.goal ?? now.id}" in progress` : 'nothing in progress'}, ${done} of ${tasks.length} done.`,
    findings: [],
  };
}
