import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { GitError } from '../core/gitPort';

const CORRUPT = [
  /bad object/i,
  /is corrupt/i,
  /object file .* is empty/i,
  /index file (smaller than expected|corrupt)/i,
  /bad signature/i,
  /unknown index entry format/i,
  /bad tree/i,
  /your current branch appears to be broken/i,
  /invalid (sha1|object) pointer/i,
  /broken link/i,
];

/** Finds a `.git` entry in `dir` or a parent: git saying "not a repository" then means a broken one. */
function hasDotGit(dir: string): boolean {
  let d = path.resolve(dir);
  for (;;) {
    if (existsSync(path.join(d, '.git'))) return true;
    const up = path.dirname(d);
    if (up === d) return false;
    d = up;
  }
}

/** Turns whatever simple-git or the spawn threw into a GitError with one sentence a user understands. */
export function toGitError(err: unknown, cwd: string): GitError {
  if (err instanceof GitError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (/ENOENT/.test(msg) && /spawn/.test(msg)) {
    return new GitError('git-missing', 'Git is not installed or not on PATH; install git to use the clean-state checks.');
  }
  if (/not a git repository/i.test(msg)) {
    if (hasDotGit(cwd)) {
      return new GitError('corrupt', `The git repository at ${cwd} looks corrupt (git cannot read it); run \`git fsck\` there.`);
    }
    return new GitError('not-a-repository', `${cwd} is not inside a git repository; run \`git init\` there or open a repository.`);
  }
  if (CORRUPT.some((re) => re.test(msg))) {
    return new GitError('corrupt', `The git repository at ${cwd} looks corrupt (${firstLine(msg)}); run \`git fsck\` there.`);
  }
  if (/dubious ownership/i.test(msg)) {
    return new GitError('failed', `Git refuses to read ${cwd} because it is owned by another user; see \`git config --global safe.directory\`.`);
  }
  return new GitError('failed', `Git failed in ${cwd}: ${firstLine(msg)}`);
}

function firstLine(msg: string): string {
  const line = msg.split('\n').find((l) => l.trim() !== '') ?? msg;
  return line.replace(/^(fatal|error):\s*/i, '').trim();
}
