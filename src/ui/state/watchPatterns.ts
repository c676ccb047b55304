import * as path from 'node:path';

/** The workbench artifacts (DESIGN §2) and the generic usage file, relative to the workbench dir. */
export const ARTIFACT_GLOB =
  '{agent_state.json,verification_report.json,review_report.json,feedback_record.jsonl,feature_list.json,task_board.json,context_usage.json,outputs/verification/*.json,outputs/review/*.json}';

/** The task files of Cline, Roo Code and Kilo Code, relative to an agent's storage folder (and the Cline SDK bundle's session manifests and messages, one folder down). */
export const TASK_GLOB = '{*/*.json,tasks/*/ui_messages.json,tasks/*/api_conversation_history.json,tasks/*/task_metadata.json,tasks/_index.json,state/taskHistory.json}';

/**
 * Files whose changes must not trigger a refresh: the temp files of atomic writes, the registry
 * lock, the hook log, git's own lock and object churn, and the clean-state report a refresh may
 * itself write — reacting to those would loop.
 */
export function isOwnNoise(file: string): boolean {
  const base = path.basename(file);
  if (base.startsWith('.') && base.endsWith('.tmp')) return true;
  if (base === '.lock' || base === 'hook.log' || base === 'clean_state.json' || base.endsWith('.lock')) return true;
  const parts = file.split(/[\\/]/);
  const git = parts.indexOf('.git');
  if (git >= 0) {
    const rest = parts.slice(git + 1);
    return !(rest[0] === 'HEAD' || rest[0] === 'index' || rest[0] === 'refs');
  }
  return parts.includes('node_modules');
}
