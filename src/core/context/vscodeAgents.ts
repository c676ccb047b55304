/**
 * Discovery of the agents that live inside VS Code — Cline, Roo Code, Zoo Code and Kilo Code (FORMATS:
 * vscode-agents): each keeps its tasks under VS Code's per-extension global storage
 * (`<user data>/User/globalStorage/<extension id>/tasks/<taskId>/`), per OS and per editor variant
 * (Code, Insiders, VSCodium, Cursor, Windsurf, a remote server). The task of a workspace folder is the
 * newest one whose recorded folder is this one (the agent's own timestamp, else the file's mtime),
 * whatever its age; tasks of other folders are never candidates. Kilo Code's current extension
 * keeps its sessions in one SQLite database instead (`kilo.db`, ../session/kiloDb): its sessions of
 * the folder are candidates alike, the database being their file. OpenCode's `opencode.db` (the same
 * schema) is read the same way.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileHandle } from '../fsx';
import { listDir, openRegular, statOrNull } from '../fsx';
import { defaultClineSessionsDir, sdkManifest } from '../session/clineSdk';
import type { DbAgent } from '../session/kiloDb';
import { defaultKiloDbPath, kiloSessions, readKiloDb } from '../session/kiloDb';
import { defaultOpencodeDbPath } from '../session/opencodeConfig';
import type { CopilotChatGeneration } from '../session/copilotChat';
import { sessionsInWorkspace, workspaceFolderOf, workspaceStorageRoots } from '../session/copilotChat';
import type { LogAgent } from '../session/agentLog';
import { LOG_AGENT_NAMES } from '../session/agentLog';
import { defaultGeminiDir, geminiSessionsOf } from '../session/gemini';
import { defaultQwenDir, qwenProjectName, qwenSessionsOf } from '../session/qwen';
import { copilotCliSessionsOf, defaultCopilotHome } from '../session/copilotCli';
import { scanArrayObjects } from '../session/jsonStream';
import { JsonDocFile } from '../session/taskJson';
import { obj, str } from '../session/vscodeTask';
import type { ContextSource } from './types';

/** The agents read through task discovery: the VS Code extensions, and OpenCode (a terminal agent with Kilo Code's database). */
export type VscodeAgent = 'cline' | 'roo' | 'zoo' | 'kilo' | 'opencode' | 'copilot-chat' | LogAgent;
export const VSCODE_AGENTS: readonly VscodeAgent[] = ['cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli'];

/** The extension ids, which name their global storage folders (lower-cased). */
export const EXTENSION_IDS: Record<VscodeAgent, string> = {
  cline: 'saoudrizwan.claude-dev',
  roo: 'rooveterinaryinc.roo-cline',
  zoo: 'zoocodeorganization.zoo-code',
  kilo: 'kilocode.kilo-code',
  // OpenCode keeps no task folders in the editor's storage (its editor extension drives the terminal agent).
  opencode: '',
  // Copilot Chat's sessions are VS Code's own, in the workspace's storage (../session/copilotChat).
  'copilot-chat': '',
  // The terminal agents with one log per session keep them in their own home folder (../session/agentLog).
  gemini: '',
  qwen: '',
  'copilot-cli': '',
};

const NAMES: Record<VscodeAgent, string> = { cline: 'Cline', roo: 'Roo Code', zoo: 'Zoo Code', kilo: 'Kilo Code', opencode: 'OpenCode', 'copilot-chat': 'Copilot Chat', ...LOG_AGENT_NAMES };

export function isVscodeAgent(source: ContextSource | string): source is VscodeAgent {
  return (VSCODE_AGENTS as readonly string[]).includes(source);
}

/** Where to look for the VS Code agents' tasks (all optional). */
export interface VscodeAgentOptions {
  /** A Cline storage folder (holding `tasks/` and `state/`) to look in as well. */
  clineDir?: string;
  /** A Roo Code storage folder (its global storage, or its `roo-cline.customStoragePath`) to look in as well. */
  rooDir?: string;
  /** A Zoo Code storage folder (its global storage, or its `zoo-code.customStoragePath`) to look in as well. */
  zooDir?: string;
  /** A Kilo Code storage folder (its older, Roo-shaped task folders) to look in as well. */
  kiloDir?: string;
  /** Kilo Code's database; default `$KILO_DB`, else `$XDG_DATA_HOME/kilo/kilo.db`, else `~/.local/share/kilo/kilo.db`. */
  kiloDb?: string;
  /** OpenCode's database; default `$OPENCODE_DB`, else `$XDG_DATA_HOME/opencode/opencode.db`, else `~/.local/share/opencode/opencode.db`. */
  opencodeDb?: string;
  /** The `User/workspaceStorage` folders Copilot Chat's sessions are looked for in; default: those next to the global storage folders. */
  workspaceStorageRoots?: readonly string[];
  /** Gemini CLI's folder; default `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
  geminiDir?: string;
  /** Qwen Code's runtime folder; default `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`. */
  qwenDir?: string;
  /** Copilot CLI's folder; default `$COPILOT_HOME`, else `~/.copilot`. */
  copilotHome?: string;
  /** The `User/globalStorage` folders to look in; default: every editor variant's on this OS. */
  globalStorageRoots?: readonly string[];
  /** More `User/globalStorage` folders (the running editor's own, which may be none of the usual ones). */
  extraGlobalStorageRoots?: readonly string[];
  /** Cline's SDK bundle sessions folder; default `$CLINE_SESSION_DATA_DIR` … else `~/.cline/data/sessions`. */
  clineSessionsDir?: string;
  /** How many days a task may sit unchanged and still be the folder's session (default: any age; the newest of the folder wins). */
  taskDays?: number;
  /** The model Roo Code / Kilo Code use: they keep it in their settings, not in the task. */
  rooModel?: string;
}

/**
 * VS Code's `User/globalStorage` folders on this OS for Code, Code - Insiders, VSCodium, Cursor and
 * Windsurf, and the remote server's (`~/.vscode-server/data/User/globalStorage`).
 */
export function defaultGlobalStorageRoots(platform: NodeJS.Platform = process.platform, home = os.homedir(), env: NodeJS.ProcessEnv = process.env): string[] {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const base =
    platform === 'darwin'
      ? p.join(home, 'Library', 'Application Support')
      : platform === 'win32'
        ? env['APPDATA'] || p.join(home, 'AppData', 'Roaming')
        : env['XDG_CONFIG_HOME'] || p.join(home, '.config');
  const variants = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'];
  return [...variants.map((v) => p.join(base, v, 'User', 'globalStorage')), p.join(home, '.vscode-server', 'data', 'User', 'globalStorage')];
}

/** The storage folders of one agent, in order, without duplicates. */
export function agentStorageDirs(agent: VscodeAgent, o: VscodeAgentOptions): string[] {
  if (!EXTENSION_IDS[agent]) return [];
  const explicit = { cline: o.clineDir, roo: o.rooDir, zoo: o.zooDir, kilo: o.kiloDir }[agent as 'cline' | 'roo' | 'zoo' | 'kilo'];
  const roots = [...(o.globalStorageRoots ?? defaultGlobalStorageRoots()), ...(o.extraGlobalStorageRoots ?? [])];
  const dirs = [...(explicit ? [explicit] : []), ...roots.map((r) => path.join(r, EXTENSION_IDS[agent]))];
  return [...new Set(dirs.map((d) => path.resolve(d)))];
}

/** The terminal agents read from one log per session. */
export function isLogAgent(agent: string): agent is LogAgent {
  return Object.prototype.hasOwnProperty.call(LOG_AGENT_NAMES, agent);
}

/** A task that belongs to the folder. */
export interface TaskCandidate {
  source: VscodeAgent;
  /** The task's `ui_messages.json` (Kilo Code's database for a session of its `kilo.db`). */
  file: string;
  dir: string;
  sessionId: string;
  cwd: string;
  /** The newer of the agent's own timestamp and the file's mtime (epoch ms). */
  mtimeMs: number;
  size: number;
  /** Copilot Chat: which of its stores the file is. */
  generation?: CopilotChatGeneration;
}

interface TaskInfo {
  id: string;
  ts: number;
  cwd: string | null;
}


/** True when `cwd` is `folder` or inside it (case-insensitive on Windows). */
function inside(folder: string, cwd: string): boolean {
  const norm = (p: string) => (process.platform === 'win32' ? path.resolve(p).toLowerCase() : path.resolve(p));
  const rel = path.relative(norm(folder), norm(cwd));
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * Cline task histories as last read, by file: shared by every discovery of the process, so a command
 * that looks for the session twice (the meter, then the packet's reader) streams a big history once.
 */
const histories = new Map<string, { key: string; read: Promise<Map<string, TaskInfo> | null>; last: Map<string, TaskInfo> | null }>();

/** The fields of a Cline HistoryItem that `historyItem` reads. */
const HISTORY_KEYS: ReadonlySet<string> = new Set(['id', 'ts', 'cwdOnTaskInitialization', 'shadowGitConfigWorkTree']);

/** Cline's task history by id; null when it is not one complete array (half-written, broken, unreadable). */
async function scanHistory(handle: FileHandle): Promise<Map<string, TaskInfo> | null> {
  const infos = new Map<string, TaskInfo>();
  // Most tasks share a few folders: one string each.
  const folders = new Map<string, string>();
  try {
    const ok = await scanArrayObjects(handle, HISTORY_KEYS, (fields) => {
      const info = historyItem(fields, 'cline');
      if (!info) return;
      if (info.cwd) info.cwd = folders.get(info.cwd) ?? (folders.set(info.cwd, info.cwd), info.cwd);
      infos.set(info.id, info);
    });
    return ok ? infos : null;
  } catch {
    return null;
  }
}

/** A HistoryItem's id, timestamp and folder (Cline `cwdOnTaskInitialization` / `shadowGitConfigWorkTree`, Roo `workspace`). */
function historyItem(v: unknown, agent: VscodeAgent): TaskInfo | null {
  const h = obj(v);
  const id = str(h?.['id']);
  if (!h || !id) return null;
  const cwd = agent === 'cline' ? (str(h['cwdOnTaskInitialization']) ?? str(h['shadowGitConfigWorkTree'])) : str(h['workspace']);
  return { id, ts: typeof h['ts'] === 'number' && Number.isFinite(h['ts']) ? h['ts'] : 0, cwd: cwd ?? null };
}

/** Finds the newest task of a folder across the enabled agents; files are read again only when they change. */
export class VscodeTaskDiscovery {
  private readonly indexes = new Map<string, JsonDocFile>();
  private readonly taskInfo = new Map<string, { key: string; info: TaskInfo | null }>();

  constructor(
    private readonly folder: string,
    private readonly options: VscodeAgentOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Where the agents' tasks are looked for, for people. */
  places(agents: readonly VscodeAgent[]): string[] {
    return agents.map((a) => {
      const dirs = agentStorageDirs(a, this.options).map((d) => path.join(d, 'tasks'));
      if (a === 'cline') dirs.push(this.options.clineSessionsDir ?? defaultClineSessionsDir());
      if (a === 'kilo' || a === 'opencode') dirs.push(this.dbFile(a));
      if (a === 'copilot-chat') dirs.push(...this.workspaceRoots().map((r) => path.join(r, '<hash of this folder>', '{chatSessions,GitHub.copilot-chat/transcripts,state.vscdb}')));
      if (a === 'gemini') dirs.push(path.join(this.geminiDir(), 'tmp', '<project of this folder>', 'chats', 'session-*.jsonl'));
      if (a === 'copilot-cli') dirs.push(path.join(this.copilotHome(), 'session-state', '<id>', 'events.jsonl (workspace.yaml cwd)'));
      if (a === 'qwen') dirs.push(path.join(this.qwenDir(), 'projects', qwenProjectName(path.resolve(this.folder)), 'chats', '*.jsonl'));
      return `${NAMES[a]}: ${dirs.join(', ')}`;
    });
  }

  /** The folders to watch for task changes (those that exist now). */
  async watchDirs(agents: readonly VscodeAgent[]): Promise<string[]> {
    const dirs = agents.flatMap((a) => agentStorageDirs(a, this.options));
    if (agents.includes('cline')) dirs.push(this.options.clineSessionsDir ?? defaultClineSessionsDir());
    for (const a of ['kilo', 'opencode'] as const) if (agents.includes(a)) dirs.push(path.dirname(this.dbFile(a)));
    if (agents.includes('copilot-chat')) dirs.push(...(await this.workspaceDirs()));
    if (agents.includes('gemini')) dirs.push(path.join(this.geminiDir(), 'tmp'));
    if (agents.includes('qwen')) dirs.push(path.join(this.qwenDir(), 'projects'), path.join(this.qwenDir(), 'todos'));
    if (agents.includes('copilot-cli')) dirs.push(path.join(this.copilotHome(), 'session-state'));
    const stats = await Promise.all(dirs.map(async (d) => ({ d, st: await statOrNull(d) })));
    return stats.filter((s) => s.st?.isDirectory()).map((s) => s.d);
  }

  /** The newest task of the folder per agent (at most one each), newest first. */
  async find(agents: readonly VscodeAgent[]): Promise<TaskCandidate[]> {
    const found = await Promise.all(agents.map((a) => this.findAgent(a)));
    // Zoo Code imports Roo Code's history: the same task in both folders is one session (the newer copy).
    const seen = new Set<string>();
    return found
      .filter((c): c is TaskCandidate => !!c)
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .filter((c) => !(c.source === 'roo' || c.source === 'zoo') || (!seen.has(c.sessionId) && !!seen.add(c.sessionId)));
  }

  /** Every task of the folder (any age), per agent, newest first: for listing what they hold. */
  async all(agents: readonly VscodeAgent[]): Promise<TaskCandidate[]> {
    const found = await Promise.all(
      agents.map(async (a) => {
        const all = (await Promise.all(agentStorageDirs(a, this.options).map((d) => this.tasksIn(a, d)))).flat();
        if (a === 'cline') all.push(...(await this.sdkSessions()));
        if (a === 'kilo' || a === 'opencode') all.push(...(await this.dbSessions(a)));
        if (a === 'copilot-chat') all.push(...(await this.copilotChatSessions()));
        if (isLogAgent(a)) all.push(...(await this.logSessions(a)));
        return all;
      }),
    );
    // One database holds many sessions: a candidate is its file and its session.
    const seen = new Set<string>();
    return found
      .flat()
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .filter((c) => !seen.has(`${c.file}\n${c.sessionId}`) && !!seen.add(`${c.file}\n${c.sessionId}`));
  }

  private async findAgent(agent: VscodeAgent): Promise<TaskCandidate | undefined> {
    const all = (await Promise.all(agentStorageDirs(agent, this.options).map((d) => this.tasksIn(agent, d)))).flat();
    if (agent === 'cline') all.push(...(await this.sdkSessions()));
    if (agent === 'kilo' || agent === 'opencode') all.push(...(await this.dbSessions(agent)));
    if (agent === 'copilot-chat') all.push(...(await this.copilotChatSessions()));
    if (isLogAgent(agent)) all.push(...(await this.logSessions(agent)));
    // The newest task of the folder, whatever its age (a week off work does not lose the session); `taskDays` limits it only when set.
    const days = this.options.taskDays;
    const cutoff = days !== undefined && days > 0 ? this.now().getTime() - days * 86_400_000 : -Infinity;
    const ranked = all.sort((a, b) => b.mtimeMs - a.mtimeMs);
    return ranked.find((c) => c.mtimeMs >= cutoff);
  }

  /** The tasks of the folder in one storage folder. */
  private async tasksIn(agent: VscodeAgent, storage: string): Promise<TaskCandidate[]> {
    const tasksDir = path.join(storage, 'tasks');
    const ids = (await listDir(tasksDir)).filter((n) => !n.startsWith('_') && !n.startsWith('.'));
    if (!ids.length) return [];
    const index = await this.index(agent, storage);
    const infos = await Promise.all(ids.map(async (id) => index.get(id) ?? (await this.fallbackInfo(agent, path.join(tasksDir, id), id))));
    const mine = infos.filter((i): i is TaskInfo => !!i?.cwd && inside(this.folder, i.cwd));
    const out = await Promise.all(
      mine.map(async (i): Promise<TaskCandidate | null> => {
        const dir = path.join(tasksDir, i.id);
        const file = path.join(dir, 'ui_messages.json');
        const st = await statOrNull(file);
        // A FIFO or a folder in its place stays a candidate: its reader says what it is, located.
        if (!st) return null;
        return { source: agent, file, dir, sessionId: i.id, cwd: i.cwd as string, mtimeMs: Math.max(i.ts, st.mtimeMs), size: st.isFile() ? st.size : 0 };
      }),
    );
    return out.filter((c): c is TaskCandidate => !!c);
  }

  /**
   * Sessions of Cline's SDK bundle (`<sessions>/<id>/<id>.json` manifests) whose `workspace_root` or
   * `cwd` is this folder; the candidate file is the session's messages file.
   */
  private async sdkSessions(): Promise<TaskCandidate[]> {
    const root = this.options.clineSessionsDir ?? defaultClineSessionsDir();
    const ids = (await listDir(root)).filter((n) => !n.startsWith('.'));
    const out = await Promise.all(
      ids.map(async (id): Promise<TaskCandidate | null> => {
        const dir = path.join(root, id);
        const manifestFile = path.join(dir, `${id}.json`);
        let doc = this.indexes.get(manifestFile);
        if (!doc) {
          doc = new JsonDocFile(manifestFile);
          this.indexes.set(manifestFile, doc);
        }
        const m = sdkManifest((await doc.read()).value, dir);
        if (!m?.cwd || !inside(this.folder, m.cwd)) return null;
        const st = await statOrNull(m.messagesFile);
        if (!st?.isFile()) return null;
        return { source: 'cline', file: m.messagesFile, dir, sessionId: m.sessionId, cwd: m.cwd, mtimeMs: Math.max(m.endedAt, m.startedAt, st.mtimeMs), size: st.size };
      }),
    );
    return out.filter((c): c is TaskCandidate => !!c);
  }

  /** The `workspaceStorage` folders: the option, else those next to every global storage folder. */
  private workspaceRoots(): string[] {
    if (this.options.workspaceStorageRoots) return this.options.workspaceStorageRoots.map((r) => path.resolve(r));
    return workspaceStorageRoots([...(this.options.globalStorageRoots ?? defaultGlobalStorageRoots()), ...(this.options.extraGlobalStorageRoots ?? [])]);
  }

  private readonly workspaceJson = new Map<string, { key: string; folder: string | null }>();

  /** The workspace hash folders whose `workspace.json` names this folder (or one inside it). */
  private async workspaceDirs(): Promise<string[]> {
    const out: string[] = [];
    for (const root of this.workspaceRoots()) {
      for (const hash of await listDir(root)) {
        const file = path.join(root, hash, 'workspace.json');
        const st = await statOrNull(file);
        if (!st?.isFile()) continue;
        const key = `${st.size}:${st.mtimeMs}`;
        let cached = this.workspaceJson.get(file);
        if (cached?.key !== key) {
          const doc = await new JsonDocFile(file).read();
          cached = { key, folder: workspaceFolderOf(doc.value) };
          this.workspaceJson.set(file, cached);
        }
        if (cached.folder && inside(this.folder, cached.folder)) out.push(path.join(root, hash));
      }
    }
    return out;
  }

  /** Copilot Chat's sessions of the folder, every generation; the same session in two stores once (the newer file). */
  private async copilotChatSessions(): Promise<TaskCandidate[]> {
    const refs = (await Promise.all((await this.workspaceDirs()).map(async (d) => {
      const folder = this.workspaceJson.get(path.join(d, 'workspace.json'))?.folder ?? this.folder;
      return sessionsInWorkspace(d, folder).catch((err: Error) => {
        this.unreadable.set(d, `Copilot Chat's ${path.join(d, 'state.vscdb')} exists but could not be read: ${err.message}`);
        return [];
      });
    }))).flat();
    const seen = new Set<string>();
    return refs
      .sort((a, b) => b.mtimeMs - a.mtimeMs)
      .filter((r) => !seen.has(r.sessionId) && !!seen.add(r.sessionId))
      .map((r) => ({ source: 'copilot-chat' as const, file: r.file, dir: path.dirname(r.file), sessionId: r.sessionId, cwd: r.cwd, mtimeMs: r.mtimeMs, size: r.size, generation: r.generation }));
  }

  private geminiDir(): string {
    return path.resolve(this.options.geminiDir ?? defaultGeminiDir());
  }

  private qwenDir(): string {
    return path.resolve(this.options.qwenDir ?? defaultQwenDir());
  }

  private copilotHome(): string {
    return path.resolve(this.options.copilotHome ?? defaultCopilotHome());
  }

  /**
   * The sessions of the folder of a terminal agent that keeps one log per session (Gemini CLI, Qwen Code, Copilot CLI); the
   * files that are there but could not be read are named in `problems()`.
   */
  private async logSessions(agent: LogAgent): Promise<TaskCandidate[]> {
    const key = `log:${agent}`;
    const { refs, problems } =
      agent === 'gemini' ? await geminiSessionsOf(this.folder, this.geminiDir(), inside) : agent === 'qwen' ? await qwenSessionsOf(this.folder, this.qwenDir(), inside) : await copilotCliSessionsOf(this.folder, this.copilotHome(), inside);
    if (problems.length) this.unreadable.set(key, problems.join('; '));
    else this.unreadable.delete(key);
    return refs.map((r) => ({ source: agent, file: r.file, dir: path.dirname(r.file), sessionId: r.sessionId, cwd: r.cwd, mtimeMs: r.mtimeMs, size: r.size }));
  }

  /** Kilo Code's or OpenCode's database. */
  private dbFile(agent: DbAgent): string {
    return path.resolve(agent === 'kilo' ? (this.options.kiloDb ?? defaultKiloDbPath()) : (this.options.opencodeDb ?? defaultOpencodeDbPath()));
  }

  private readonly unreadable = new Map<string, string>();

  /**
   * The stores that exist but could not be read on the last look, named with why ("<agent>'s
   * <file> could not be read: …"): never silent, so no one is told there is no session when there may be one.
   */
  problems(): string[] {
    return [...this.unreadable.values()];
  }

  /**
   * The sessions of the folder in Kilo Code's or OpenCode's database (top-level, not archived), newest
   * activity first. An unreadable database gives none, and is named in `problems()`.
   */
  private async dbSessions(agent: DbAgent): Promise<TaskCandidate[]> {
    const file = this.dbFile(agent);
    const st = await statOrNull(file);
    this.unreadable.delete(file);
    if (!st) return [];
    try {
      if (!st.isFile()) throw new Error('it is not a regular file');
      const sessions = await readKiloDb(file, (snap) => kiloSessions(snap.db));
      return sessions.filter((s) => inside(this.folder, s.directory)).map((s) => ({ source: agent, file, dir: path.dirname(file), sessionId: s.id, cwd: s.directory, mtimeMs: s.activeMs, size: st.size }));
    } catch (err) {
      this.unreadable.set(file, `${NAMES[agent]}'s ${file} exists but could not be read: ${(err as Error).message}`);
      return [];
    }
  }

  /** The agent's index of tasks (Cline `state/taskHistory.json`, Roo `tasks/_index.json`) by id; empty when unreadable. */
  private async index(agent: VscodeAgent, storage: string): Promise<Map<string, TaskInfo>> {
    if (agent === 'cline') return this.clineHistory(path.join(storage, 'state', 'taskHistory.json'));
    const file = path.join(storage, 'tasks', '_index.json');
    let doc = this.indexes.get(file);
    if (!doc) {
      doc = new JsonDocFile(file);
      this.indexes.set(file, doc);
    }
    // A half-written index keeps its last valid version; with none, each task folder is asked.
    const state = await doc.read();
    const list = obj(state.value)?.['entries'];
    const out = new Map<string, TaskInfo>();
    if (Array.isArray(list)) {
      for (const v of list) {
        const info = historyItem(v, agent);
        if (info) out.set(info.id, info);
      }
    }
    return out;
  }

  /**
   * Cline's task history by id, streamed: it grows to hundreds of MB (each task's text), of which only
   * each entry's id, time and folder are needed (a 100 MB history parsed whole took 2.65 s and 792 MB).
   * Read again only when its size, mtime or inode moved; a half-written or broken one keeps the last
   * complete version (with none, each task folder is asked).
   */
  private async clineHistory(file: string): Promise<Map<string, TaskInfo>> {
    const opened = await openRegular(file);
    const cached = histories.get(file);
    if (!opened.ok) {
      if (opened.refusal.kind === 'missing') histories.delete(file);
      return opened.refusal.kind === 'missing' ? new Map() : ((await cached?.read) ?? cached?.last ?? new Map());
    }
    const { handle, size, mtimeMs, ino } = opened.file;
    const key = `${size}:${mtimeMs}:${ino}`;
    try {
      // The same bytes being read by another look (the meter and the packet's reader at once): one read.
      if (cached?.key === key) return (await cached.read) ?? cached.last ?? new Map();
      const last = cached ? ((await cached.read) ?? cached.last) : null;
      const read = scanHistory(handle);
      histories.set(file, { key, read, last });
      return (await read) ?? last ?? new Map();
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /**
   * A task the index does not list (or no index): Roo's own `history_item.json`; for Cline the
   * working directory its first request names in the api history.
   */
  private async fallbackInfo(agent: VscodeAgent, dir: string, id: string): Promise<TaskInfo | null> {
    const file = agent === 'cline' ? path.join(dir, 'api_conversation_history.json') : path.join(dir, 'history_item.json');
    const st = await statOrNull(file);
    if (!st?.isFile()) return null;
    const key = `${st.size}:${st.mtimeMs}`;
    const cached = this.taskInfo.get(file);
    if (cached?.key === key) return cached.info;
    let info: TaskInfo | null = null;
    if (agent === 'cline') {
      const head = await readHead(file, 256 * 1024);
      const m = /# Current Working Directory \(((?:[^"\\)]|\\.)+)\) Files/.exec(head);
      if (m?.[1]) {
        try {
          info = { id, ts: 0, cwd: JSON.parse(`"${m[1]}"`) as string };
        } catch {
          info = null;
        }
      }
    } else {
      const doc = await new JsonDocFile(file).read();
      info = historyItem(doc.value, agent);
      if (info) info = { ...info, id };
    }
    // Caught half-written: not cached, so the next look reads it again.
    if (info) this.taskInfo.set(file, { key, info });
    return info;
  }
}

/** The first bytes of a regular file (a FIFO or device where a task file should be is never opened). */
async function readHead(file: string, max: number): Promise<string> {
  const opened = await openRegular(file);
  if (!opened.ok) return '';
  const { handle } = opened.file;
  try {
    const buf = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buf, 0, max, 0);
    return buf.toString('utf8', 0, bytesRead);
  } catch {
    return '';
  } finally {
    await handle.close().catch(() => undefined);
  }
}
