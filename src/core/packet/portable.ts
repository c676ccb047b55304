import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { SessionAgent } from '../session/model';
import type { Packet } from './schema';

/**
 * A packet names no path of the machine it was written on (it travels: committed, exported, copied to a
 * laptop). Repository files are relative to the repository; an agent's session file is named by the
 * agent's folder as people know it and the path inside it:
 *
 * - Claude Code `<config>/projects/<project>/<id>.jsonl` → `~/.claude/projects/…/<id>.jsonl` (the project
 *   folder's name spells this machine's path, so it is left out: the session id finds the file),
 * - Codex `<home>/sessions/2026/11/20/rollout-….jsonl` → `~/.codex/sessions/2026/11/20/rollout-….jsonl`,
 * - a Cline / Roo Code / Kilo Code task `<storage>/<extension>/tasks/<id>/…` → `…/<extension>/tasks/<id>/…`,
 * - anything else under the home folder → `~/…`.
 */

export interface PortableRoots {
  /** The repository root (else the workspace folder): its files become relative. */
  repoRoot: string | null;
  /** The workspace folder, when it is not the repository root. */
  workspaceDir?: string | null;
  /** The home folder (`os.homedir()`), shown as `~`. */
  home?: string | null;
  /** The session the packet was built from, whose agent folder is named for people. */
  session?: { agent: SessionAgent; file: string } | null;
}

export const CLAUDE_PROJECTS = '~/.claude/projects/…';
export const CODEX_HOME = '~/.codex';

/** The agent folder a session file lives in, and the name it is shown by; null when not recognised. */
export function agentFolderOf(session: { agent: SessionAgent; file: string }): { dir: string; shown: string } | null {
  const file = path.resolve(session.file);
  if (session.agent === 'claude-code') return { dir: path.dirname(file), shown: CLAUDE_PROJECTS };
  if (session.agent === 'codex') {
    const at = file.lastIndexOf(`${path.sep}sessions${path.sep}`);
    return at > 0 ? { dir: file.slice(0, at), shown: CODEX_HOME } : { dir: path.dirname(file), shown: `${CODEX_HOME}/sessions/…` };
  }
  // A task file: <storage>/<extension>/tasks/<id>/<file>.
  const tasks = path.dirname(path.dirname(file));
  if (path.basename(tasks) !== 'tasks') return { dir: path.dirname(file), shown: '…' };
  const ext = path.dirname(tasks);
  return { dir: path.dirname(ext), shown: '…' };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The prefixes replaced, longest first, each with what it becomes. */
function replacements(roots: PortableRoots): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  const add = (dir: string | null | undefined, to: string): void => {
    if (!dir || !path.isAbsolute(dir)) return;
    const d = path.resolve(dir);
    if (d === path.parse(d).root) return;
    out.push({ from: d, to });
  };
  const folder = roots.session ? agentFolderOf(roots.session) : null;
  if (folder) {
    add(folder.dir, folder.shown);
    // Also as already shown to people, the home folder as `~` (a risk's sentence names it so).
    const home = roots.home ? path.resolve(roots.home) : null;
    if (home && home !== path.parse(home).root && path.resolve(folder.dir).startsWith(`${home}${path.sep}`)) {
      out.push({ from: `~${path.resolve(folder.dir).slice(home.length)}`, to: folder.shown });
    }
  }
  add(roots.repoRoot, '.');
  if (roots.workspaceDir && roots.repoRoot) add(roots.workspaceDir, path.relative(roots.repoRoot, roots.workspaceDir).split(path.sep).join('/') || '.');
  else add(roots.workspaceDir, '.');
  add(roots.home, '~');
  return out.sort((a, b) => b.from.length - a.from.length);
}

/**
 * `text` with every machine path under one of the roots made portable. A path that is the repository
 * (or the workspace) itself becomes `.`; one inside it, relative (`src/a.py`, not `./src/a.py`).
 */
export function portableText(text: string, roots: PortableRoots): string {
  const reps = replacements(roots);
  if (!reps.length || !reps.some((r) => text.includes(r.from))) return text;
  // One pass with an alternation, longest first, each followed by a separator or the end of the path.
  const re = new RegExp(`(${reps.map((r) => escape(r.from)).join('|')})(?=([\\\\/])|[^\\w.-]|\\.(?:\\s|$)|$)([\\\\/])?`, 'g');
  return text.replace(re, (_m, from: string, _next: string | undefined, sep: string | undefined) => {
    const to = reps.find((r) => r.from === from)?.to ?? from;
    if (to === '.' && sep) return '';
    return sep ? `${to}/` : to;
  });
}

/** Every string of the packet with machine paths made portable (its shape and order unchanged). */
export function portablePacket(packet: Packet, roots: PortableRoots): Packet {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return portableText(v, roots);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(packet) as Packet;
}

/** Whether `file` is a portable agent path (`~/.claude/projects/…/`, `~/.codex/`, `…/`, `~/`). */
export function isPortableAgentPath(file: string): boolean {
  return /^(?:~|…)\//.test(file);
}

/**
 * This machine's file for a portable agent path: the folder's own session file when it is the one
 * named, else the first existing candidate under the agent homes (a Claude Code session by its id in any
 * project folder, a Codex rollout under the Codex home, `~/…` under the home folder). Null when none.
 */
export function resolveAgentPath(file: string, where: { agentHomes: readonly string[]; home?: string | null; session?: { agent: SessionAgent; file: string } | null }): string | null {
  // `..` in a packet never climbs out of the folder it is joined to.
  if (!isPortableAgentPath(file) || file.includes('\0') || file.split(/[\\/]/).includes('..')) return null;
  if (where.session && portableText(path.resolve(where.session.file), { repoRoot: null, session: where.session, home: where.home ?? null }) === file) {
    return path.resolve(where.session.file);
  }
  const rest = (prefix: string): string | null => (file.startsWith(`${prefix}/`) ? file.slice(prefix.length + 1) : null);
  const candidates: string[] = [];
  const claude = rest(CLAUDE_PROJECTS);
  const codex = rest(CODEX_HOME);
  for (const h of where.agentHomes) {
    if (claude !== null) {
      const projects = path.join(h, 'projects');
      const dirs = (() => {
        try {
          return readdirSync(projects);
        } catch {
          return [] as string[];
        }
      })();
      candidates.push(...dirs.map((d) => path.join(projects, d, claude)));
    }
    if (codex !== null) candidates.push(path.join(h, codex));
  }
  const home = rest('~');
  if (home !== null && claude === null && codex === null && where.home) candidates.push(path.join(where.home, home));
  return candidates.find(isFile) ?? null;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A remote URL without the user and password a `https://user:token@host/…` URL may carry. */
export function publicRemote(url: string | null): string | null {
  const u = url?.trim();
  if (!u) return null;
  return u.replace(/^([a-z][\w+.-]*:\/\/)[^/@\s]*@/i, '$1');
}

/** A remote reduced to host and path (no scheme, user, `.git`, trailing slash): two spellings of one remote compare equal. */
export function remoteKey(url: string): string {
  return (publicRemote(url) ?? '')
    .replace(/^[a-z][\w+.-]*:\/\//i, '')
    .replace(/^[^@/\s]+@([^:/]+):/, '$1/')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .toLowerCase();
}
