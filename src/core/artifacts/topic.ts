import type { WorkbenchSnapshot } from './snapshot';

/** The topic of a workbench with no active task anywhere. */
export const DEFAULT_TOPIC = 'default';

type TaskSources = Pick<WorkbenchSnapshot, 'agentState' | 'featureList'>;

/**
 * The task the work is on: `agent_state.json`'s `active_task_id`, else the board's `active`.
 * A blank id (missing, null, empty or only spaces) counts as none, so the board still answers.
 */
export function activeTaskId(snapshot: TaskSources): string | null {
  return snapshot.agentState?.active_task_id?.trim() || snapshot.featureList?.active?.trim() || null;
}

/** The topic packets are grouped by (one active packet per branch + topic): the active task, else `default`. */
export function topicOf(snapshot: TaskSources): string {
  return activeTaskId(snapshot) ?? DEFAULT_TOPIC;
}
