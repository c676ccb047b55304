import type { Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GENERIC_USAGE_FILE } from './usage';
import type { Head } from './heads';
import { claudeHead, codexHead } from './heads';
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
  /** The workbench dir (absolute) holding `context_usage.json`; defaults to `folder`. */
  workbenchDir?: string;
  /** Claude Code's config dir; default `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  claudeConfigDir?: string;
  /** Codex's home; default `$CODEX_HOME`, else `~/.codex`. */
  codexHome?: string;
  /** How many recent days of Codex session folders to look at (default 7). */
  codexDays?: number;
  /** Which sources to look for (default Claude Code, Codex and the generic file; `ALL_SOURCES` adds Cline, Roo Code, Kilo Code). */
  sources?: readonly ContextSource[];
  /** The clock, for tests. */
  now?: () => Date;
}


/** Every source (the CLI and the settings' default); without `sources`, discovery looks for the first three only. */
export const ALL_SOURCES: readonly ContextSource[] = ['claude', 'codex', 'generic', 'cline', 'roo', 'kilo'];
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
  const norm = (p: string) => (process.platform === 'win32' ? path.resolve(p).toLowerCase() : path.resolve(p));
  const rel = path.relative(norm(folder), norm(cwd));
  // `..` or `../…` leaves the folder; a folder inside it may well be named `..app`. The folder itself is `''`.
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** Claude Code's project folder name for a cwd: every non-alphanumeric character becomes `-`. */
export function claudeProjectSlug(cwd: string): string {
  return path.resolve(cwd).replace(/[^a-zA-Z0-9]/g, '-');
}

async function statOrNull(p: string): Promise<Stats | null> {
  try {
    return await fs.stat(p);
  } catch {
    return null;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    // Stryker disable next-line ArrayDeclaration: a stand-in name never becomes a candidate: logs are kept by their suffix, and a dir by that name lists nothing
    return [];
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

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
 * Finds the agent sessions of one workspace folder: the newest Claude Code transcript whose `cwd` is the
 * folder or inside it, the newest main Codex rollout of the recent days whose cwd matches, and the
 * workbench's `context_usage.json`. Heads are read once per file and cached by mtime and size, so a
 * long-lived caller can call `find()` on every refresh.
 */
export class SessionDiscovery {
  private readonly heads = new Map<string, { mtimeMs: number; size: number; head: Head }>();
  /** Cline, Roo Code and Kilo Code tasks (their own discovery). */
  readonly tasks: VscodeTaskDiscovery;

  constructor(private readonly options: DiscoveryOptions) {
    this.tasks = new VscodeTaskDiscovery(options.folder, options, options.now);
  }

  /** Where `find()` looks, for people: one entry per enabled source. */
  places(): string[] {
    const sources = this.options.sources ?? DEFAULT_SOURCES;
    const out: string[] = [];
    if (sources.includes('claude')) out.push(`Claude Code: ${path.join(this.options.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects', claudeProjectSlug(this.options.folder))}*`);
    if (sources.includes('codex')) out.push(`Codex CLI: ${path.join(this.options.codexHome ?? defaultCodexHome(), 'sessions')} (last ${this.options.codexDays ?? 7} days)`);
    if (sources.includes('generic')) out.push(`${path.join(this.options.workbenchDir ?? this.options.folder, GENERIC_USAGE_FILE)}`);
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

  private async newestMatching(files: string[], source: ContextSource, read: (f: string) => Promise<Head>): Promise<SessionCandidate | undefined> {
    const stats = await Promise.all(files.map(async (f) => ({ f, st: await statOrNull(f) })));
    const sorted = stats.filter((s): s is { f: string; st: Stats } => !!s.st?.isFile()).sort((a, b) => b.st.mtimeMs - a.st.mtimeMs);
    for (const { f, st } of sorted) {
      const head = await this.head(f, st, read);
      if (head.subAgent || !head.cwd || !isInsideFolder(this.options.folder, head.cwd)) continue;
      return { source, file: f, ...(head.sessionId ? { sessionId: head.sessionId } : {}), cwd: head.cwd, mtimeMs: st.mtimeMs, size: st.size };
    }
    return undefined;
  }

  private async findClaude(): Promise<SessionCandidate | undefined> {
    const projects = path.join(this.options.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects');
    const slug = claudeProjectSlug(this.options.folder);
    const dirs = await listDir(projects);
    // A transcript inside the folder lives in a project dir whose name starts with the folder's slug;
    // Claude Code shortens names longer than 200 characters, so those fall back to every project dir.
    const wanted = slug.length > 200 ? dirs : dirs.filter((d) => d.startsWith(slug));
    const files = (
      await Promise.all(wanted.map(async (d) => (await listDir(path.join(projects, d))).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(projects, d, f))))
    ).flat();
    return this.newestMatching(files, 'claude', claudeHead);
  }

  private async findCodex(): Promise<SessionCandidate | undefined> {
    const sessions = path.join(this.options.codexHome ?? defaultCodexHome(), 'sessions');
    const days = recentDayFolders((this.options.now ?? (() => new Date()))(), this.options.codexDays ?? 7);
    const files = (
      await Promise.all(days.map(async (d) => (await listDir(path.join(sessions, d))).filter((f) => f.startsWith('rollout-') && f.endsWith('.jsonl')).map((f) => path.join(sessions, d, f))))
    ).flat();
    return this.newestMatching(files, 'codex', codexHead);
  }

  private async findGeneric(): Promise<SessionCandidate | undefined> {
    const file = path.join(this.options.workbenchDir ?? this.options.folder, GENERIC_USAGE_FILE);
    const st = await statOrNull(file);
    return st?.isFile() ? { source: 'generic', file, mtimeMs: st.mtimeMs, size: st.size } : undefined;
  }
}
