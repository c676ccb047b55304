import type { ChangeKind, StatusEntry } from '../core/gitPort';

/** What `git status --porcelain=v2 --branch -z` says about HEAD and the working tree. */
export interface ParsedStatus {
  /** Null when the repository has no commit yet. */
  head: string | null;
  /** Null when HEAD is detached. */
  branch: string | null;
  upstream: string | null;
  entries: StatusEntry[];
}

/** Maps a porcelain XY pair to one kind; the index side wins over the worktree side for A/D/R. */
function kindOf(xy: string): ChangeKind {
  if (xy.includes('R') || xy.includes('C')) return 'renamed';
  if (xy.includes('A')) return 'added';
  if (xy.includes('D')) return 'deleted';
  return 'modified';
}

/**
 * Parses porcelain v2 output with `-z` (NUL separated, so paths with spaces, quotes or newlines
 * survive unquoted). Ignored entries (`!`) are skipped: ignored files are never dirt.
 */
export function parseStatusV2(out: string): ParsedStatus {
  const result: ParsedStatus = { head: null, branch: null, upstream: null, entries: [] };
  const fields = out.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const rec = fields[i] ?? '';
    if (rec === '') continue;
    const tag = rec[0];
    if (tag === '#') {
      const [, key, ...rest] = rec.split(' ');
      const value = rest.join(' ');
      if (key === 'branch.oid') result.head = value === '(initial)' ? null : value;
      else if (key === 'branch.head') result.branch = value === '(detached)' ? null : value;
      else if (key === 'branch.upstream') result.upstream = value;
    } else if (tag === '1') {
      // 1 XY sub mH mI mW hH hI path
      const parts = rec.split(' ');
      const xy = parts[1] ?? '..';
      result.entries.push({ path: parts.slice(8).join(' '), kind: kindOf(xy), staged: xy[0] !== '.' });
    } else if (tag === '2') {
      // 2 XY sub mH mI mW hH hI Xscore path, then the original path as the next NUL field
      const parts = rec.split(' ');
      const xy = parts[1] ?? '..';
      const from = fields[++i] ?? '';
      result.entries.push({ path: parts.slice(9).join(' '), kind: 'renamed', from, staged: xy[0] !== '.' });
    } else if (tag === 'u') {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path: an unmerged (conflicted) path
      const parts = rec.split(' ');
      result.entries.push({ path: parts.slice(10).join(' '), kind: 'modified', staged: false });
    } else if (tag === '?') {
      result.entries.push({ path: rec.slice(2), kind: 'untracked', staged: false });
    }
  }
  return result;
}

/** Parses `git diff --name-status -z -M` output into entries (committed changes, so all staged). */
export function parseNameStatusZ(out: string): StatusEntry[] {
  const fields = out.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const code = fields[i] ?? '';
    if (code === '') continue;
    const letter = code[0];
    if (letter === 'R' || letter === 'C') {
      const from = fields[++i] ?? '';
      const to = fields[++i] ?? '';
      entries.push({ path: to, from, kind: letter === 'R' ? 'renamed' : 'added', staged: true });
    } else {
      const p = fields[++i] ?? '';
      const kind: ChangeKind = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
      entries.push({ path: p, kind, staged: true });
    }
  }
  return entries;
}
