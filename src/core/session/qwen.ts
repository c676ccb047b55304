/**
 * Qwen Code (FORMATS: more-agents §3, @qwen-code/qwen-code 0.24.4). Its sessions are
 * `<runtime>/projects/<folder with every non-alphanumeric character "-">/chats/<sessionId>.jsonl`,
 * `<runtime>` = `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`; the live todo list is
 * `<runtime>/todos/<sessionId>.json`. Every record carries its `cwd`, `uuid` and `parentUuid`: the
 * conversation is the chain from the last record back (a rewind leaves the abandoned records on a dead
 * branch, which is not read). A command's exit code is its result's `resultDisplay.exitCode` (a
 * non-zero exit is a result with `status: "error"`); the prompt size is each reply's
 * `usageMetadata.promptTokenCount`, the window its `contextWindowSize`.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listDir, statOrNull } from '../fsx';
import type { CommandResult } from './accumulator';
import type { LogFormat, LogRead, LogRecord, LogRef, LogUsage } from './agentLog';
import { headReader, LineCredentials, logRecords } from './agentLog';
import { shortCommand } from './credentials';
import type { Obj, TaskEvent } from './vscodeTask';
import { num, obj, str } from './vscodeTask';

/** Where Qwen Code writes its sessions and todo lists: `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`. */
export function defaultQwenDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return env['QWEN_RUNTIME_DIR'] || env['QWEN_HOME'] || path.join(home, '.qwen');
}

/** Qwen Code's project folder name for a folder: every non-alphanumeric character becomes `-` (lower-cased first on Windows). */
export function qwenProjectName(folder: string, platform: NodeJS.Platform = process.platform): string {
  const p = platform === 'win32' ? folder.toLowerCase() : folder;
  return p.replace(/[^a-zA-Z0-9]/g, '-');
}

/** A Qwen Code session of the folder. */
export interface QwenRef {
  file: string;
  sessionId: string;
  cwd: string;
  mtimeMs: number;
  size: number;
}

const sessionHead = headReader<{ sessionId: string; cwd: string }>((o, file) => {
  const cwd = str(o?.['cwd']);
  return cwd ? { sessionId: str(o?.['sessionId']) ?? path.basename(file, '.jsonl'), cwd } : new Error('line 1 is not a Qwen Code record (no cwd)');
});

/**
 * The sessions of the folder (or of a folder inside it: their project names start with the folder's),
 * each confirmed by the `cwd` of its first record; files that are there but could not be read, named.
 */
export async function qwenSessionsOf(folder: string, dir: string, inside: (folder: string, cwd: string) => boolean): Promise<{ refs: QwenRef[]; problems: string[] }> {
  const projects = path.join(dir, 'projects');
  const problems: string[] = [];
  const name = qwenProjectName(path.resolve(folder));
  const out: QwenRef[] = [];
  for (const p of await listDir(projects)) {
    if (p !== name && !p.startsWith(`${name}-`)) continue;
    const chats = path.join(projects, p, 'chats');
    for (const n of await listDir(chats)) {
      if (!n.endsWith('.jsonl')) continue;
      const file = path.join(chats, n);
      const st = await statOrNull(file);
      if (!st) continue;
      const head = await sessionHead(file, `${st.size}:${st.mtimeMs}:${st.ino}`);
      if (head instanceof Error) {
        problems.push(`Qwen Code's ${file} exists but could not be read: ${head.message}`);
        continue;
      }
      if (inside(folder, head.cwd)) out.push({ file, sessionId: head.sessionId, cwd: head.cwd, mtimeMs: st.mtimeMs, size: st.size });
    }
  }
  return { refs: out, problems };
}

const RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);
const EDIT_TOOLS = new Set(['edit', 'write_file', 'replace']);

const partsOf = (m: Obj): Obj[] => {
  const p = obj(m['message'])?.['parts'];
  return Array.isArray(p) ? p.map(obj).filter((x): x is Obj => !!x) : [];
};

const textOf = (m: Obj): string =>
  partsOf(m)
    .filter((p) => typeof p['text'] === 'string' && p['thought'] !== true)
    .map((p) => p['text'] as string)
    .join('')
    .trim();

/** A shell result: the exit code Qwen recorded (`resultDisplay.exitCode`, else the `Exit Code: N` line of its text), never a guessed one. */
export function qwenShellResult(rec: Obj, background: boolean): CommandResult {
  const r = obj(rec['toolCallResult']);
  const d = obj(r?.['resultDisplay']);
  const resp = obj(obj(partsOf(rec).find((p) => p['functionResponse'])?.['functionResponse'])?.['response']);
  const text = str(resp?.['output']) ?? str(resp?.['error']) ?? '';
  const stdout = str(d?.['output']) ?? (/(?:^|\n)Output: ?([\s\S]*?)(?=\nError: |\nExit Code: |$)/.exec(text)?.[1] ?? text);
  const status = str(r?.['status']);
  if (status === 'cancelled') return { exit: null, unfinished: 'cancelled', stdout };
  if (typeof d?.['exitCode'] === 'number') return { exit: d['exitCode'], stdout };
  const line = /(?:^|\n)Exit Code: (-?\d+)/.exec(text);
  if (line) return { exit: Number(line[1]), stdout };
  const signal = d?.['signal'] ?? /(?:^|\n)Signal: (?!\(none\))(\S+)/.exec(text)?.[1];
  if (signal !== undefined && signal !== null) return { exit: null, unfinished: 'interrupted', error: `stopped by signal ${String(signal)}`, stdout };
  if (background) return { exit: null, unfinished: 'background', background: { taskId: d?.['pid'] !== undefined && d['pid'] !== null ? String(d['pid']) : null }, stdout };
  if (status === 'error') return { exit: null, unfinished: 'error', error: str(r?.['error']) ?? (text.split('\n')[0] || 'the command could not be run'), stdout };
  return { exit: null, unfinished: 'no-result', error: 'Qwen Code recorded no exit code for this run', stdout };
}

const todoItems = (list: unknown): { content: string; status: string }[] =>
  (Array.isArray(list) ? list : [])
    .map(obj)
    .filter((t): t is Obj => !!t && !!str(t['content'])?.trim())
    .map((t) => ({ content: (str(t['content']) ?? '').trim(), status: str(t['status']) ?? 'pending' }));

/** `<runtime>/todos/<id>.json` of a session file (`<runtime>/projects/<name>/chats/<id>.jsonl`). */
const todosFile = (ref: Pick<LogRef, 'file' | 'sessionId'>): string => path.resolve(path.dirname(ref.file), '..', '..', '..', 'todos', `${ref.sessionId}.json`);

/** The live records: the `parentUuid` chain from the last record back, in order. */
function liveChain(records: readonly LogRecord[]): LogRecord[] {
  const byId = new Map<string, LogRecord>();
  for (const r of records) {
    const id = str(r.o['uuid']);
    if (id) byId.set(id, r);
  }
  const last = [...records].reverse().find((r) => str(r.o['uuid']));
  const chain: LogRecord[] = [];
  const seen = new Set<string>();
  for (let r = last; r; ) {
    const id = str(r.o['uuid']) ?? '';
    if (seen.has(id)) break;
    seen.add(id);
    chain.push(r);
    const parent = str(r.o['parentUuid']);
    r = parent ? byId.get(parent) : undefined;
  }
  return chain.reverse();
}

/** Reads one Qwen Code session log (and its live todo list). */
export async function readQwenLog(ref: Pick<LogRef, 'file' | 'cwd' | 'sessionId'>, text: string): Promise<LogRead> {
  const { records, badLines, notRead } = logRecords(text, ref.file);
  const creds = new LineCredentials();
  const calls = new Map<string, { name: string; args: Obj | undefined; line: number; ts: number }>();
  const callName = (name: string, args: Obj | undefined): string => (str(args?.['command']) !== undefined ? `\`${shortCommand(str(args?.['command']) ?? '')}\`` : `${name}${str(args?.['file_path']) ? ` of ${str(args?.['file_path'])}` : ''}`);
  for (const r of records) {
    const type = str(r.o['type']);
    let by: string | null = null;
    if (type === 'user') by = 'a user message';
    else if (type === 'assistant') {
      const fc = partsOf(r.o).map((p) => obj(p['functionCall'])).filter((f): f is Obj => !!f);
      by = fc.length === 1 ? callName(str(fc[0]!['name']) ?? 'tool', obj(fc[0]!['args'])) : fc.length ? null : 'assistant text';
    } else if (type === 'tool_result') {
      const id = str(obj(r.o['toolCallResult'])?.['callId']);
      const fr = obj(partsOf(r.o).find((p) => p['functionResponse'])?.['functionResponse']);
      by = id && calls.has(id) ? callName(calls.get(id)!.name, calls.get(id)!.args) : fr ? (str(fr['name']) ?? null) : null;
    }
    if (type === 'assistant') for (const p of partsOf(r.o)) {
      const f = obj(p['functionCall']);
      if (f && str(f['id'])) calls.set(str(f['id'])!, { name: str(f['name']) ?? '', args: obj(f['args']), line: r.line, ts: 0 });
    }
    creds.add(r.raw, r.line, by);
  }
  calls.clear();

  const events: TaskEvent[] = [];
  const files: string[] = [];
  const unknown: string[] = [];
  let model: string | null = null;
  let version: string | null = null;
  let usage: LogUsage | null = null;
  let todosLine: number | null = null;
  let lastTs = 0;
  for (const r of liveChain(records)) {
    const m = r.o;
    const line = r.line;
    const ts = Date.parse(str(m['timestamp']) ?? '') || lastTs;
    lastTs = Math.max(lastTs, ts);
    const type = str(m['type']);
    version = str(m['version']) ?? version;
    if (!type || !RECORD_TYPES.has(type)) {
      unknown.push(type ?? 'record');
      continue;
    }
    if (type === 'user') {
      const t = textOf(m);
      if (t) events.push({ k: 'request', text: t, line, ts });
    } else if (type === 'assistant') {
      model = str(m['model']) ?? model;
      const u = obj(m['usageMetadata']);
      if (num(u?.['promptTokenCount']) > 0) usage = { line, at: str(m['timestamp']) ?? '', model: str(m['model']) ?? model, used: num(u?.['promptTokenCount']), window: num(m['contextWindowSize']) || null, compactAtPercent: 85 };
      const fcs = partsOf(m).map((p) => obj(p['functionCall'])).filter((f): f is Obj => !!f);
      const t = textOf(m);
      if (t) events.push({ k: 'assistant', text: t, line, ts, closing: fcs.length === 0 });
      for (const f of fcs) {
        const id = str(f['id']);
        const name = str(f['name']) ?? '';
        const args = obj(f['args']);
        if (!id) continue;
        calls.set(id, { name, args, line, ts });
        const command = str(args?.['command'])?.trim();
        if (name === 'run_shell_command' && command) {
          const d = str(args?.['directory']);
          events.push({ k: 'call', id, command, tool: name, cwd: d ? path.resolve(ref.cwd, d) : null, line, ts });
        }
      }
    } else if (type === 'tool_result') {
      const res = obj(m['toolCallResult']);
      const id = str(res?.['callId']) ?? str(obj(partsOf(m).find((p) => p['functionResponse'])?.['functionResponse'])?.['id']);
      const call = id ? calls.get(id) : undefined;
      if (!id || !call) continue;
      const ok = res?.['status'] === 'success';
      if (call.name === 'run_shell_command' && str(call.args?.['command'])?.trim()) {
        const d = str(obj(res?.['resultDisplay'])?.['directory']);
        events.push({ k: 'result', id, result: qwenShellResult(m, call.args?.['is_background'] === true), feedback: null, cwd: d ?? null, line, ts });
      } else if (EDIT_TOOLS.has(call.name) && ok) {
        const f = str(obj(res?.['resultDisplay'])?.['filePath']) ?? str(call.args?.['file_path']);
        if (f) {
          const abs = path.resolve(ref.cwd, f);
          files.push(abs);
          events.push({ k: 'edit', file: abs, line, ts });
        }
      } else if (call.name === 'todo_write' && ok) {
        const shown = obj(res?.['resultDisplay'])?.['todos'];
        events.push({ k: 'todos', items: todoItems(Array.isArray(shown) ? shown : call.args?.['todos']), tool: call.name, line, ts });
        todosLine = line;
      }
    } else if (m['subtype'] === 'chat_compression') {
      // After a compaction the new size is the reading until the next call.
      const info = obj(obj(m['systemPayload'])?.['info']);
      const before = usage as LogUsage | null;
      if (before && num(info?.['newTokenCount']) > 0) usage = { ...before, line, at: str(m['timestamp']) ?? before.at, used: num(info?.['newTokenCount']) };
    }
  }
  // The live todo list Qwen keeps beside the log wins over the last list written through the log.
  const live = await fs.readFile(todosFile(ref), 'utf8').then((t) => obj(JSON.parse(t)), () => undefined);
  if (live && Array.isArray(live['todos']) && (str(live['sessionId']) ?? ref.sessionId) === ref.sessionId) {
    events.push({ k: 'todos', items: todoItems(live['todos']), tool: 'todo_write', line: todosLine ?? 1, ts: lastTs + 1 });
  }
  return { events, files, model, version, usage, badLines, notRead, unknown, credentials: creds.list() };
}

export const QWEN_FORMAT: LogFormat = {
  companions: (ref) => [todosFile(ref)],
  read: readQwenLog,
};
