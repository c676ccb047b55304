import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { activeTaskId } from '../artifacts/topic';
import type { FailedAttempt } from './schema';
import { redact } from '../redact';

/** At most `n` characters, cut at a space when one is near the end: never inside a word. */
const clip = (text: string, n: number): string => {
  // Redacted first: a cut never leaves part of a secret.
  const s: string = redact(text);
  if (s.length <= n) return s;
  const cut = s.slice(0, n - 1);
  const space = cut.search(/\s\S*$/);
  return `${space > n * 0.7 ? cut.slice(0, space) : cut}…`;
};
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The summary: the agent's own when it wrote one, otherwise composed from what the artifacts say —
 * the task and its goal, verification and review outcomes, command and failure counts.
 */
export function composeSummary(snapshot: WorkbenchSnapshot, failed: FailedAttempt[], branch: string | null): string {
  const own = snapshot.agentState?.summary?.trim();
  if (own) return own;

  const parts: string[] = [];
  const taskId = activeTaskId(snapshot);
  const feature = taskId ? snapshot.featureList?.features.find((f) => f.id === taskId) : undefined;
  const session = snapshot.session;
  const goal = session?.goal?.text.trim();
  if (!taskId && session && (session.firstUserRequest || goal)) {
    // Without a task id, the task is the goal the user set with /goal, else what the user asked the agent for.
    const on = branch ? ` on branch ${branch}` : '';
    if (goal) parts.push(`Goal set with /goal in the ${session.displayName}${on}: "${clip(goal, 300)}".`);
    if (session.firstUserRequest) parts.push(goal ? `First request: "${clip(session.firstUserRequest, 300)}".` : `Task from the ${session.displayName}${on}: "${clip(session.firstUserRequest, 300)}".`);
    if (session.latestUserRequest && session.latestUserRequest !== session.firstUserRequest) {
      parts.push(`Latest request: "${clip(session.latestUserRequest, 300)}".`);
    }
    const list = snapshot.featureList?.derivedFrom ? snapshot.featureList.features : [];
    if (list.length) {
      const done = list.filter((f) => f.status === 'done').length;
      const now = list.find((f) => f.status === 'in_progress');
      parts.push(`Task list: ${done} of ${list.length} done${now?.goal ? `; in progress: ${now.goal}` : ''}.`);
    }
  } else {
    let task = taskId ? `Task ${taskId}` : 'No active task recorded';
    if (feature?.goal) task += ` (${feature.goal})`;
    if (feature) task += ` is ${feature.status.replace('_', ' ')}`;
    if (branch) task += ` on branch ${branch}`;
    parts.push(`${task}.`);
  }

  const v = snapshot.verification;
  if (v) {
    const counts = new Map<string, number>();
    for (const f of v.findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
    const detail = [...counts].map(([sev, n]) => `${n} ${sev}`).join(', ');
    parts.push(`Verification ${v.passed ? 'passed' : 'failed'}${detail ? ` (findings: ${detail})` : ''}.`);
  }
  const r = snapshot.review;
  if (r) parts.push(`Review: ${r.verdict.replace('_', ' ')}, ${r.total}/10.`);

  const fb = snapshot.feedback;
  if (fb && fb.total > 0) {
    const uncertain = failed.filter((f) => f.uncertain).length;
    const failedText = failed.length
      ? `${plural(failed.length, 'failure')} among those kept${uncertain ? ` (${uncertain} timed out, stopped or unfinished: may have partly applied)` : ''}`
      : 'no failures among those kept';
    parts.push(`${plural(fb.total, 'command')} recorded, ${failedText}.`);
  } else {
    parts.push('No commands recorded.');
  }
  if (session?.rejectedCount) parts.push(`${plural(session.rejectedCount, 'command')} declined by the user.`);
  const blockers = snapshot.agentState?.blockers.length ?? 0;
  if (blockers) parts.push(`${plural(blockers, 'blocker')} open.`);
  // The agent's own last words say where it stopped.
  // The closing words are kept whole in the packet's `closing`; the summary line only points at them.
  // The closing words as the reader kept them (a marker like Cline's HAS_CHANGES dropped), else the last text.
  const stopped = session?.closing?.text.trim() ? session.closing.text : session?.lastAssistantMessage;
  if (stopped) parts.push(`Where the agent stopped: "${clip(stopped.replace(/\s+/g, ' '), 400)}"`);
  return parts.join(' ');
}
