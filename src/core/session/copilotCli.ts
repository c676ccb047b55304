/**
 * GitHub Copilot CLI (FORMATS: more-agents §4, @github/copilot 1.0.102). Each session is a folder
 * `<home>/session-state/<sessionId>/` (`<home>` = `$COPILOT_HOME`, else `~/.copilot`): `events.jsonl`
 * (one `{type, data, id, timestamp, parentId}` event a line), `workspace.yaml` (its `cwd`) and
 * `session.db` (SQLite: the todo list the agent keeps through its `sql` tool, table `todos`). A
 * command's exit code is `tool.execution_complete.data.shellExecution.exitCode` (`success` stays true
 * for a non-zero exit); the prompt size is each `session.usage_record`'s `inputTokens`, the window its
 * `maxPromptTokens`. `session-store.db`, a best-effort index of every session, is not needed.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { listDir, statOrNull } from '../fsx';
import type { CommandResult } from './accumulator';
import type { LogFormat, LogRead, LogRef, LogUsage } from './agentLog';
import { firstLine, LineCredentials, logRecords, readFileCapped } from './agentLog';
import { shortCommand } from './credentials';
import { readSqlite } from './sqliteSnapshot';
import type { Obj, TaskEvent } from './vscodeTask';
import { num, obj, str } from './vscodeTask';

/** `$COPILOT_HOME`, else `~/.copilot`. */
export function defaultCopilotHome(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return env['COPILOT_HOME'] || path.join(home, '.copilot');
}

/** A value of a flat `key: value` YAML file (`workspace.yaml`), quoted or not; undefined when absent. */
export function yamlValue(text: string, key: string): string | undefined {
  const m = new RegExp(`^${key}:[ \\t]*(.*?)[ \\t]*$`, 'm').exec(text);
  if (!m) return undefined;
  const v = m[1] ?? '';
  if (v.startsWith('"')) {
    try {
      return JSON.parse(v) as string;
    } catch {
      return v.slice(1, -1);
    }
  }
  if (v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  return v;
}

/** A Copilot CLI session of the folder. */
export interface CopilotCliRef {
  file: string;
  sessionId: string;
  cwd: string;
  mtimeMs: number;
  size: number;
}

const cwds = new Map<string, { key: string; cwd: string | Error }>();

/** A session's working folder: `workspace.yaml`'s `cwd`, else its first event's (`session.start.data.context.cwd`). */
async function sessionCwd(dir: string, events: string, key: string): Promise<string | Error> {
  const cached = cwds.get(dir);
  if (cached?.key === key) return cached.cwd;
  let cwd: string | Error;
  try {
    const yaml = path.join(dir, 'workspace.yaml');
    const st = await statOrNull(yaml);
    const fromYaml = st?.isFile() && st.size < 1024 * 1024 ? yamlValue(await readFileCapped(yaml), 'cwd') : undefined;
    if (fromYaml) cwd = fromYaml;
    else {
      let o: Obj | undefined;
      const line = await firstLine(events);
      try {
        o = obj(JSON.parse(line));
      } catch {
        o = undefined;
      }
      const c = str(obj(obj(o?.['data'])?.['context'])?.['cwd']);
      cwd = c ?? new Error('it names no working folder (no cwd in workspace.yaml, line 1 is no session.start)');
    }
  } catch (err) {
    cwd = err as Error;
  }
  cwds.set(dir, { key, cwd });
  if (cwds.size > 4096) cwds.delete(cwds.keys().next().value as string);
  return cwd;
}

/** The sessions of the folder (or of a folder inside it) under `session-state/`; the ones that cannot be read, named. */
export async function copilotCliSessionsOf(folder: string, home: string, inside: (folder: string, cwd: string) => boolean): Promise<{ refs: CopilotCliRef[]; problems: string[] }> {
  const root = path.join(home, 'session-state');
  const problems: string[] = [];
  const out: CopilotCliRef[] = [];
  for (const id of await listDir(root)) {
    if (id.startsWith('.')) continue;
    const dir = path.join(root, id);
    const file = path.join(dir, 'events.jsonl');
    const st = await statOrNull(file);
    if (!st) continue;
    const yaml = await statOrNull(path.join(dir, 'workspace.yaml'));
    const cwd = await sessionCwd(dir, file, `${st.size}:${st.mtimeMs}:${st.ino}|${yaml ? `${yaml.size}:${yaml.mtimeMs}` : '-'}`);
    if (cwd instanceof Error) {
      problems.push(`Copilot CLI's ${file} exists but could not be read: ${cwd.message}`);
      continue;
    }
    if (inside(folder, cwd)) out.push({ file, sessionId: id, cwd, mtimeMs: st.mtimeMs, size: st.size });
  }
  return { refs: out, problems };
}

/** The event types the reader knows: the ones it reads and the bookkeeping it skips on purpose. */
const KNOWN = new Set([
  'session.start',
  'session.resume',
  'session.context_changed',
  'user.message',
  'assistant.message',
  'tool.execution_start',
  'tool.execution_complete',
  'session.usage_record',
  'session.compaction_start',
  'session.compaction_complete',
  'session.task_complete',
  'session.truncation',
  'session.shutdown',
  'session.info',
  'session.model_change',
  'system.message',
  'assistant.turn_start',
  'assistant.turn_end',
  'hook.start',
  'hook.end',
]);
const SHELL_TOOLS = new Set(['bash', 'powershell']);
const EDIT_TOOLS = new Set(['edit', 'create', 'str_replace_editor', 'write']);

/** A shell call's outcome: `shellExecution.exitCode`, else the `<shellId: N completed with exit code N>` line; never a guessed one. */
export function copilotShellResult(data: Obj, async: boolean): CommandResult {
  const content = str(obj(data['result'])?.['content']) ?? str(obj(data['error'])?.['message']) ?? '';
  const stdout = content.replace(/\n?<shellId: [^>]*>\s*$/, '');
  const exit = obj(data['shellExecution'])?.['exitCode'];
  if (typeof exit === 'number' && Number.isFinite(exit)) return { exit, stdout };
  const m = /<shellId: [^>]* completed with exit code (-?\d+)>\s*$/.exec(content);
  if (m) return { exit: Number(m[1]), stdout };
  if (data['success'] === false) return { exit: null, unfinished: 'error', error: content.split('\n')[0] || 'the tool failed', stdout };
  if (async) return { exit: null, unfinished: 'background', background: { taskId: /<shellId: ([^ >]+)/.exec(content)?.[1] ?? null }, stdout };
  return { exit: null, unfinished: 'no-result', error: 'Copilot CLI recorded no exit code for this run', stdout };
}

const TODO_STATUS: Record<string, string> = { done: 'completed', in_progress: 'in_progress', pending: 'pending', blocked: 'pending' };

/** The todo list of `session.db` (table `todos`, in the order the agent added them); null when there is none. */
export async function copilotTodos(file: string): Promise<{ content: string; status: string }[] | null> {
  const st = await statOrNull(file);
  if (!st) return null;
  const rows = await readSqlite(file, (db) => (db.has('todos', ['title', 'status']) ? db.rows('todos', ['title', 'status']) : null));
  if (!rows) return null;
  return rows.flatMap((r) => {
    const title = typeof r['title'] === 'string' ? r['title'].trim() : '';
    if (!title) return [];
    const status = typeof r['status'] === 'string' ? r['status'] : 'pending';
    return [{ content: status === 'blocked' ? `${title} (blocked)` : title, status: TODO_STATUS[status] ?? 'pending' }];
  });
}

const dbOf = (ref: Pick<LogRef, 'file'>): string => path.join(path.dirname(ref.file), 'session.db');

/** Reads one Copilot CLI session (`events.jsonl`, and the todo list in `session.db`). */
export async function readCopilotCliLog(ref: Pick<LogRef, 'file' | 'cwd'>, text: string): Promise<LogRead> {
  const { records, badLines, notRead } = logRecords(text, ref.file);
  const creds = new LineCredentials();
  const events: TaskEvent[] = [];
  const files: string[] = [];
  const unknown: string[] = [];
  const calls = new Map<string, { tool: string; args: Obj | undefined; by: string }>();
  let model: string | null = null;
  let version: string | null = null;
  let usage: LogUsage | null = null;
  let todosLine: number | null = null;
  let lastTs = 0;
  const nameOf = (tool: string, args: Obj | undefined): string => {
    const cmd = str(args?.['command']);
    if (cmd !== undefined && SHELL_TOOLS.has(tool)) return `\`${shortCommand(cmd)}\``;
    const p = str(args?.['path']);
    return p ? `${tool} of ${p}` : tool;
  };
  for (const r of records) {
    const e = r.o;
    const type = str(e['type']) ?? '';
    const data = obj(e['data']) ?? {};
    const line = r.line;
    const ts = Date.parse(str(e['timestamp']) ?? '') || lastTs;
    lastTs = Math.max(lastTs, ts);
    // A sub-agent's events carry the call that started it: its work is not the session's own.
    const sub = !!str(data['parentToolCallId']);
    let by: string | null = null;
    if (!KNOWN.has(type)) unknown.push(type || 'record');
    switch (type) {
      case 'session.start':
        version = str(data['copilotVersion']) ?? version;
        model = str(data['selectedModel']) ?? model;
        break;
      case 'user.message': {
        by = 'a user message';
        const t = str(data['content'])?.trim();
        if (t && !sub) events.push({ k: 'request', text: t, line, ts });
        break;
      }
      case 'assistant.message': {
        const requests = Array.isArray(data['toolRequests']) ? (data['toolRequests'] as unknown[]).map(obj).filter((x): x is Obj => !!x) : [];
        by = requests.length === 1 ? nameOf(str(requests[0]!['name']) ?? 'tool', obj(requests[0]!['arguments'])) : requests.length ? null : 'assistant text';
        if (sub) break;
        model = str(data['model']) ?? model;
        const t = str(data['content'])?.trim();
        if (t) events.push({ k: 'assistant', text: t, line, ts, closing: requests.length === 0 });
        break;
      }
      case 'session.task_complete': {
        const t = str(data['summary'])?.trim();
        if (t && !sub) events.push({ k: 'assistant', text: t, line, ts, closing: true });
        break;
      }
      case 'tool.execution_start': {
        const id = str(data['toolCallId']);
        const tool = str(data['toolName']) ?? '';
        const args = obj(data['arguments']);
        if (!id) break;
        by = nameOf(tool, args);
        calls.set(id, { tool, args, by });
        const command = str(args?.['command'])?.trim();
        if (!sub && SHELL_TOOLS.has(tool) && command) events.push({ k: 'call', id, command, tool, cwd: null, line, ts });
        if (tool === 'sql' && /\btodos\b/i.test(str(args?.['query']) ?? '')) todosLine = line;
        break;
      }
      case 'tool.execution_complete': {
        const id = str(data['toolCallId']);
        const call = id ? calls.get(id) : undefined;
        by = call?.by ?? null;
        if (!id || !call || sub) break;
        if (SHELL_TOOLS.has(call.tool) && str(call.args?.['command'])?.trim()) {
          events.push({ k: 'result', id, result: copilotShellResult(data, call.args?.['mode'] === 'async'), feedback: null, cwd: null, line, ts });
        } else if (data['success'] !== false) {
          const edited = Array.isArray(data['fileEdits']) ? (data['fileEdits'] as unknown[]).map((f) => str(obj(f)?.['path'])).filter((f): f is string => !!f) : [];
          const paths = edited.length ? edited : EDIT_TOOLS.has(call.tool) && str(call.args?.['path']) ? [str(call.args?.['path'])!] : [];
          for (const f of paths) {
            const abs = path.resolve(ref.cwd, f);
            files.push(abs);
            events.push({ k: 'edit', file: abs, line, ts });
          }
        }
        break;
      }
      case 'session.usage_record': {
        const u = obj(data['usage']);
        if (sub || obj(u)?.['parentToolCallId']) break;
        if (num(u?.['inputTokens']) > 0) usage = { line, at: str(e['timestamp']) ?? '', model: str(u?.['model']) ?? model, used: num(u?.['inputTokens']), window: num(u?.['maxPromptTokens']) || null, compactAtPercent: 100 };
        break;
      }
      case 'session.compaction_complete': {
        // After a compaction the new size is the reading until the next call.
        const before = usage as LogUsage | null;
        if (before && data['success'] !== false && num(data['postCompactionTokens']) > 0) usage = { ...before, line, at: str(e['timestamp']) ?? before.at, used: num(data['postCompactionTokens']) };
        break;
      }
    }
    creds.add(r.raw, line, by);
  }
  // The todo list is rows of session.db, written by the agent's sql tool: read as it is now, after everything.
  const db = dbOf(ref);
  try {
    const todos = await copilotTodos(db);
    if (todos) events.push({ k: 'todos', items: todos, tool: 'sql', line: todosLine ?? 1, ts: lastTs + 1 });
  } catch (err) {
    notRead.push({ file: db, message: `${(err as Error).message}; its todo list is not read` });
  }
  return { events, files, model, version, usage, badLines, notRead, unknown, credentials: creds.list() };
}

export const COPILOT_CLI_FORMAT: LogFormat = {
  companions: (ref) => [dbOf(ref), `${dbOf(ref)}-wal`],
  read: readCopilotCliLog,
};
