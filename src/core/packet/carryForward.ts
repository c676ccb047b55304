import { isReadOnlyCommand } from '../artifacts/readOnly';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { Packet } from './schema';

/**
 * Whether the session in `snapshot` added work: a call that changed something (a command that is not
 * read-only, an edit), a decision (a declined call), a task list, or a request it left unanswered or
 * unfinished. A session that only read the handed-over packet and answered in a line adds none.
 */
export function sessionAddsWork(snapshot: WorkbenchSnapshot, packet: Pick<Packet, 'ending' | 'decisions'>): boolean {
  const s = snapshot.session;
  if (!s) return true;
  // Workbench files the user or the agent wrote (a state file, a verification, a review) are a record of their own.
  if (snapshot.origins?.['agent_state'] === 'agent_state.json' || snapshot.verification || snapshot.review) return true;
  const log = snapshot.feedback;
  if (log && log.total > log.kept.length) return true;
  const ran = log?.kept.some((r) => {
    const c = r.record.command;
    const text = typeof c === 'string' ? c : Array.isArray(c) ? c.join(' ') : '';
    return !isReadOnlyCommand(text);
  });
  if (ran) return true;
  if (snapshot.agentState?.touched_files.length) return true;
  if (s.hasTaskList || snapshot.featureList?.features.length) return true;
  if (packet.decisions.some((d) => d.status === 'rejected')) return true;
  // The agent answered (or asked): nothing left unanswered or cut mid-step.
  const kind = packet.ending?.kind;
  return kind !== 'agent-closed' && kind !== 'waiting-for-human';
}

/**
 * A packet of a session that added no work keeps the previous packet's next action (and its open
 * questions) in force, saying where it came from: the new session answered, it did not move the work.
 * Only a packet the user owns (written here, or trusted) is carried forward.
 */
export function carryForward(packet: Packet, previous: Packet): Packet {
  const from = `carried forward from packet ${previous.packet_id} (this session added no work)`;
  const questions = [...(previous.questions_for_human ?? [])];
  for (const q of packet.questions_for_human ?? []) if (!questions.includes(q)) questions.push(q);
  return {
    ...packet,
    next_action: previous.next_action,
    ...(previous.next_action_origin ? { next_action_origin: previous.next_action_origin } : {}),
    ...(previous.next_action_source ? { next_action_source: previous.next_action_source } : {}),
    ...(previous.questions ? { questions: previous.questions } : {}),
    ...(previous.waiting_for_answers !== undefined ? { waiting_for_answers: previous.waiting_for_answers } : {}),
    questions_for_human: questions,
    failed_attempts: packet.failed_attempts.length ? packet.failed_attempts : previous.failed_attempts,
    sources: { ...packet.sources, next_action: from },
  };
}
