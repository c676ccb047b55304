import type { Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listDir, statOrNull } from '../fsx';
import { agentsRead } from '../session/model';
import { GENERIC_USAGE_FILE } from './usage';
import type { Head } from './heads';
import { claudeHead, codexHead, CwdScanner } from './heads';
import type { ContextSource } from './types';
import type { VscodeAgentOptions } from './vscodeAgents';
import { isVscodeAgent, VscodeTaskDiscovery } from './vscodeAgents';

/** One agent log that belongs to the workspace folder. */
export interface SessionCandidate {
  source: ContextSource;
  file: string;
  /** From the log's head where it says (Claude `sessionId`, Codex `session_meta.payload.id`). */
  sessionId?: string;
  cwd?: string;
  mtimeMs: number;
  size: number;
}

export interface DiscoveryOptions extends VscodeAgentOptions {
  /** The workspace folder (absolute). */
  folder: string;
  /** The workbench dir (absolute) where an agent or script may keep a `context_usage.json`; defaults to `folder`. */
  workbenchDir?: string;
  /**
   * The output dir (absolute) where the statusLine keeps its own `context_usage.json`, out of the
   * repository root; defaults to `outputs/handoff` in the workbench.
   */
  outputDir?: string;
  /** Claude Code's config dir; default `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  claudeConfigDir?: string;
  /**
   * The transcript folder name a host chose for its sessions (`CLAUDE_CODE_PROJECT_DIR_NAME`, Claude
   * Code 2.1.234+): looked in besides the name Claude Code derives from the folder. Default: the variable.
   */
  claudeProjectDirName?: string;
  /** Codex's home; default `$CODEX_HOME`, else `~/.codex`. */
  codexHome?: string;
  /**
   * Kept for callers of earlier versions: Codex rollouts are now found in every date folder (a resumed
   * session appends to its old rollout), newest modification first.
   */
  codexDays?: number;
  /** Which sources to look for (default Claude Code, Codex and the generic file; `ALL_SOURCES` adds Cline, Roo Code, Kilo Code). */
  sources?: readonly ContextSource[];
  /** The clock, for tests. */
  now?: () => Date;
}


/** Every source (the CLI and the settings' default); without `sources`, discovery looks for the first three only. */
export const ALL_SOURCES: readonly ContextSource[] = ['claude', 'codex', 'generic', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli'];
const DEFAULT_SOURCES: readonly ContextSource[] = ['claude', 'codex', 'generic'];

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function defaultClaudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['CLAUDE_CONFIG_DIR'] || path.join(os.homedir(), '.claude');
}

/** `$CODEX_HOME`, else `~/.codex`. */
export function defaultCodexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env['CODEX_HOME'] || path.join(os.homedir(), '.codex');
}

/** True when `cwd` is `folder` or inside it. */
export function isInsideFolder(folder: string, cwd: string): boolean {
  // The same name composed or decomposed (macOS) is the same folder.
  const norm = (p: string) => (process.platform === 'win32' ? path.resolve(p).toLowerCase() : path.resolve(p)).normalize('NFC');
  const rel = path.relative(norm(folder), norm(cwd));
  // `..` or `../…` leaves the folder; a folder inside it may well be named `..app`. The folder itself is `''`.
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** Claude Code's project folder name for a cwd, before shortening: every non-alphanumeric character becomes `-`. */
export function claudeProjectSlug(cwd: string): string {
  return path.resolve(cwd).replace(/[^a-zA-Z0-9]/g, '-');
}

/** Past this many characters Claude Code cuts the slug and appends a hash of the cwd. */
const CLAUDE_SLUG_MAX = 200;

/**
 * The transcript folder name Claude Code gives a session started in `cwd`: the slug, or for a slug
 * longer than 200 characters its first 200 and `-` + a base-36 hash of the path (a 31-multiplier
 * string hash over its UTF-16 code units, as Claude Code computes it).
 */
export function claudeProjectDirName(cwd: string): string {
  const abs = path.resolve(cwd);
  const slug = claudeProjectSlug(abs);
  if (slug.length <= CLAUDE_SLUG_MAX) return slug;
  let h = 0;
  for (let i = 0; i < abs.length; i++) h = ((h << 5) - h + abs.charCodeAt(i)) | 0;
  return `${slug.slice(0, CLAUDE_SLUG_MAX)}-${Math.abs(h).toString(36)}`;
}

/**
 * The loose prefix every transcript folder of `folder` (or of a folder inside it) starts with: its slug,
 * cut where Claude Code cuts long ones (folders sharing that prefix are told apart by their cwd).
 */
export function claudeDirPrefix(folder: string): string {
  return looseSlug(claudeProjectSlug(folder).slice(0, CLAUDE_SLUG_MAX));
}

/** `CLAUDE_CODE_PROJECT_DIR_NAME` when it names one folder (no path), else undefined. */
export function claudeHostDirName(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = env['CLAUDE_CODE_PROJECT_DIR_NAME']?.trim();
  return name && !/[\\/]/.test(name) && name !== '.' && name !== '..' ? name : undefined;
}

/**
 * A project folder name with every run of `-` made one: a character outside ASCII becomes one or two
 * dashes (a surrogate pair, a decomposed accent on macOS), so names are compared this way.
 */
export function looseSlug(name: string): string {
  return name.replace(/-+/g, '-');
}

/** The folder and every folder above it. */
function withAncestors(folder: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(folder); ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
}

/** Files that did not match by their head and are searched for a later cwd, per look (newest first). */
const DEEP_SCANS = 20;
/**
 * Bytes searched for later cwds per look: a big session of another folder is searched a part at a
 * time (the search goes on where it stopped), so no single look is slow. Codex sessions rarely change
 * folder (a resume elsewhere), Claude Code sessions often (`cd`).
 */
const DEEP_BYTES = { claude: 96 * 1024 * 1024, codex: 32 * 1024 * 1024, generic: 0 } as const;
/** How often every Codex date folder is listed again; in between only the newest rollouts are looked at. */
const CODEX_RESCAN_MS = 10_000;
/** Rollouts looked at on every call between two full listings. */
const CODEX_HOT = 32;


const pad = (n: number) => String(n).padStart(2, '0');

/** A Codex rollout file name: plain, or compressed in place by Codex (`.jsonl.zst`, FORMATS.md Late 2026 L3). */
export const isRollout = (f: string): boolean => f.startsWith('rollout-') && (f.endsWith('.jsonl') || f.endsWith('.jsonl.zst'));

/** One rollout per name: when Codex is making a compressed rollout plain again both exist a moment, and the plain one wins. */
export function plainWins(files: readonly string[]): string[] {
  const all = new Set(files);
  return files.filter((f) => !(f.endsWith('.zst') && all.has(f.slice(0, -'.zst'.length))));
}

/**
 * Every rollout under `sessions/` (`YYYY/MM/DD/rollout-….jsonl`, any depth up to the day), and the
 * rollouts `session_index.jsonl` names that sit elsewhere. A resumed session appends to the rollout of
 * the day it started, so no date folder is left out.
 */
async function listRollouts(sessions: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const names = await listDir(dir);
    await Promise.all(
      names.map(async (n) => {
        if (isRollout(n)) out.push(path.join(dir, n));
        else if (depth < 3 && /^\d+$/.test(n)) await walk(path.join(dir, n), depth + 1);
      }),
    );
  };
  await walk(sessions, 0);
  return out;
}

/** Every rollout of a Codex home: `sessions/` by date and the flat `archived_sessions/`, plain or compressed (plain wins). */
export async function listCodexRollouts(home: string): Promise<string[]> {
  const archived = path.join(home, 'archived_sessions');
  const [live, old] = await Promise.all([listRollouts(path.join(home, 'sessions')), listDir(archived)]);
  return plainWins([...live, ...old.filter(isRollout).map((n) => path.join(archived, n))]);
}

/** The `YYYY/MM/DD` folders of the last `days` days, in local time and UTC (Codex uses local time). */
export function recentDayFolders(now: Date, days: number): string[] {
  const out = new Set<string>();
  for (let i = -1; i < days; i++) {
    const d = new Date(now.getTime() - i * 86_400_000);
    out.add(`${d.getFullYear()}/${pad(d.getMonth() + 1)}/${pad(d.getDate())}`);
    out.add(`${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}`);
  }
  return [...out];
}

/**
 * Finds the agent sessions of one workspace folder: the newest Claude Code transcript or main Codex
 * rollout any of whose working directories is the folder or inside it (a session that started in
 * `$HOME` and `cd`'d into the project counts), and the workbench's `context_usage.json`. Heads are
 * read once per file and cached by mtime and size, and the search for later working directories is
 * incremental, so a long-lived caller can call `find()` on every refresh.
 */
export class SessionDiscovery {
  private readonly heads = new Map<string, { mtimeMs: number; size: number; head: Head }>();
  private readonly scanners = new Map<string, CwdScanner>();
  private codexFiles: string[] = [];
  private codexListedAt = -Infinity;
  private codexHot: string[] = [];
  /** Cline, Roo Code and Kilo Code tasks (their own discovery). */
  readonly tasks: VscodeTaskDiscovery;

  constructor(private readonly options: DiscoveryOptions) {
    this.tasks = new VscodeTaskDiscovery(options.folder, options, options.now);
  }

  /** Where `find()` looks, for people: one entry per enabled source. */
  places(): string[] {
    const sources = this.options.sources ?? DEFAULT_SOURCES;
    const out: string[] = [];
    if (sources.includes('claude')) {
      const host = this.hostDirName();
      const projects = path.join(this.options.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects');
      out.push(`Claude Code: ${path.join(projects, claudeProjectDirName(this.options.folder))}*${host ? `, ${path.join(projects, host)} (CLAUDE_CODE_PROJECT_DIR_NAME)` : ''} (and sessions that moved into the folder)`);
    }
    if (sources.includes('codex')) out.push(`Codex CLI: ${path.join(this.options.codexHome ?? defaultCodexHome(), 'sessions')} (every date folder, newest first, .jsonl and .jsonl.zst) and archived_sessions`);
    if (sources.includes('generic')) out.push(this.genericFiles().join(', '));
    out.push(...this.tasks.places(sources.filter(isVscodeAgent)));
    return out;
  }

  /** The candidates, newest first (one per source at most). */
  async find(): Promise<SessionCandidate[]> {
    const sources = this.options.sources ?? DEFAULT_SOURCES;
    const [tasks, ...found] = await Promise.all([
      this.tasks.find(sources.filter(isVscodeAgent)),
      sources.includes('claude') ? this.findClaude() : undefined,
      sources.includes('codex') ? this.findCodex() : undefined,
      sources.includes('generic') ? this.findGeneric() : undefined,
    ]);
    return [...found, ...tasks].filter((c): c is SessionCandidate => !!c).sort((a, b) => b.mtimeMs - a.mtimeMs);
  }

  private async head(file: string, st: Stats, read: (f: string) => Promise<Head>): Promise<Head> {
    const cached = this.heads.get(file);
    // A settled head of an append-only log never changes (a smaller file was replaced); an unsettled
    // one is kept only while the file is exactly as it was read.
    if (cached && st.size >= cached.size && (cached.head.settled || (cached.mtimeMs === st.mtimeMs && cached.size === st.size))) return cached.head;
    let head: Head;
    try {
      head = await read(file);
    } catch {
      // Unreadable right now (busy, permissions, replaced mid-read): not a candidate this time, and
      // nothing cached, so the next look reads it again.
      this.heads.delete(file);
      return {};
    }
    this.heads.set(file, { mtimeMs: st.mtimeMs, size: st.size, head });
    return head;
  }

  /**
   * The newest file (by modification time) that belongs to the folder: its head's cwd is inside it,
   * or — searched for the newest few that are newer than that match — any later cwd is.
   */
  private async newestMatching(files: string[], source: 'claude' | 'codex', read: (f: string) => Promise<Head>): Promise<SessionCandidate | undefined> {
    const stats = await Promise.all(files.map(async (f) => ({ f, st: await statOrNull(f) })));
    // Of a rollout that exists both plain and compressed (Codex is converting it), the plain one.
    const kept = new Set(plainWins(stats.filter((s) => s.st?.isFile()).map((s) => s.f)));
    const name = (f: string) => path.basename(f);
    const sorted = stats
      .filter((s): s is { f: string; st: Stats } => !!s.st?.isFile() && kept.has(s.f))
      // Equal times (a copy, a restore): the later name first — a Codex page written after a revert sorts after its predecessor.
      .sort((a, b) => b.st.mtimeMs - a.st.mtimeMs || (name(b.f) > name(a.f) ? 1 : name(b.f) < name(a.f) ? -1 : 0));
    let deep = DEEP_SCANS;
    let budget: number = DEEP_BYTES[source];
    for (const { f, st } of sorted) {
      const head = await this.head(f, st, read);
      if (head.subAgent) continue;
      const found = (cwd: string): SessionCandidate => ({ source, file: f, ...(head.sessionId ? { sessionId: head.sessionId } : {}), cwd, mtimeMs: st.mtimeMs, size: st.size });
      if (head.cwd && isInsideFolder(this.options.folder, head.cwd)) return found(head.cwd);
      if (deep-- <= 0 || budget <= 0) continue;
      const { cwds, bytes } = await this.cwdsOf(f, st, budget);
      budget -= bytes;
      const inside = cwds.filter((c) => isInsideFolder(this.options.folder, c));
      if (inside.length) return found(inside[inside.length - 1] as string);
    }
    return undefined;
  }

  private async cwdsOf(file: string, st: Stats, budget: number): Promise<{ cwds: string[]; bytes: number }> {
    let scanner = this.scanners.get(file);
    if (!scanner) {
      scanner = new CwdScanner();
      this.scanners.set(file, scanner);
      if (this.scanners.size > 4 * DEEP_SCANS) this.scanners.delete(this.scanners.keys().next().value as string);
    }
    try {
      const cwds = await scanner.scan(file, st, budget);
      return { cwds, bytes: scanner.lastBytes };
    } catch {
      this.scanners.delete(file);
      return { cwds: [], bytes: 0 };
    }
  }

  /** The folder name a host chose for Claude Code's transcripts, if any. */
  private hostDirName(): string | undefined {
    return this.options.claudeProjectDirName !== undefined ? claudeHostDirName({ CLAUDE_CODE_PROJECT_DIR_NAME: this.options.claudeProjectDirName }) : claudeHostDirName();
  }

  private async findClaude(): Promise<SessionCandidate | undefined> {
    const projects = path.join(this.options.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects');
    // The folder as Claude Code may have spelt it: composed, or decomposed as macOS paths can be.
    const spellings = [...new Set([this.options.folder, this.options.folder.normalize('NFC'), this.options.folder.normalize('NFD')])];
    const prefixes = spellings.map(claudeDirPrefix);
    const dirs = await listDir(projects);
    // A transcript lives in the project dir of the cwd its session started in: one whose name starts
    // with the folder's (a session in the folder or inside it; a long name is cut at 200 characters and
    // hashed, so several folders can share that prefix and the cwd in the transcript decides), one of a
    // folder above it (a session that started there and cd'd in), or the name a host chose.
    const above = new Set(spellings.flatMap((f) => withAncestors(f).flatMap((d) => [looseSlug(claudeProjectSlug(d)), looseSlug(claudeProjectDirName(d))])));
    const host = this.hostDirName();
    const wanted = dirs.filter((d) => d === host || prefixes.some((p) => looseSlug(d).startsWith(p)) || above.has(looseSlug(d)));
    const files = (
      await Promise.all(wanted.map(async (d) => (await listDir(path.join(projects, d))).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(projects, d, f))))
    ).flat();
    return this.newestMatching(files, 'claude', claudeHead);
  }

  private async findCodex(): Promise<SessionCandidate | undefined> {
    const home = this.options.codexHome ?? defaultCodexHome();
    const now = Date.now();
    if (now - this.codexListedAt >= CODEX_RESCAN_MS) {
      this.codexFiles = await listCodexRollouts(home);
      this.codexListedAt = now;
      const found = await this.newestMatching(this.codexFiles, 'codex', codexHead);
      // Between two listings, the newest rollouts and today's folders are enough to follow a session.
      const stats = await Promise.all(this.codexFiles.map(async (f) => ({ f, m: (await statOrNull(f))?.mtimeMs ?? 0 })));
      this.codexHot = stats.sort((a, b) => b.m - a.m).slice(0, CODEX_HOT).map((s) => s.f);
      return found;
    }
    const today = recentDayFolders((this.options.now ?? (() => new Date()))(), 1);
    const fresh = (
      await Promise.all(today.map(async (d) => (await listDir(path.join(home, 'sessions', d))).filter(isRollout).map((f) => path.join(home, 'sessions', d, f))))
    ).flat();
    // Threads updated lately by name (session_index.jsonl): their rollouts may be in any date folder.
    const named = (await this.recentThreads(home)).flatMap((id) => this.codexFiles.filter((f) => path.basename(f).includes(id)));
    // A hot rollout Codex compressed or made plain again since the listing is looked for under its other name.
    const flipped = this.codexHot.map((f) => (f.endsWith('.zst') ? f.slice(0, -'.zst'.length) : `${f}.zst`));
    return this.newestMatching([...new Set([...this.codexHot, ...flipped, ...fresh, ...named])], 'codex', codexHead);
  }

  private indexState: { mtimeMs: number; size: number; ids: string[] } | null = null;

  /** The newest thread ids of `$CODEX_HOME/session_index.jsonl` (last line per id wins), newest first. */
  private async recentThreads(home: string): Promise<string[]> {
    const file = path.join(home, 'session_index.jsonl');
    const st = await statOrNull(file);
    if (!st?.isFile()) return [];
    if (this.indexState?.mtimeMs === st.mtimeMs && this.indexState.size === st.size) return this.indexState.ids;
    const updated = new Map<string, string>();
    // The index is small (a line per rename); a huge one is read from its end.
    const keep = 1024 * 1024;
    let text = '';
    try {
      const handle = await fs.open(file, 'r');
      try {
        const from = Math.max(0, st.size - keep);
        const buf = Buffer.alloc(st.size - from);
        await handle.read(buf, 0, buf.length, from);
        text = buf.toString('utf8');
      } finally {
        await handle.close();
      }
    } catch {
      return [];
    }
    for (const line of text.split('\n')) {
      try {
        const o = JSON.parse(line) as { id?: unknown; updated_at?: unknown };
        if (typeof o.id === 'string' && /^[\w-]+$/.test(o.id)) updated.set(o.id, typeof o.updated_at === 'string' ? o.updated_at : '');
      } catch {
        // A torn or foreign line names no thread.
      }
    }
    const ids = [...updated.entries()].sort((a, b) => (a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0)).slice(0, 8).map(([id]) => id);
    this.indexState = { mtimeMs: st.mtimeMs, size: st.size, ids };
    return ids;
  }

  /** The workbench's `context_usage.json` (an agent's or a script's), then the statusLine's own in the output dir. */
  private genericFiles(): string[] {
    const workbench = this.options.workbenchDir ?? this.options.folder;
    return [path.join(workbench, GENERIC_USAGE_FILE), path.join(this.options.outputDir ?? path.join(workbench, 'outputs', 'handoff'), GENERIC_USAGE_FILE)];
  }

  /** The newer of the two `context_usage.json` files that exist. */
  private async findGeneric(): Promise<SessionCandidate | undefined> {
    let best: SessionCandidate | undefined;
    for (const file of this.genericFiles()) {
      const st = await statOrNull(file);
      if (st?.isFile() && (!best || st.mtimeMs > best.mtimeMs)) best = { source: 'generic', file, mtimeMs: st.mtimeMs, size: st.size };
    }
    return best;
  }

}

/** Where the agent sessions of a folder were looked for, and whether the person uses an agent that keeps them. */
export interface SessionSearch {
  /** One entry per place, for people (see `SessionDiscovery.places`). */
  places: string[];
  /** True when Claude Code's or Codex's session folders exist: the person uses one of them. */
  agentUser: boolean;
  /** Session stores that exist but could not be read, named with why. */
  problems?: string[];
}

/** The stores that are one database (or one folder) for every folder: looked at to name one that cannot be read. */
const DB_STORES = ['kilo', 'opencode', 'gemini', 'qwen', 'copilot-cli'] as const;

/** Where discovery looks for the folder's Claude Code and Codex sessions, and whether either agent keeps sessions here at all. */
export async function sessionSearchOf(options: Omit<DiscoveryOptions, 'sources'>): Promise<SessionSearch> {
  const claude = path.join(options.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects');
  const codex = path.join(options.codexHome ?? defaultCodexHome(), 'sessions');
  const [a, b] = await Promise.all([statOrNull(claude), statOrNull(codex)]);
  const stores = new VscodeTaskDiscovery(options.folder, options, options.now);
  await stores.find(DB_STORES).catch(() => []);
  const problems = stores.problems();
  return { places: new SessionDiscovery({ ...options, sources: ['claude', 'codex'] }).places(), agentUser: !!(a?.isDirectory() || b?.isDirectory()), ...(problems.length ? { problems } : {}) };
}

/** How `noSessionReason` starts: what was looked for. */
export const NO_SESSION_FOUND = `no ${agentsRead()} session was found for this folder`;

/**
 * Why there is nothing to hand off when no agent session was found for a Claude Code or Codex user:
 * where it looked and what to do, never a workbench file to write by hand.
 */
export function noSessionReason(search: SessionSearch): string {
  return (
    `${NO_SESSION_FOUND}, so there is no next step to take from it; ` +
    'start or resume the agent in this folder, or point the agent folder settings (sessionHandoff.context.claudeConfigDir / codexHome, or --claude-config-dir / --codex-home) at where it keeps its sessions' +
    ` — looked in: ${search.places.join('; ')}`
  );
}
