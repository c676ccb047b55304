/**
 * Kilo Code's own store since its rebuild on the OpenCode engine (FORMATS: vscode-agents "Late 2026",
 * K1–K6): one SQLite database `kilo.db` (WAL mode) shared by the VS Code extension and the `kilo` CLI,
 * with every session of every folder in its `session` / `message` / `part` / `todo` tables. The
 * folder's session is the newest top-level, unarchived one whose `directory` is the folder (or inside
 * it); its requests, closing words, commands (`bash` tool parts, exit code in `state.metadata.exit`),
 * edits, todo list and per-message token usage are read from a snapshot read where the file lies
 * (./sqliteSnapshot), so the agent is never locked out and a transaction still being written is never seen.
 *
 * OpenCode's `opencode.db` is the same schema family (FORMATS: more-agents §1): one reader serves both,
 * told which agent wrote the database (`DbAgent`), so each is named as itself.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { round1 } from '../context/claude';
import { modelInfo } from '../context/models';
import type { ContextResult } from '../context/types';
import { redact } from '../redact';
import { CredentialStore, credentialsInJson } from './credentials';
import type { SessionFacts } from './model';
import type { SqliteImage, SqliteRow, SqliteValue } from './sqliteBtree';
import type { SqliteSnapshot } from './sqliteSnapshot';
import { keptChanging, openSqliteSnapshot, SqliteChanged, snapshotKey } from './sqliteSnapshot';
import type { ModelLimits } from './opencodeConfig';
import { opencodeModelLimits } from './opencodeConfig';
import { callName } from './taskCredentials';
import type { CommandResult } from './accumulator';
import type { Obj, TaskEvent } from './vscodeTask';
import { factsOfEvents, num, obj, str, textJson } from './vscodeTask';

/** `kilo.db` where Kilo keeps it: `$KILO_DB`, else `$XDG_DATA_HOME/kilo/kilo.db`, else `~/.local/share/kilo/kilo.db` (every OS). */
export function defaultKiloDbPath(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  const explicit = env['KILO_DB'];
  if (explicit && explicit !== ':memory:') return explicit;
  return path.join(env['XDG_DATA_HOME'] || path.join(home, '.local', 'share'), 'kilo', 'kilo.db');
}

/** The agents that keep their sessions in this schema: Kilo Code (`kilo.db`) and OpenCode (`opencode.db`). */
export type DbAgent = 'kilo' | 'opencode';

const DB_NAME: Record<DbAgent, string> = { kilo: 'Kilo Code', opencode: 'OpenCode' };

/** True for a Kilo Code database (a `.db` file) rather than a task's JSON file. */
export function isKiloDbFile(file: string): boolean {
  return file.endsWith('.db');
}

const snapshots = new Map<string, { key: string; snap: Promise<SqliteSnapshot> }>();

/** Closes a snapshot that is no longer the current one (its reads afterwards throw `SqliteChanged`, and are done again). */
function retire(snap: Promise<SqliteSnapshot>): void {
  snap.then((s) => s.close(), () => undefined).catch(() => undefined);
}

/**
 * The current snapshot of a database, shared by discovery and the readers: taken again only when the
 * database or its WAL moved (the one it replaces is closed). Its files stay open while it is current.
 */
export async function kiloSnapshot(file: string): Promise<SqliteSnapshot> {
  const key = await snapshotKey(file);
  const cached = snapshots.get(file);
  if (cached?.key === key) return cached.snap;
  if (cached) retire(cached.snap);
  const snap = openSqliteSnapshot(file);
  snapshots.set(file, { key, snap });
  snap.catch(() => {
    if (snapshots.get(file)?.snap === snap) snapshots.delete(file);
  });
  return snap;
}

/**
 * `read` run on the current snapshot of a database; when a checkpoint wrote the file under it, the
 * snapshot is dropped and the read done again on a new one (up to 3 times, then a one-sentence error).
 */
export async function readKiloDb<T>(file: string, read: (snap: SqliteSnapshot) => T): Promise<T> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const snap = await kiloSnapshot(file);
    try {
      return read(snap);
    } catch (err) {
      if (!(err instanceof SqliteChanged)) throw err;
      const cached = snapshots.get(file);
      if (cached && (await cached.snap.catch(() => null)) === snap) {
        snapshots.delete(file);
        retire(cached.snap);
      }
    }
  }
  throw keptChanging(file);
}

/** Closes every cached snapshot (their files); the next read takes new ones. */
export async function closeKiloSnapshots(): Promise<void> {
  const all = [...snapshots.values()];
  snapshots.clear();
  await Promise.all(all.map(({ snap }) => snap.then((s) => s.close(), () => undefined)));
}

/** A JSON object column (`data`), or undefined. */
function json(v: SqliteValue | undefined): Obj | undefined {
  return typeof v === 'string' ? textJson(v) : undefined;
}

/** One top-level session of the database. */
export interface KiloSession {
  id: string;
  directory: string;
  title: string;
  version: string | null;
  /** The newest message's time, else the session's `time_updated` (epoch ms). */
  activeMs: number;
}

/**
 * The top-level, unarchived sessions with their folder, newest first. Activity is the newest message
 * (`time_updated` also moves on background syncs); a schema without `session.directory` (upstream
 * OpenCode dropped it) falls back to the project's worktree.
 */
export function kiloSessions(db: SqliteImage): KiloSession[] {
  const cached = sessionLists.get(db);
  if (cached) return cached;
  const last = new Map<string, number>();
  for (const [id, list] of messageIndex(db)) last.set(id, list[list.length - 1]?.at ?? 0);
  const withDir = db.has('session', ['directory']);
  const worktrees = withDir ? null : new Map(db.rows('project', ['id', 'worktree']).map((p) => [String(p['id']), p['worktree']]));
  const list = db
    .rows('session', ['id', 'project_id', 'parent_id', 'time_archived', 'title', 'version', 'time_updated', ...(withDir ? ['directory'] : [])])
    .filter((r) => r['parent_id'] === null && r['time_archived'] === null)
    .map((r) => ({ r, dir: withDir ? r['directory'] : worktrees?.get(String(r['project_id'])) }))
    .filter(({ r, dir }) => typeof dir === 'string' && typeof r['id'] === 'string')
    .map(({ r, dir }) => ({ id: r['id'] as string, directory: dir as string, title: str(r['title']) ?? '', version: str(r['version']) ?? null, activeMs: last.get(r['id'] as string) ?? num(r['time_updated']) }))
    .sort((a, b) => b.activeMs - a.activeMs);
  sessionLists.set(db, list);
  return list;
}

/** The session list of a snapshot, read once (discovery and the readers ask for it on every refresh). */
const sessionLists = new WeakMap<SqliteImage, KiloSession[]>();

/** A message row: its id and time decoded, its JSON only when asked for. */
interface MessageRef {
  id: string;
  at: number;
  data(): SqliteValue;
}

const messageIndexes = new WeakMap<SqliteImage, Map<string, MessageRef[]>>();

/** Every message of a snapshot by session, in the agent's order (`time_created, id`): one pass over the table. */
function messageIndex(db: SqliteImage): Map<string, MessageRef[]> {
  const cached = messageIndexes.get(db);
  if (cached) return cached;
  const out = new Map<string, MessageRef[]>();
  for (const r of db.rowRefs('message', ['id', 'session_id', 'time_created'])) {
    const session = String(r.row['session_id']);
    const list = out.get(session) ?? [];
    list.push({ id: String(r.row['id']), at: num(r.row['time_created']), data: () => r.get('data') });
    out.set(session, list);
  }
  for (const list of out.values()) list.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  messageIndexes.set(db, out);
  return out;
}

/** Rows in the order the agent reads them (`ORDER BY a, b`). */
function ordered(rows: SqliteRow[], a: string, b: string): SqliteRow[] {
  const key = (r: SqliteRow, k: string) => r[k] ?? '';
  return rows.sort((x, y) => {
    const [xa, ya, xb, yb] = [key(x, a), key(y, a), key(x, b), key(y, b)];
    return xa < ya ? -1 : xa > ya ? 1 : xb < yb ? -1 : xb > yb ? 1 : 0;
  });
}

interface MessageRow {
  id: string;
  at: number;
  data: Obj;
  /** 1-based position among the session's messages: what a "line" of a database session means. */
  line: number;
}

interface PartRow {
  id: string;
  messageId: string;
  at: number;
  raw: string;
  data: Obj;
}

function sessionRows(db: SqliteImage, id: string): { messages: MessageRow[]; parts: Map<string, PartRow[]> } {
  const where = { column: 'session_id', equals: id };
  const list = messageIndex(db).get(id) ?? [];
  // One read operation for every message's JSON: the file is checked once, after them all.
  const messages = db.read(() => list.map((m, i) => ({ id: m.id, at: m.at, data: json(m.data()) ?? {}, line: i + 1 })));
  const parts = new Map<string, PartRow[]>();
  for (const r of ordered(db.rows('part', ['id', 'message_id', 'time_created', 'data'], where), 'message_id', 'id')) {
    const p: PartRow = { id: String(r['id']), messageId: String(r['message_id']), at: num(r['time_created']), raw: typeof r['data'] === 'string' ? r['data'] : '', data: json(r['data']) ?? {} };
    const list = parts.get(p.messageId) ?? [];
    list.push(p);
    parts.set(p.messageId, list);
  }
  return { messages, parts };
}

/** The text parts of a message a person wrote or read (not synthetic or ignored). */
function textOf(parts: readonly PartRow[]): string {
  return parts
    .filter((p) => p.data['type'] === 'text' && p.data['synthetic'] !== true && p.data['ignored'] !== true)
    .map((p) => str(p.data['text']) ?? '')
    .filter((t) => t.trim())
    .join('\n\n');
}

/** A `bash` tool part's outcome: `state.metadata.exit`, null when killed (timeout, abort); `error` when the tool failed. */
export function kiloBashResult(state: Obj): CommandResult {
  const status = str(state['status']);
  const meta = obj(state['metadata']);
  const output = str(state['output']) ?? str(meta?.['output']) ?? '';
  if (status === 'error') return { exit: null, unfinished: 'error', error: str(state['error']) ?? 'the tool failed', stdout: output };
  if (status !== 'completed') return { exit: null, unfinished: 'running', error: 'still running when the session was last saved; no exit status', stdout: output };
  const exit = meta?.['exit'];
  if (typeof exit === 'number' && Number.isFinite(exit)) return { exit, stdout: output };
  const killed = /<shell_metadata>([\s\S]*?)(?:<\/shell_metadata>|$)/.exec(output)?.[1]?.trim();
  const timeout = killed ? /exceeding timeout/i.test(killed) : false;
  return { exit: null, unfinished: timeout ? 'timeout' : 'interrupted', error: killed || 'the command was killed; no exit code', stdout: output };
}

const EDIT_TOOLS = new Set(['edit', 'write', 'apply_patch', 'multiedit']);

/** The files an edit tool part changed (absolute), when it completed. */
function editedFiles(data: Obj, cwd: string): string[] {
  const state = obj(data['state']);
  if (!state || state['status'] !== 'completed' || !EDIT_TOOLS.has(str(data['tool']) ?? '')) return [];
  const out: string[] = [];
  const p = str(obj(state['input'])?.['filePath']);
  if (p) out.push(p);
  const files = obj(state['metadata'])?.['files'];
  if (Array.isArray(files)) for (const f of files) {
    const name = str(f) ?? str(obj(f)?.['filePath']) ?? str(obj(f)?.['file']);
    if (name) out.push(name);
  }
  return out.map((f) => (path.isAbsolute(f) ? f : path.resolve(cwd, f)));
}

/** Every credential in the session's message and part rows (a message's "line" is its position). */
function kiloCredentials(file: string, messages: readonly MessageRow[], parts: ReadonlyMap<string, PartRow[]>) {
  const store = new CredentialStore();
  for (const m of messages) {
    for (const p of parts.get(m.id) ?? []) {
      const hits = credentialsInJson(p.raw);
      if (!hits.length) continue;
      const type = p.data['type'];
      let by: string | null = null;
      if (type === 'tool') by = callName(str(p.data['tool']) ?? 'tool', obj(obj(p.data['state'])?.['input']));
      else if (type === 'text' || type === 'reasoning') by = m.data['role'] === 'user' ? 'a user message' : 'assistant text';
      store.add(hits, { file, line: m.line, index: m.line - 1 }, by ? { printedBy: redact(by), line: 0 } : null);
    }
  }
  return store.credentials();
}

/** The facts of one session of a Kilo Code (or OpenCode) database. `file` is the database. */
export function kiloSessionFacts(db: SqliteImage, session: KiloSession, file: string, agent: DbAgent = 'kilo'): SessionFacts {
  const { messages, parts } = sessionRows(db, session.id);
  const cwd = session.directory;
  const events: TaskEvent[] = [];
  const files: string[] = [];
  let model: string | null = null;
  for (const m of messages) {
    const own = parts.get(m.id) ?? [];
    if (m.data['role'] === 'user') {
      const text = textOf(own);
      if (text) events.push({ k: 'request', text, line: m.line, ts: m.at });
      continue;
    }
    if (m.data['role'] !== 'assistant') continue;
    model = str(m.data['modelID']) ?? model;
    const closing = m.data['finish'] === 'stop';
    const texts: PartRow[] = [];
    for (const p of own) {
      if (p.data['type'] === 'text') texts.push(p);
      else if (p.data['type'] === 'patch' && Array.isArray(p.data['files'])) files.push(...p.data['files'].filter((f): f is string => typeof f === 'string'));
      else if (p.data['type'] === 'tool') {
        const edited = editedFiles(p.data, cwd);
        files.push(...edited);
        for (const f of edited) events.push({ k: 'edit', file: f, line: m.line, ts: p.at });
        const state = obj(p.data['state']);
        const input = obj(state?.['input']);
        const command = str(input?.['command'])?.trim();
        if (p.data['tool'] !== 'bash' || !state || !command) continue;
        const id = str(p.data['callID']) ?? p.id;
        // The row's time orders the call among the message's parts; the tool's own end time, when later, the result.
        const end = num(obj(state['time'])?.['end']);
        events.push({ k: 'call', id, command, tool: 'bash', cwd: str(input?.['workdir']) ?? null, line: m.line, ts: p.at });
        events.push({ k: 'result', id, result: kiloBashResult(state), feedback: null, cwd: null, line: m.line, ts: Math.max(end, p.at) });
      }
    }
    const text = textOf(texts);
    if (text) events.push({ k: 'assistant', text, line: m.line, ts: Math.max(...texts.map((t) => t.at)), closing });
  }
  const todos = db.has('todo') ? ordered(db.rows('todo', ['content', 'status', 'position', 'time_updated'], { column: 'session_id', equals: session.id }), 'position', 'position') : [];
  if (todos.length) {
    const last = messages[messages.length - 1];
    events.push({ k: 'todos', items: todos.map((t) => ({ content: String(t['content']), status: str(t['status']) ?? 'pending' })), tool: 'todowrite', line: last?.line ?? 1, ts: Math.max(...todos.map((t) => num(t['time_updated']))) });
  }
  const snap = { taskId: session.id, dir: path.dirname(file), ui: null, uiLines: [], api: null, apiLines: [], metadata: null, cwd };
  const facts = factsOfEvents(agent, snap, file, events, { cwd, files: [...new Set(files)], model, version: session.version });
  const credentials = kiloCredentials(file, messages, parts);
  return credentials.length ? { ...facts, credentials } : facts;
}

/** OpenCode's output reserve when it decides to compact (`OUTPUT_TOKEN_MAX`) [?: FORMATS K4 gives no threshold]. */
const KILO_OUTPUT_RESERVE = 32_000;

/**
 * The meter of one session: the newest assistant message with `tokens.output > 0` (usage is per model
 * step, so messages are never summed): `tokens.total`, else input + output + reasoning + cache. The
 * window is not stored: it comes from the model table (or the override).
 */
export function kiloReading(db: SqliteImage, sessionId: string, file: string, windowOverride?: number, agent: DbAgent = 'kilo', limits?: ModelLimits | null): ContextResult {
  const base = { source: agent, sessionId, file };
  const name = DB_NAME[agent];
  const list = messageIndex(db).get(sessionId) ?? [];
  let row: MessageRef | undefined;
  let data: Obj | undefined;
  db.read(() => {
    for (let i = list.length - 1; i >= 0 && !row; i--) {
      const d = json(list[i]?.data());
      if (d?.['role'] === 'assistant' && num(obj(d['tokens'])?.['output']) > 0) [row, data] = [list[i], d];
    }
  });
  const tokens = obj(data?.['tokens']);
  if (!row || !data || !tokens) return { known: false, ...base, reason: `no assistant message with token usage in the ${name} session yet` };
  const cache = obj(tokens['cache']);
  const prompt = num(tokens['input']) + num(cache?.['read']) + num(cache?.['write']);
  // OpenCode's `input` leaves cached tokens out: the prompt is input + cache read + cache write (FORMATS: more-agents §1.3).
  const used = agent === 'opencode' && prompt > 0 ? prompt : num(tokens['total']) || prompt + num(tokens['output']) + num(tokens['reasoning']);
  const model = str(data['modelID']) ?? null;
  const info = modelInfo(model);
  // The window: the setting, else what the agent's own config declares for the model, else the model table; never a guess.
  const window = windowOverride && windowOverride > 0 ? windowOverride : (limits?.context ?? info?.contextWindow);
  if (!window) {
    const why = model ? `the model "${redact(model)}" is not in Session Handoff's model table${agent === 'opencode' ? ' nor given a limit.context in opencode.json' : ''}, so its context window is unknown` : `the ${name} session names no model, so its context window is unknown`;
    return { known: false, ...base, reason: `${why} (set sessionHandoff.context.windowOverride)` };
  }
  const reserve = limits?.context && limits.output ? Math.min(limits.output, window) : Math.min(info?.maxTokens ?? KILO_OUTPUT_RESERVE, KILO_OUTPUT_RESERVE);
  const at = num(obj(data['time'])?.['completed']) || row.at;
  return {
    known: true,
    ...base,
    ...(model ? { model } : {}),
    usedTokens: used,
    windowTokens: window,
    percent: round1((used / window) * 100),
    compactAtPercent: round1(((window - reserve) / window) * 100),
    at: at ? new Date(at).toISOString() : '',
  };
}

/**
 * One session of a Kilo Code database, kept up to date: the snapshot is taken again only when the
 * database or its WAL moved, and facts are rebuilt only then.
 */
export class KiloDbReader {
  private cached: { key: string; facts: SessionFacts | null } | null = null;

  constructor(
    readonly file: string,
    readonly sessionId: string,
    readonly agent: DbAgent = 'kilo',
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async facts(): Promise<SessionFacts | null> {
    return readKiloDb(this.file, (snap) => {
      if (this.cached?.key === snap.key) return this.cached.facts;
      const session = kiloSessions(snap.db).find((s) => s.id === this.sessionId) ?? null;
      const facts = session ? kiloSessionFacts(snap.db, session, this.file, this.agent) : null;
      this.cached = { key: snap.key, facts };
      return facts;
    });
  }

  async reading(o: { windowOverride?: number } = {}): Promise<ContextResult> {
    try {
      const model = this.agent === 'opencode' && !(o.windowOverride && o.windowOverride > 0) ? await readKiloDb(this.file, (snap) => this.newestModel(snap.db)) : null;
      const limits = model ? await opencodeModelLimits(model.provider, model.model, model.cwd, this.env, this.env['HOME'] || os.homedir()) : null;
      return await readKiloDb(this.file, (snap) => {
        const r = kiloReading(snap.db, this.sessionId, this.file, o.windowOverride, this.agent, limits);
        return snap.note ? { ...r, warnings: [...(r.warnings ?? []), `${this.file}: ${snap.note}`] } : r;
      });
    } catch (err) {
      return { known: false, source: this.agent, sessionId: this.sessionId, file: this.file, reason: (err as Error).message };
    }
  }

  /** The session's newest model (provider and model of its newest assistant message), for the limits OpenCode's config declares for it. */
  private newestModel(db: SqliteImage): { provider: string; model: string; cwd: string | null } | null {
    const list = messageIndex(db).get(this.sessionId) ?? [];
    return db.read(() => {
      for (let i = list.length - 1; i >= 0; i--) {
        const d = json(list[i]?.data());
        const provider = str(d?.['providerID']);
        const model = str(d?.['modelID']);
        if (d?.['role'] !== 'assistant' || !provider || !model) continue;
        const cwd = str(obj(d['path'])?.['cwd']) ?? kiloSessions(db).find((s) => s.id === this.sessionId)?.directory ?? null;
        return { provider, model, cwd };
      }
      return null;
    });
  }
}
