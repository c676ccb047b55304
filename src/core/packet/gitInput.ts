import type { LineOrigin } from '../gitPort';
import type { ChangedFile } from './schema';

/** Git-derived packet fields, computed elsewhere and passed in as plain data. */
export interface GitInput {
  repo: string | null;
  /** The remote's URL (`origin`), credentials removed; absent without one. */
  remote?: string | null;
  branch: string | null;
  headCommit: string | null;
  /** ISO time of the HEAD commit: the fallback for `generated_at`. */
  headTime?: string | null;
  changedFiles: ChangedFile[];
  lastKnownGoodCommit: string | null;
  lkgUnknownReason?: string;
  /** Git history of the lines where credentials were masked, by `originKey`. */
  secretOrigins?: Record<string, LineOrigin>;
  /** Files in the repository (tracked and untracked, not ignored): what "Read these first" may name. */
  knownFiles?: string[];
}
