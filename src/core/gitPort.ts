/**
 * The small interface through which the core reaches git. Only `src/git/` implements it (with
 * simple-git); tests of the core may use an in-memory implementation where git is not the subject.
 */

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked';

export interface StatusEntry {
  /** Path relative to the repository root (the new path for a rename). */
  path: string;
  kind: ChangeKind;
  /** The old path of a rename. */
  from?: string;
  staged: boolean;
}

export type GitOperation = 'merge' | 'rebase' | 'cherry-pick' | 'revert' | 'bisect';

export interface GitFacts {
  /** Absolute repository root. */
  root: string;
  /** Current branch (for a repository without commits, the branch its first commit will be on), or null when HEAD is detached. */
  branch: string | null;
  head: string | null;
  detached: boolean;
  upstream: string | null;
  /** Changes in the working tree and index, ignored files excluded. */
  status: StatusEntry[];
  operation: GitOperation | null;
  stashes: { ref: string; message: string }[];
}

/** A line added by a range of commits (or by the working tree), for the debug-print check. */
export interface AddedLine {
  path: string;
  /** 1-based line number in the new file. */
  line: number;
  text: string;
}

export interface GitClient {
  facts(): Promise<GitFacts>;
  /** HEAD and the current branch only (no status): what freshness needs. */
  head(): Promise<Pick<GitFacts, 'head' | 'branch'>>;
  /**
   * Lines added between `base` (null: HEAD) and the working tree, committed and uncommitted. Given the
   * facts of this run, their HEAD and untracked files are used instead of asking git again.
   */
  addedLines(base: string | null, facts?: Pick<GitFacts, 'head' | 'status'>): Promise<AddedLine[]>;
  /** Files changed between `base` and HEAD. */
  changedSince(base: string): Promise<StatusEntry[]>;
  /** The merge-base of HEAD with the upstream or default branch, or null. `head`: HEAD as already resolved. */
  sessionBase(head?: string | null): Promise<string | null>;
  /** How many commits `to` is ahead of `from`, or null when either is unknown. */
  commitsBetween(from: string, to: string): Promise<number | null>;
  /** The fetch URL of `origin` (else of the first remote), or null without one. */
  remoteUrl?(): Promise<string | null>;
  /** Whether `ancestor` is `descendant` or one of its ancestors; null when git does not know either commit. */
  isAncestor?(ancestor: string, descendant: string): Promise<boolean | null>;
  /** Committer time (epoch seconds) of a revision, or null. */
  commitTime(rev: string): Promise<number | null>;
  /**
   * Tracked files plus untracked files that are not ignored, relative to the root (temp-artifact check).
   * Given the facts of this run, their untracked files are used instead of listing them again.
   */
  listFiles(facts?: Pick<GitFacts, 'status'>): Promise<string[]>;
  /**
   * Whether git tracks `path` (relative to the root) and the commit that introduced its line `line`
   * as it is now (null when that line is not committed yet). Used to say since when a leaked
   * credential is in history. Optional: without it, the risk says nothing about history.
   */
  lineOrigin?(path: string, line: number): Promise<LineOrigin>;
  /**
   * Whether the file's content (absolute path, or relative to the root) was made in this working tree:
   * untracked, ignored or changed from HEAD, or as last committed by a commit made here (HEAD's reflog
   * records it as a commit). False for what a clone, pull or checkout brought. Optional: without it,
   * nothing is vouched for.
   */
  madeHere?(file: string): Promise<boolean>;
}

/** Where a line of a file comes from in git history. */
export interface LineOrigin {
  tracked: boolean;
  /** The commit that introduced the line, or null (not tracked, or not committed yet). */
  commit: string | null;
}

export type GitErrorCode = 'git-missing' | 'not-a-repository' | 'corrupt' | 'failed';

/** A git failure with one sentence a user understands. */
export class GitError extends Error {
  constructor(
    readonly code: GitErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}
