/**
 * Gemini CLI (FORMATS: more-agents §2, @google/gemini-cli 0.61.0). Its sessions are
 * `~/.gemini/tmp/<project>/chats/session-<start>-<id8>.jsonl` (`GEMINI_CLI_HOME` replaces the home
 * folder); the project folder name comes from `~/.gemini/projects.json` (`{projects: {root: name}}`),
 * the `.project_root` marker inside it, or (older versions) the sha256 of the root. The file holds no
 * working directory: the project root is the session's folder.
 *
 * The log is append-only but keyed by message id: a message is written again whenever it changes
 * (its tool calls, their results), the last copy wins and the order is that of first appearance; a
 * `$set` with `messages` replaces the whole list (compression, the session preamble), `$rewindTo`
 * drops a message and everything after it. A command's exit code is in its result text (`Exit Code:
 * N`), written only when it is not 0; the todo list is `write_todos`' whole list; the prompt size is
 * each reply's `tokens.input`; the window is not stored (the model table, or the setting).
 */
import { createHash } from 'node:crypto';
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

/** `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini` (the variable replaces the home folder). */
export function defaultGeminiDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return path.join(env['GEMINI_CLI_HOME'] || home, '.gemini');
}

/** A Gemini CLI session of the folder. */
export interface GeminiRef {
  file: string;
  sessionId: string;
  /** The project root the session belongs to. */
  cwd: string;
  mtimeMs: number;
  size: number;
}

/** A session file's first line: its id and kind (`main` / `subagent`); an Error saying why it is not one. */
const sessionHead = headReader<{ sessionId: string; kind: string }>((o) => {
  const id = str(o?.['sessionId']);
  return id ? { sessionId: id, kind: str(o?.['kind']) ?? 'main' } : new Error('line 1 is not the session metadata Gemini CLI writes (no sessionId)');
});

const texts = new Map<string, { key: string; text: string | null }>();

/** A small text file, trimmed, or null when it is not there; read again only when it changes (discovery runs on every look). */
async function smallText(file: string): Promise<string | null> {
  const st = await statOrNull(file);
  if (!st?.isFile() || st.size > 64 * 1024) return null;
  const key = `${st.size}:${st.mtimeMs}:${st.ino}`;
  const cached = texts.get(file);
  if (cached?.key === key) return cached.text;
  const text = (await fs.readFile(file, 'utf8').catch(() => '')).trim() || null;
  texts.set(file, { key, text });
  if (texts.size > 4096) texts.delete(texts.keys().next().value as string);
  return text;
}

/**
 * The main sessions of every Gemini project whose root is the folder or inside it, and the files that
 * are there but could not be read (named with why).
 */
export async function geminiSessionsOf(folder: string, dir: string, inside: (folder: string, cwd: string) => boolean): Promise<{ refs: GeminiRef[]; problems: string[] }> {
  const tmp = path.join(dir, 'tmp');
  const problems: string[] = [];
  const names = await listDir(tmp);
  if (!names.length) return { refs: [], problems };
  const roots = new Map<string, string>();
  const registry = path.join(dir, 'projects.json');
  const text = await smallText(registry);
  if (text) {
    try {
      const projects = obj(obj(JSON.parse(text))?.['projects']);
      for (const [root, name] of Object.entries(projects ?? {})) if (typeof name === 'string') roots.set(name, root);
    } catch (err) {
      problems.push(`Gemini CLI's ${registry} exists but could not be read: ${(err as Error).message}`);
    }
  }
  const hash = createHash('sha256').update(folder).digest('hex');
  const out: GeminiRef[] = [];
  for (const name of names) {
    const root = (await smallText(path.join(tmp, name, '.project_root'))) ?? roots.get(name) ?? (name === hash ? folder : null);
    if (!root || !inside(folder, root)) continue;
    const chats = path.join(tmp, name, 'chats');
    for (const n of await listDir(chats)) {
      if (!/^session-.*\.jsonl$/.test(n)) continue;
      const file = path.join(chats, n);
      const st = await statOrNull(file);
      if (!st) continue;
      const head = await sessionHead(file, `${st.size}:${st.mtimeMs}:${st.ino}`);
      if (head instanceof Error) {
        problems.push(`Gemini CLI's ${file} exists but could not be read: ${head.message}`);
        continue;
      }
      if (head.kind === 'subagent') continue;
      out.push({ file, sessionId: head.sessionId, cwd: root, mtimeMs: st.mtimeMs, size: st.size });
    }
  }
  return { refs: out, problems };
}

const MESSAGE_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);
const EDIT_TOOLS = new Set(['replace', 'write_file', 'edit']);
const IGNORED_USER = /^(?:<session_context>|<hook_context>|\/|\?)/;

/** A message's parts: `content` as a list of parts, or a string as one text part. */
function parts(content: unknown): Obj[] {
  if (typeof content === 'string') return [{ text: content }];
  return Array.isArray(content) ? content.map(obj).filter((p): p is Obj => !!p) : [];
}

const textOf = (content: unknown): string =>
  parts(content)
    .map((p) => str(p['text']) ?? '')
    .join('')
    .trim();

/** A tool call's result text (`functionResponse.response.output`, else its error). */
function resultText(tc: Obj): string | null {
  for (const r of Array.isArray(tc['result']) ? tc['result'] : []) {
    const resp = obj(obj(obj(r)?.['functionResponse'])?.['response']);
    const t = str(resp?.['output']) ?? str(resp?.['error']);
    if (t !== undefined) return t;
  }
  return null;
}

/**
 * A shell call's outcome from its result text: `Output: …` then, only where they apply, `Error: …`,
 * `Exit Code: N`, `Signal: …` and `Process Group PGID: …`. No `Exit Code` line in a result of that
 * shape is exit 0 (the shell tool writes it only when it is not 0); a result of another shape gives
 * no exit code, never a guessed one.
 */
export function geminiShellResult(tc: Obj): CommandResult | null {
  const status = str(tc['status']);
  const text = resultText(tc);
  const display = str(tc['resultDisplay']);
  if (text === null && (!status || status === 'executing' || status === 'scheduled' || status === 'validating' || status === 'awaiting_approval')) return null;
  const body = (text ?? '').replace(/^\s*<untrusted_context>\n?/, '').replace(/\n?<\/untrusted_context>\s*$/, '');
  const output = display || (/(?:^|\n)Output: ?([\s\S]*?)(?=\n(?:Error|Exit Code|Signal|Process Group PGID): |$)/.exec(body)?.[1] ?? body);
  if (status === 'cancelled' || /^Command was cancelled/m.test(body)) return { exit: null, unfinished: 'cancelled', stdout: output };
  if (status === 'error') return { exit: null, unfinished: 'error', error: body.split('\n')[0] || 'the command could not be run', stdout: output };
  const bg = /Command moved to background \(PID: (\d+)\)/.exec(body);
  if (bg) return { exit: null, unfinished: 'background', background: { taskId: bg[1] ?? null }, stdout: output };
  if (/^Command timed out/m.test(body)) return { exit: null, unfinished: 'timeout', stdout: output };
  if (!/(?:^|\n)Output:/.test(body)) return { exit: null, unfinished: 'no-result', error: 'Gemini CLI recorded no exit code for this run', stdout: output };
  // The trailer after the output: the lines from the last `Output:` block's end.
  const trailer = body.slice(body.lastIndexOf('\nOutput:') + 1).split('\n').reverse();
  let exit: number | null = null;
  let signal: string | null = null;
  let error: string | null = null;
  for (const line of trailer) {
    const m = /^(Exit Code|Signal|Error|Process Group PGID): (.*)$/.exec(line);
    if (!m) break;
    const v = (m[2] ?? '').trim();
    if (m[1] === 'Exit Code' && /^-?\d+$/.test(v)) exit = Number(v);
    else if (m[1] === 'Signal' && v && v !== '(none)') signal = v;
    else if (m[1] === 'Error' && v && v !== '(none)') error = v;
  }
  if (exit !== null) return { exit, stdout: output };
  if (signal) return { exit: null, unfinished: 'interrupted', error: `stopped by signal ${signal}`, stdout: output };
  if (error) return { exit: null, unfinished: 'error', error, stdout: output };
  return { exit: 0, stdout: output };
}

/** `write_todos`' items as the task list has them (a cancelled or blocked item says so). */
function todoItems(args: Obj | undefined): { content: string; status: string }[] {
  const list = Array.isArray(args?.['todos']) ? (args['todos'] as unknown[]) : [];
  return list
    .map(obj)
    .filter((t): t is Obj => !!t && !!str(t['description'])?.trim())
    .map((t) => {
      const status = str(t['status']) ?? 'pending';
      const content = (str(t['description']) ?? '').trim();
      return status === 'cancelled' || status === 'blocked' ? { content: `${content} (${status})`, status: 'pending' } : { content, status };
    });
}

/** The compression threshold of `settings.json` (`model.compressionThreshold`, default 0.5 of the window). */
async function compressionPercent(dir: string): Promise<number> {
  const text = await smallText(path.join(dir, 'settings.json'));
  let t = 0.5;
  try {
    const v = obj(obj(text ? JSON.parse(text) : null)?.['model'])?.['compressionThreshold'];
    if (typeof v === 'number' && v > 0 && v <= 1) t = v;
  } catch {
    // A settings file Gemini could not read either: its default applies.
  }
  return Math.round(t * 1000) / 10;
}

/** The `.gemini` folder a session file is in (`<dir>/tmp/<project>/chats/<file>`). */
const dirOfSession = (file: string): string => path.resolve(path.dirname(file), '..', '..', '..');

/** Reads one Gemini CLI session log. */
export async function readGeminiLog(ref: Pick<LogRef, 'file' | 'cwd'>, text: string): Promise<LogRead> {
  const { records, badLines, notRead } = logRecords(text, ref.file);
  const unknown: string[] = [];
  const creds = new LineCredentials();
  let order: string[] = [];
  const messages = new Map<string, LogRecord>();
  const put = (m: Obj, r: LogRecord): void => {
    const id = str(m['id']);
    if (!id) return;
    if (!messages.has(id)) order.push(id);
    messages.set(id, { o: m, line: r.line, raw: r.raw });
  };
  const calls = new Map<string, string>();
  records.forEach((r, i) => {
    const o = r.o;
    if (i === 0 && str(o['sessionId']) && o['type'] === undefined) return;
    if ('$set' in o) {
      const set = obj(o['$set']);
      if (Array.isArray(set?.['messages'])) {
        order = [];
        messages.clear();
        for (const m of set['messages'] as unknown[]) if (obj(m)) put(obj(m)!, r);
      }
      creds.add(r.raw, r.line, null);
      return;
    }
    if ('$rewindTo' in o) {
      const at = order.indexOf(str(o['$rewindTo']) ?? '');
      if (at >= 0) {
        for (const id of order.slice(at)) messages.delete(id);
        order = order.slice(0, at);
      }
      return;
    }
    const type = str(o['type']);
    if (str(o['id']) && type && MESSAGE_TYPES.has(type)) {
      put(o, r);
      // What printed a credential: the call a tool result answers, the one call of a reply, else who wrote it.
      const toolCalls = Array.isArray(o['toolCalls']) ? (o['toolCalls'] as unknown[]).map(obj).filter((t): t is Obj => !!t) : [];
      for (const tc of toolCalls) {
        const a = obj(tc['args']);
        const cmd = str(a?.['command']);
        calls.set(str(tc['id']) ?? '', cmd !== undefined ? `\`${shortCommand(cmd)}\`` : `${str(tc['name']) ?? 'tool'}${str(a?.['file_path']) ? ` of ${str(a?.['file_path'])}` : ''}`);
      }
      const response = parts(o['content']).map((p) => str(obj(p['functionResponse'])?.['id'])).find((id) => id);
      const by = response ? (calls.get(response) ?? null) : toolCalls.length === 1 ? (calls.get(str(toolCalls[0]!['id']) ?? '') ?? null) : toolCalls.length ? null : type === 'user' ? 'a user message' : type === 'gemini' ? 'assistant text' : null;
      creds.add(r.raw, r.line, by);
      return;
    }
    unknown.push(type ?? Object.keys(o)[0] ?? 'record');
    creds.add(r.raw, r.line, null);
  });

  const events: TaskEvent[] = [];
  const files: string[] = [];
  let model: string | null = null;
  let usage: Omit<LogUsage, 'compactAtPercent'> | null = null;
  for (const id of order) {
    const rec = messages.get(id);
    if (!rec) continue;
    const m = rec.o;
    const line = rec.line;
    const ts = Date.parse(str(m['timestamp']) ?? '') || line;
    if (m['type'] === 'user') {
      if (parts(m['content']).some((p) => p['functionResponse'])) continue;
      const t = textOf(m['content']);
      if (t && !IGNORED_USER.test(t)) events.push({ k: 'request', text: t, line, ts });
      continue;
    }
    if (m['type'] !== 'gemini') continue;
    model = str(m['model']) ?? model;
    const tokens = obj(m['tokens']);
    if (num(tokens?.['input']) > 0) usage = { line, at: str(m['timestamp']) ?? '', model: str(m['model']) ?? model, used: num(tokens?.['input']), window: null };
    const toolCalls = Array.isArray(m['toolCalls']) ? (m['toolCalls'] as unknown[]).map(obj).filter((t): t is Obj => !!t) : [];
    const t = textOf(m['content']);
    if (t) events.push({ k: 'assistant', text: t, line, ts, closing: toolCalls.length === 0 });
    for (const tc of toolCalls) {
      const callId = str(tc['id']) ?? `${id}:${toolCalls.indexOf(tc)}`;
      const name = str(tc['name']) ?? '';
      const a = obj(tc['args']);
      const at = Date.parse(str(tc['timestamp']) ?? '') || ts;
      if (name === 'run_shell_command') {
        const command = str(a?.['command'])?.trim();
        if (!command) continue;
        const dirPath = str(a?.['dir_path']) ?? str(a?.['directory']);
        const cwd = dirPath ? path.resolve(ref.cwd, dirPath) : null;
        events.push({ k: 'call', id: callId, command, tool: name, cwd, line, ts });
        const result = geminiShellResult(tc);
        if (result) events.push({ k: 'result', id: callId, result, feedback: null, cwd, line, ts: Math.max(at, ts) });
      } else if (EDIT_TOOLS.has(name) && tc['status'] === 'success') {
        const f = str(obj(tc['resultDisplay'])?.['filePath']) ?? str(a?.['file_path']);
        if (!f) continue;
        const abs = path.resolve(ref.cwd, f);
        files.push(abs);
        events.push({ k: 'edit', file: abs, line, ts: Math.max(at, ts) });
      } else if (name === 'write_todos' && tc['status'] !== 'error' && tc['status'] !== 'cancelled') {
        events.push({ k: 'todos', items: todoItems(a), tool: name, line, ts: Math.max(at, ts) });
      }
    }
  }
  const compactAtPercent = usage ? await compressionPercent(dirOfSession(ref.file)) : 100;
  return { events, files, model, version: null, usage: usage ? { ...usage, compactAtPercent } : null, badLines, notRead, unknown, credentials: creds.list() };
}

export const GEMINI_FORMAT: LogFormat = {
  companions: (ref) => [path.join(dirOfSession(ref.file), 'settings.json')],
  read: readGeminiLog,
};
