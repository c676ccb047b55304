import * as path from 'node:path';
import { claudeDirPrefix, claudeHostDirName, claudeProjectDirName, defaultClaudeConfigDir, defaultCodexHome, looseSlug } from '../../core/context/discovery';
import type { ContextSource } from '../../core/context/types';

/**
 * What to watch, read-only, so that a brand-new agent session of a folder is picked up at once
 * rather than at the slow fallback refresh. Pure (no vscode): the folders that exist are passed in.
 *
 * - Claude Code keeps a folder's sessions in `<configDir>/projects/<slug>/<id>.jsonl`: the slug folder
 *   (every spelling of it that exists) for its transcripts, and the projects folder itself, one level
 *   deep, for a slug folder that appears (the first session of a folder, or one started inside it).
 * - Codex keeps every session in `<codexHome>/sessions/YYYY/MM/DD/rollout-….jsonl` (`.jsonl.zst` once Codex compressed it): that tree,
 *   and its date folders (`folders`): Codex makes a day's folder and writes its first rollout in one go,
 *   before the recursive watcher has the new folder, so that rollout's creation goes unreported.
 * A folder that does not exist yet is waited for in the folder above it (`appears`): when it is
 * created, the plan is made again.
 */
export interface SessionWatch {
  /** An absolute folder outside the workspace. */
  base: string;
  /** A glob relative to `base`; without a `/` or `**` it is watched one level deep. */
  pattern: string;
  /**
   * `session`: a session file was created or written. `appears`: a folder appeared; plan again.
   * `folders`: a folder appeared inside a tree already watched; look again soon (no new plan needed).
   */
  kind: 'session' | 'appears' | 'folders';
  /** For `appears`: only an entry whose loose slug starts with this concerns the folder (other projects' folders do not). */
  prefix?: string;
}

export interface SessionWatchInput {
  folder: string;
  sources: readonly ContextSource[];
  /** The settings; empty means the agent's own default (environment, else the home folder). */
  claudeConfigDir?: string;
  codexHome?: string;
  /** True when `dir` is an existing folder. */
  isDir: (dir: string) => boolean;
  /** The entries of an existing folder (names only). */
  list: (dir: string) => string[];
  env?: NodeJS.ProcessEnv;
}

/** Codex's year, month and day folders under `sessions/` (a rollout is a level below them). */
export const CODEX_DATE_FOLDERS = '{[0-9][0-9][0-9][0-9],[0-9][0-9][0-9][0-9]/[0-9][0-9],[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]}';

/** Most Claude project folders watched for one workspace folder (spellings of its slug). */
const MAX_SLUG_DIRS = 8;

export function sessionWatchPlan(input: SessionWatchInput): SessionWatch[] {
  const out: SessionWatch[] = [];
  const env = input.env ?? process.env;
  if (input.sources.includes('claude')) {
    const config = input.claudeConfigDir || defaultClaudeConfigDir(env);
    const projects = path.join(config, 'projects');
    if (input.isDir(projects)) {
      // The name Claude Code gives the folder (a long one cut and hashed), and the one a host chose.
      const slug = claudeProjectDirName(input.folder);
      const loose = looseSlug(slug);
      const host = claudeHostDirName(env);
      out.push({ base: projects, pattern: '*', kind: 'appears', prefix: claudeDirPrefix(input.folder) });
      // The folder name may spell the slug differently (a character outside ASCII is one or two dashes).
      const dirs = [...new Set([slug, ...(host ? [host] : []), ...input.list(projects).filter((d) => d !== slug && looseSlug(d) === loose)])].slice(0, MAX_SLUG_DIRS);
      for (const d of dirs) {
        const dir = path.join(projects, d);
        if (input.isDir(dir)) out.push({ base: dir, pattern: '*.jsonl', kind: 'session' });
      }
    } else if (input.isDir(config)) {
      out.push({ base: config, pattern: 'projects', kind: 'appears' });
    }
  }
  if (input.sources.includes('codex')) {
    const home = input.codexHome || defaultCodexHome(env);
    const sessions = path.join(home, 'sessions');
    if (input.isDir(sessions)) {
      out.push({ base: sessions, pattern: '**/rollout-*.{jsonl,jsonl.zst}', kind: 'session' });
      out.push({ base: sessions, pattern: CODEX_DATE_FOLDERS, kind: 'folders' });
    }
    else if (input.isDir(home)) out.push({ base: home, pattern: 'sessions', kind: 'appears' });
  }
  return out;
}

/** True when an entry that appeared under a watch concerns the folder (see `SessionWatch.prefix`). */
export function concernsFolder(watch: SessionWatch, name: string): boolean {
  return watch.prefix === undefined || looseSlug(name).startsWith(watch.prefix);
}
