import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { AddedLine, GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import { isUnder } from './glob';

/** Everything the five checks look at; plain data, so each check is a pure function. */
export interface CleanInputs {
  facts: GitFacts;
  /** Lines the session added (its diff since the session base, uncommitted and untracked included). */
  addedLines: AddedLine[];
  /** Tracked files plus untracked files that are not ignored, repo-relative. */
  files: string[];
  snapshot: WorkbenchSnapshot;
  options: Pick<HandoffOptions, 'tempGlobs' | 'debugPatterns'>;
  /** Repo-relative files or folders written by this tool (output dir, context_usage.json): never dirt. */
  ownPaths: string[];
  /** Files known to be command-line programs (a shebang, a `__main__` guard, the package's `bin`). */
  programFiles?: string[];
  /** The branch of the active packet for this branch + topic, if any. */
  activePacketBranch?: string | null;
}

/** True when a repo-relative path is one of the tool's own outputs. */
export function isOwnPath(p: string, ownPaths: readonly string[]): boolean {
  return ownPaths.some((own) => own !== '' && own !== '.' && isUnder(p, own));
}

/** Findings carry at most this many paths: enough to act on, small enough for a packet. */
export const MAX_FINDING_PATHS = 100;

/** The paths a finding carries (capped; the detail says how many there are in all). */
export function findingPaths(paths: readonly string[]): string[] {
  return paths.slice(0, MAX_FINDING_PATHS);
}

/** Lists at most `max` paths for a one-line detail, saying how many more there are. */
export function listPaths(paths: readonly string[], max = 5): string {
  const shown = paths.slice(0, max).join(', ');
  return paths.length > max ? `${shown} and ${paths.length - max} more` : shown;
}
