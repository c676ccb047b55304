import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A real git repository in a temp dir, for tests that must not mock git. */
export interface TempRepo {
  dir: string;
  /** Runs git in the repository and returns trimmed stdout. */
  git(...args: string[]): string;
  write(file: string, content: string): void;
  /** `git add -A` + commit; returns the new HEAD. */
  commit(message: string): string;
  head(): string;
  remove(): void;
}

/** The environment every test git runs in: a fixed author, no system config, C locale. */
export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  LC_ALL: 'C',
};

/** Creates a repository on `branch` (default `main`) with optional initial files committed. */
export function makeRepo(opts: { branch?: string; files?: Record<string, string>; message?: string } = {}): TempRepo {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-git-'));
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '-q', '-b', opts.branch ?? 'main');
  git('config', 'user.name', 'Test');
  git('config', 'user.email', 'test@example.com');
  git('config', 'commit.gpgsign', 'false');
  const repo: TempRepo = {
    dir,
    git,
    write(file, content) {
      const abs = path.join(dir, file);
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    },
    commit(message) {
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    head: () => git('rev-parse', 'HEAD'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  if (opts.files) {
    for (const [f, c] of Object.entries(opts.files)) repo.write(f, c);
    repo.commit(opts.message ?? 'initial');
  }
  return repo;
}

/**
 * Temporary repositories made by `factory` during a mocha suite, all removed after it:
 * call inside `describe`, then `const r = make()` in each test.
 */
export function tempRepos(factory: () => TempRepo): () => TempRepo {
  const repos: TempRepo[] = [];
  after(() => repos.forEach((r) => r.remove()));
  return () => {
    const r = factory();
    repos.push(r);
    return r;
  };
}
