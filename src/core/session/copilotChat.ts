/**
 * GitHub Copilot Chat inside VS Code (FORMATS: more-agents §5, vscode-agents "GitHub Copilot Chat").
 * Its sessions live in the workspace's storage, `<User>/workspaceStorage/<hash>/`, the hash folder
 * tied to its folder by `workspace.json` (`{"folder": "file:///…"}`). Four generations, any of which
 * one machine may hold:
 *   0. `state.vscdb`, ItemTable key `interactive.sessions`: a JSON array of sessions (before ~2025-03);
 *   1. `chatSessions/<id>.json`: one session object, `version: 3` (to VS Code 1.108);
 *   2. `chatSessions/<id>.jsonl`: a mutation log of that object (VS Code 1.109+), replayed here;
 *   3. `GitHub.copilot-chat/transcripts/<id>.jsonl`: an event log (`session.start`, `user.message`,
 *      `assistant.message`, `tool.execution_*`, `assistant.usage`), the only store on VS Code 1.137.
 * Generations 0–2 store no token usage (the meter is unknown for them, said so); generation 3 stores
 * per-call usage in newer builds, against the model table's window. Generations 0–2 keep a terminal
 * command's exit code where VS Code filled it; generation 3 keeps none (its outcome is text).
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { round1 } from '../context/claude';
import { modelInfo } from '../context/models';
import type { ContextResult } from '../context/types';
import { listDir, statOrNull } from '../fsx';
import { LineCredentials, readFileCapped } from './agentLog';
import type { CommandResult } from './accumulator';
import type { SessionFacts } from './model';
import { readSqlite } from './sqliteSnapshot';
import type { Obj, TaskEvent } from './vscodeTask';
import { factsOfEvents, num, obj, str } from './vscodeTask';

/** Which of the four stores a session file is. */
export type CopilotChatGeneration = 0 | 1 | 2 | 3;

/** One Copilot Chat session of the folder. */
export interface CopilotChatRef {
  file: string;
  sessionId: string;
  generation: CopilotChatGeneration;
  /** The workspace folder its `workspace.json` names. */
  cwd: string;
  mtimeMs: number;
  size: number;
}

/** The `workspaceStorage` folders next to the `globalStorage` ones (the same editor variants). */
export function workspaceStorageRoots(globalStorageRoots: readonly string[]): string[] {
  return [...new Set(globalStorageRoots.map((r) => path.join(path.dirname(r), 'workspaceStorage')))];
}

/** The folder a `workspace.json` names (`folder`, a file URI); null for a multi-root `.code-workspace` or another scheme. */
export function workspaceFolderOf(value: unknown): string | null {
  const uri = str(obj(value)?.['folder']);
  if (!uri?.startsWith('file:')) return null;
  try {
    return fileURLToPath(uri);
  } catch {
    return null;
  }
}

/** The sessions in one workspace hash folder, any generation. */
export async function sessionsInWorkspace(hashDir: string, cwd: string): Promise<CopilotChatRef[]> {
  const out: CopilotChatRef[] = [];
  const add = async (file: string, sessionId: string, generation: CopilotChatGeneration) => {
    const st = await statOrNull(file);
    if (st?.isFile()) out.push({ file, sessionId, generation, cwd, mtimeMs: st.mtimeMs, size: st.size });
  };
  const chat = path.join(hashDir, 'chatSessions');
  for (const n of await listDir(chat)) {
    if (n.endsWith('.jsonl')) await add(path.join(chat, n), n.slice(0, -6), 2);
    else if (n.endsWith('.json')) await add(path.join(chat, n), n.slice(0, -5), 1);
  }
  const transcripts = path.join(hashDir, 'GitHub.copilot-chat', 'transcripts');
  for (const n of await listDir(transcripts)) if (n.endsWith('.jsonl')) await add(path.join(transcripts, n), n.slice(0, -6), 3);
  const vscdb = path.join(hashDir, 'state.vscdb');
  const st = await statOrNull(vscdb);
  if (st?.isFile() && !out.length) {
    // Generation 0 only where no later store exists: its sessions were migrated out of it.
    for (const s of await legacySessions(vscdb)) out.push({ file: vscdb, sessionId: s.id, generation: 0, cwd, mtimeMs: s.at || st.mtimeMs, size: st.size });
  }
  return out;
}

/** The sessions under `interactive.sessions` of a `state.vscdb` (id and last message time). */
async function legacySessions(file: string): Promise<{ id: string; at: number }[]> {
  const list = await legacyArray(file);
  return list.map((s, i) => ({ id: str(s['sessionId']) ?? `interactive-${i}`, at: num(s['lastMessageDate']) || num(s['creationDate']) }));
}

async function legacyArray(file: string): Promise<Obj[]> {
  const v = await readSqlite(file, (db) => (db.has('ItemTable', ['key', 'value']) ? db.rows('ItemTable', ['key', 'value'], { column: 'key', equals: 'interactive.sessions' })[0]?.['value'] : undefined));
  const text = typeof v === 'string' ? v : v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : '';
  if (!text) return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.map((s) => obj(s)).filter((s): s is Obj => !!s) : [];
}

/** Replays a generation-2 mutation log onto its first whole object: set (1), push (2, truncating at `i`), delete (3). */
export function replayMutationLog(text: string): { value: Obj | undefined; badLines: number[] } {
  let root: unknown;
  const badLines: number[] = [];
  const lines = text.split('\n');
  lines.forEach((line, n) => {
    if (!line.trim()) return;
    let e: Obj | undefined;
    try {
      e = obj(JSON.parse(line));
    } catch {
      // A torn last line is being written; any other bad line is counted.
      if (n < lines.length - 1) badLines.push(n + 1);
      return;
    }
    if (!e) return;
    const kind = e['kind'];
    if (kind === 0) {
      root = structuredClone(e['v']);
      return;
    }
    const keys = Array.isArray(e['k']) ? (e['k'] as unknown[]) : [];
    if (!keys.length || root === undefined) return;
    let at: unknown = root;
    for (const k of keys.slice(0, -1)) at = (at as Record<string | number, unknown> | undefined)?.[k as string];
    if (!at || typeof at !== 'object') return;
    const last = keys[keys.length - 1] as string | number;
    const target = at as Record<string | number, unknown>;
    if (kind === 1) target[last] = structuredClone(e['v']);
    else if (kind === 3) delete target[last];
    else if (kind === 2) {
      const arr = Array.isArray(target[last]) ? (target[last] as unknown[]) : [];
      if (typeof e['i'] === 'number') arr.length = Math.min(arr.length, e['i']);
      if (Array.isArray(e['v'])) arr.push(...(structuredClone(e['v']) as unknown[]));
      target[last] = arr;
    }
  });
  return { value: obj(root), badLines };
}

/** A path from a VS Code URI (`{scheme, path, fsPath}` or a `file:` string). */
function uriPath(v: unknown): string | null {
  if (typeof v === 'string') return workspaceFolderOf({ folder: v });
  const o = obj(v);
  if (!o || (o['scheme'] !== undefined && o['scheme'] !== 'file')) return null;
  return str(o['fsPath']) ?? str(o['path']) ?? null;
}

/** A response part's markdown (`markdownContent`, or an older part that is only `{value}`). */
function partText(p: Obj): string | null {
  if (p['kind'] === 'markdownContent') return str(obj(p['content'])?.['value']) ?? str(p['content']) ?? null;
  if (p['kind'] === undefined && typeof p['value'] === 'string') return p['value'];
  return null;
}

/** A terminal tool invocation's command and outcome; null for another part. */
function terminalCall(p: Obj): { id: string; command: string; result: CommandResult } | null {
  const data = obj(p['toolSpecificData']);
  if (p['kind'] !== 'toolInvocationSerialized' || data?.['kind'] !== 'terminal') return null;
  const line = obj(data['commandLine']);
  const command = (str(line?.['userEdited']) ?? str(line?.['toolEdited']) ?? str(line?.['original']) ?? str(data['command']))?.trim();
  if (!command) return null;
  const output = str(obj(data['terminalCommandOutput'])?.['text']) ?? '';
  const exit = obj(data['terminalCommandState'])?.['exitCode'];
  const result: CommandResult =
    typeof exit === 'number' && Number.isFinite(exit)
      ? { exit, stdout: output }
      : p['isConfirmed'] === false
        ? { exit: null, rejected: true, stdout: output }
        : { exit: null, unfinished: 'no-result', error: 'Copilot Chat recorded no exit code for this run', stdout: output };
  return { id: str(p['toolCallId']) ?? command, command, result };
}

/** The events of a session object (generations 0–2): one "line" per request. */
export function sessionObjectEvents(session: Obj): { events: TaskEvent[]; files: string[]; model: string | null } {
  const events: TaskEvent[] = [];
  const files: string[] = [];
  let model: string | null = null;
  const requests = Array.isArray(session['requests']) ? session['requests'] : [];
  requests.forEach((raw, i) => {
    const r = obj(raw);
    if (!r) return;
    const line = i + 1;
    const ts = num(r['timestamp']) || num(session['creationDate']) + i;
    model = str(r['modelId'])?.replace(/^copilot\//, '') ?? model;
    const text = str(obj(r['message'])?.['text'])?.trim();
    if (text) events.push({ k: 'request', text, line, ts });
    let said: string[] = [];
    const flush = (closing: boolean) => {
      const t = said.join('').trim();
      if (t) events.push({ k: 'assistant', text: t, line, ts, closing });
      said = [];
    };
    for (const rawPart of Array.isArray(r['response']) ? r['response'] : []) {
      const p = obj(rawPart);
      if (!p) continue;
      const t = partText(p);
      if (t !== null) {
        said.push(t);
        continue;
      }
      const call = terminalCall(p);
      if (call) {
        flush(false);
        events.push({ k: 'call', id: call.id, command: call.command, tool: str(p['toolId']) ?? 'run_in_terminal', cwd: null, line, ts });
        events.push({ k: 'result', id: call.id, result: call.result, feedback: null, cwd: null, line, ts });
        continue;
      }
      if (p['kind'] === 'textEditGroup') {
        const f = uriPath(p['uri']);
        if (f) {
          files.push(f);
          events.push({ k: 'edit', file: f, line, ts });
        }
      }
    }
    // A request that finished (it has a result and no error) ends with its closing words.
    flush(!!obj(r['result']) && !obj(obj(r['result'])?.['errorDetails']));
    for (const ev of Array.isArray(r['editedFileEvents']) ? r['editedFileEvents'] : []) {
      const f = uriPath(obj(ev)?.['uri']);
      if (f) files.push(f);
    }
  });
  return { events, files, model };
}

const EDIT_TOOLS = new Set(['replace_string_in_file', 'multi_replace_string_in_file', 'create_file', 'insert_edit_into_file', 'apply_patch', 'edit_notebook_file']);
const TERMINAL_TOOLS = new Set(['run_in_terminal', 'copilot_runInTerminal']);

/** Tool arguments: an object, or the JSON string a transcript keeps. */
function args(v: unknown): Obj | undefined {
  if (typeof v === 'string') {
    try {
      return obj(JSON.parse(v));
    } catch {
      return undefined;
    }
  }
  return obj(v);
}

/** A generation-3 transcript, parsed: its events, the newest usage entry, and where it was. */
export interface TranscriptRead {
  events: TaskEvent[];
  files: string[];
  model: string | null;
  cwd: string | null;
  version: string | null;
  usage: { line: number; at: string; model: string | null; input: number; cacheRead: number; cacheWrite: number } | null;
  badLines: number[];
}

/** The events of a transcript (generation 3): one line per entry. */
export function transcriptEvents(text: string): TranscriptRead {
  const out: TranscriptRead = { events: [], files: [], model: null, cwd: null, version: null, usage: null, badLines: [] };
  const calls = new Map<string, { tool: string; a: Obj | undefined }>();
  const lines = text.split('\n');
  lines.forEach((raw, n) => {
    if (!raw.trim()) return;
    let e: Obj | undefined;
    try {
      e = obj(JSON.parse(raw));
    } catch {
      if (n < lines.length - 1) out.badLines.push(n + 1);
      return;
    }
    const data = obj(e?.['data']);
    if (!e || !data) return;
    const line = n + 1;
    const ts = Date.parse(str(e['timestamp']) ?? '') || line;
    switch (e['type']) {
      case 'session.start':
        out.cwd = str(obj(data['context'])?.['cwd']) ?? null;
        out.version = str(data['copilotVersion']) ?? null;
        break;
      case 'user.message': {
        const t = str(data['content'])?.trim();
        if (t) out.events.push({ k: 'request', text: t, line, ts });
        break;
      }
      case 'assistant.message': {
        const t = str(data['content'])?.trim();
        const asks = Array.isArray(data['toolRequests']) && data['toolRequests'].length > 0;
        if (t) out.events.push({ k: 'assistant', text: t, line, ts, closing: !asks });
        break;
      }
      case 'tool.execution_start': {
        const id = str(data['toolCallId']);
        const tool = str(data['toolName']) ?? '';
        if (!id) break;
        const a = args(data['arguments']);
        calls.set(id, { tool, a });
        const command = str(a?.['command'])?.trim();
        if (TERMINAL_TOOLS.has(tool) && command) out.events.push({ k: 'call', id, command, tool, cwd: null, line, ts });
        break;
      }
      case 'tool.execution_complete': {
        const id = str(data['toolCallId']);
        const call = id ? calls.get(id) : undefined;
        if (!id || !call) break;
        const content = str(obj(data['result'])?.['content']) ?? '';
        if (TERMINAL_TOOLS.has(call.tool) && str(call.a?.['command'])?.trim()) {
          // The transcript keeps no exit code: a run that did not fail is "no exit code", never taken for 0.
          const result: CommandResult = data['success'] === false ? { exit: null, unfinished: 'error', error: content.split('\n')[0] || 'the tool failed', stdout: content } : { exit: null, unfinished: 'no-result', error: 'the Copilot Chat transcript keeps no exit code', stdout: content };
          out.events.push({ k: 'result', id, result, feedback: null, cwd: null, line, ts });
        } else if (EDIT_TOOLS.has(call.tool) && data['success'] !== false) {
          const f = str(call.a?.['filePath']);
          if (f) {
            out.files.push(f);
            out.events.push({ k: 'edit', file: f, line, ts });
          }
        }
        break;
      }
      case 'assistant.usage': {
        const model = str(data['model']) ?? null;
        out.model = model ?? out.model;
        if (num(data['inputTokens']) > 0) out.usage = { line, at: str(e['timestamp']) ?? '', model, input: num(data['inputTokens']), cacheRead: num(data['cacheReadTokens']), cacheWrite: num(data['cacheCreationInputTokens']) };
        break;
      }
    }
  });
  return out;
}

const NAME = 'Copilot Chat';

/** One Copilot Chat session file: its facts and its meter, read again when the file changes. */
export class CopilotChatReader {
  private cached: { key: string; facts: SessionFacts | null; reading: (o: number | undefined) => ContextResult } | null = null;

  constructor(readonly ref: Pick<CopilotChatRef, 'file' | 'sessionId' | 'generation' | 'cwd'>) {}

  get file(): string {
    return this.ref.file;
  }

  get sessionId(): string {
    return this.ref.sessionId;
  }

  private async load(): Promise<NonNullable<CopilotChatReader['cached']>> {
    const st = await statOrNull(this.file);
    const key = st ? `${st.size}:${st.mtimeMs}:${st.ino}` : 'missing';
    if (this.cached?.key === key) return this.cached;
    const base = { source: 'copilot-chat' as const, sessionId: this.sessionId, file: this.file };
    const snap = { taskId: this.sessionId, dir: path.dirname(this.file), ui: null, uiLines: [], api: null, apiLines: [], metadata: null, cwd: this.ref.cwd };
    let facts: SessionFacts | null = null;
    let reading: (o: number | undefined) => ContextResult = () => ({ known: false, ...base, reason: `${NAME} stores no token usage in ${path.basename(this.file)} (only its newer transcripts do), so the context used is unknown` });
    let text: string | null = null;
    if (this.ref.generation === 3) {
      text = await readFileCapped(this.file);
      const t = transcriptEvents(text);
      facts = factsOfEvents('copilot-chat', snap, this.file, t.events, { cwd: this.ref.cwd, files: [...new Set(t.files)], model: t.model, version: t.version });
      if (t.badLines.length) facts = { ...facts, badLines: t.badLines };
      const usage = t.usage;
      reading = (override) => {
        if (!usage) return { known: false, ...base, reason: `no assistant.usage entry in the ${NAME} transcript yet (older Copilot Chat builds write none), so the context used is unknown` };
        const window = override && override > 0 ? override : modelInfo(usage.model)?.contextWindow;
        if (!window) return { known: false, ...base, reason: `${usage.model ? `the model "${usage.model}" is not in Session Handoff's model table` : 'the usage entry names no model'}, and ${NAME} stores no window, so its context window is unknown (set sessionHandoff.context.windowOverride)` };
        const used = usage.input + usage.cacheWrite;
        return { known: true, ...base, ...(usage.model ? { model: usage.model } : {}), usedTokens: used, windowTokens: window, percent: round1((used / window) * 100), compactAtPercent: 100, at: usage.at };
      };
    } else {
      let session: Obj | undefined;
      let badLines: number[] = [];
      if (this.ref.generation === 0) session = (await legacyArray(this.file)).find((s, i) => (str(s['sessionId']) ?? `interactive-${i}`) === this.sessionId);
      else if (this.ref.generation === 1) session = obj(JSON.parse((text = await readFileCapped(this.file))));
      else ({ value: session, badLines } = replayMutationLog((text = await readFileCapped(this.file))));
      if (session) {
        const { events, files, model } = sessionObjectEvents(session);
        facts = factsOfEvents('copilot-chat', snap, this.file, events, { cwd: this.ref.cwd, files: [...new Set(files)], model });
        if (badLines.length) facts = { ...facts, badLines };
      }
    }
    // Credentials in the session file's string values, by line (the legacy state.vscdb is not scanned).
    if (facts && text !== null) {
      const found = new LineCredentials();
      text.split('\n').forEach((l, i) => {
        if (l.trim()) found.add(l, i + 1, null);
      });
      const credentials = found.list();
      if (credentials.length) facts = { ...facts, credentials };
    }
    this.cached = { key, facts, reading };
    return this.cached;
  }

  async facts(): Promise<SessionFacts | null> {
    return (await this.load()).facts;
  }

  async reading(o: { windowOverride?: number } = {}): Promise<ContextResult> {
    try {
      return (await this.load()).reading(o.windowOverride);
    } catch (err) {
      return { known: false, source: 'copilot-chat', sessionId: this.sessionId, file: this.file, reason: `${this.file} could not be read: ${(err as Error).message}` };
    }
  }
}
