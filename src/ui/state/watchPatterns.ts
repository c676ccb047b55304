import * as path from 'node:path';

/** The workbench artifacts (DESIGN §2) and the generic usage file, relative to the workbench dir. */
export const ARTIFACT_GLOB =
  '{agent_state.json,verification_report.json,review_report.json,feedback_record.jsonl,feature_list.json,task_board.json,context_usage.json,outputs/verification/*.json,outputs/review/*.json}';

/**
 * The agents' storage folders are watched whole for JSON files (a plain recursive glob, which every
 * file watcher supports outside the workspace); `isTaskFile` keeps the ones that make a task.
 */
export const TASK_GLOB = '{**/*.json,**/*.jsonl,kilo*.db,kilo*.db-wal,opencode*.db,opencode*.db-wal,state.vscdb,**/workspace.yaml,**/session.db,**/session.db-wal}';

const TASK_FILES = new Set(['ui_messages.json', 'api_conversation_history.json', 'task_metadata.json', 'history_item.json', '_index.json', 'taskHistory.json']);

/** A Cline / Roo Code / Zoo Code / Kilo Code task file (or an index of tasks, a Cline SDK session's manifest or messages, Kilo's database or its WAL). */
export function isTaskFile(file: string): boolean {
  const base = path.basename(file);
  if (TASK_FILES.has(base)) return true;
  if (/^(?:kilo|opencode).*\.db(?:-wal)?$/.test(base)) return true;
  // Copilot Chat: `chatSessions/<id>.json(l)`, `GitHub.copilot-chat/transcripts/<id>.jsonl`, the legacy `state.vscdb`.
  if (base === 'state.vscdb') return true;
  const parent = path.basename(path.dirname(file));
  if ((parent === 'chatSessions' && /\.jsonl?$/.test(base)) || (parent === 'transcripts' && base.endsWith('.jsonl'))) return true;
  // Gemini CLI `<project>/chats/session-*.jsonl`, Qwen Code `<project>/chats/<id>.jsonl` and its `todos/<id>.json`.
  if ((parent === 'chats' && base.endsWith('.jsonl')) || (parent === 'todos' && base.endsWith('.json'))) return true;
  // Copilot CLI: `session-state/<id>/events.jsonl`, `workspace.yaml` and the todo list's `session.db`.
  if (base === 'events.jsonl' || base === 'workspace.yaml' || base === 'session.db' || base === 'session.db-wal') return true;
  // Cline SDK: `<sessions>/<id>/<id>.json` and `<id>.messages.json`.
  const dir = path.basename(path.dirname(file));
  return base === `${dir}.json` || base === `${dir}.messages.json`;
}

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
