import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import type { AddedLine, GitClient, GitFacts, GitOperation, LineOrigin, StatusEntry } from '../core/gitPort';
import { readRegular } from '../core/fsx';
import { GitError } from '../core/gitPort';
import { toGitError } from './errors';
import { parseAddedLines } from './parseDiff';
import { parseNameStatusZ, parseStatusV2 } from './parseStatus';

/** The empty tree per object format: the base of "everything is new" in a repository without commits. */
const EMPTY_TREE: Record<string, string> = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

/** Files larger than this, or with NUL bytes, are not read for added lines. */
const MAX_UNTRACKED_BYTES = 1024 * 1024;
/** An unignored dependency folder must not turn a check into a full read of it. */
const MAX_UNTRACKED_FILES = 2000;
const MAX_UNTRACKED_TOTAL = 32 * 1024 * 1024;

const OPERATION_MARKERS: [string, GitOperation][] = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
  ['BISECT_LOG', 'bisect'],
];

/**
 * Environment variables simple-git refuses to pass on (editors, pagers, ssh and config overrides).
 * None matters for the read-only commands run here, so they are dropped rather than unlocked.
 */
const BLOCKED_ENV = new Set([
  'editor', 'git_askpass', 'git_config_global', 'git_config_system', 'git_config_count', 'git_config',
  'git_editor', 'git_exec_path', 'git_external_diff', 'git_pager', 'git_proxy_command', 'git_template_dir',
  'git_sequence_editor', 'git_ssh', 'git_ssh_command', 'pager', 'prefix', 'ssh_askpass',
]);

function safeEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    const key = k.toLowerCase();
    if (v === undefined || BLOCKED_ENV.has(key) || key.startsWith('git_config_key_') || key.startsWith('git_config_value_')) continue;
    env[k] = v;
  }
  return env;
}

function makeGit(dir: string): SimpleGit {
  return simpleGit({ baseDir: dir, config: ['core.quotePath=false'], maxConcurrentProcesses: 4 }).env({
    ...safeEnv(),
    // Never take index.lock for a read: concurrent runs (and the user's own git) must not collide.
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    // English messages, so failures map onto the right typed error.
    LC_ALL: 'C',
  });
}

/** The untracked, not ignored files a status listed (`--untracked-files=all`: files, not folders). */
function untrackedOf(facts: Pick<GitFacts, 'status'>): string[] {
  return facts.status.filter((e) => e.kind === 'untracked').map((e) => e.path);
}

/**
 * A GitClient over simple-git for the repository containing `cwd`. Construction never throws;
 * every method rejects with a `GitError` (git missing, not a repository, corrupt repository).
 */
/** How far back HEAD's reflog is searched for the commit that made a workbench file. */
const REFLOG_LIMIT = 5000;

export function createGitClient(cwd: string): GitClient {
  let rootPromise: Promise<{ root: string; git: SimpleGit }> | null = null;

  const open = (): Promise<{ root: string; git: SimpleGit }> => {
    rootPromise ??= (async () => {
      try {
        await fs.access(cwd);
      } catch {
        // Said directly: classifying a fake git error would walk up to a parent repository and
        // call it corrupt.
        throw new GitError('not-a-repository', `${cwd} does not exist, so it is not inside a git repository.`);
      }
      try {
        const top = (await makeGit(cwd).raw(['rev-parse', '--show-toplevel'])).trim();
        if (!top) throw new Error('fatal: not a git repository');
        // Porcelain paths are relative to the current directory: run everything from the root.
        return { root: path.resolve(top), git: makeGit(top) };
      } catch (err) {
        throw toGitError(err, cwd);
      }
    })();
    return rootPromise;
  };

  const run = async (args: string[]): Promise<string> => {
    const { git } = await open();
    try {
      return await git.raw(args);
    } catch (err) {
      throw toGitError(err, cwd);
    }
  };

  /** Like run, but a failure means "unknown" (null) rather than an error. */
  const tryRun = async (args: string[]): Promise<string | null> => {
    try {
      return await run(args);
    } catch {
      return null;
    }
  };

  const operation = async (root: string): Promise<GitOperation | null> => {
    const args = OPERATION_MARKERS.flatMap(([name]) => ['--git-path', name]);
    const paths = (await run(['rev-parse', ...args])).split('\n').filter((l) => l !== '');
    for (let i = 0; i < OPERATION_MARKERS.length; i++) {
      const p = paths[i];
      if (p === undefined) continue;
      const exists = await fs.stat(path.resolve(root, p)).then(() => true, () => false);
      if (exists) return (OPERATION_MARKERS[i] as [string, GitOperation])[1];
    }
    return null;
  };

  const stashes = async (): Promise<{ ref: string; message: string }[]> => {
    const out = (await tryRun(['stash', 'list', '--format=%gd%x00%gs'])) ?? '';
    return out
      .split('\n')
      .filter((l) => l.includes('\0'))
      .map((l) => {
        const [ref = '', message = ''] = l.split('\0');
        return { ref, message };
      });
  };

  const untrackedLines = async (root: string, files: string[]): Promise<AddedLine[]> => {
    const lines: AddedLine[] = [];
    let total = 0;
    for (const file of files.slice(0, MAX_UNTRACKED_FILES)) {
      const abs = path.join(root, file);
      // Git records a symlink as its target's path, not the target's content: never read through one.
      const stat = await fs.lstat(abs).catch(() => null);
      if (!stat?.isFile() || stat.size > MAX_UNTRACKED_BYTES) continue;
      total += stat.size;
      if (total > MAX_UNTRACKED_TOTAL) break;
      const read = await readRegular(abs, { root, maxBytes: MAX_UNTRACKED_BYTES });
      const buf = read.ok ? read.bytes : null;
      if (!buf || buf.includes(0)) continue;
      const texts = buf.toString('utf8').split(/\r?\n/);
      if (texts.at(-1) === '') texts.pop(); // the final newline ends a line, it does not start one
      texts.forEach((text, i) => lines.push({ path: file, line: i + 1, text }));
    }
    return lines;
  };

  /** Changed paths that are neither a file, a symlink nor a folder: git cannot diff them. */
  const unhashable = async (root: string): Promise<string[]> => {
    const entries = parseStatusV2(await run(['status', '--porcelain=v2', '-z', '--untracked-files=no'])).entries;
    const kinds = await Promise.all(entries.map(async (e) => ({ path: e.path, st: await fs.lstat(path.join(root, e.path)).catch(() => null) })));
    return kinds.filter(({ st }) => st && !st.isFile() && !st.isSymbolicLink() && !st.isDirectory()).map((k) => k.path);
  };

  const client: GitClient = {
    async facts(): Promise<GitFacts> {
      const { root } = await open();
      const status = parseStatusV2(await run(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all']));
      return {
        root,
        branch: status.branch,
        head: status.head,
        detached: status.branch === null && status.head !== null,
        upstream: status.upstream,
        status: status.entries,
        operation: await operation(root),
        stashes: await stashes(),
      };
    },

    async head(): Promise<Pick<GitFacts, 'head' | 'branch'>> {
      await open();
      // Two cheap lookups instead of a status: neither walks the working tree.
      const [ref, head] = await Promise.all([tryRun(['symbolic-ref', '-q', 'HEAD']), tryRun(['rev-parse', '-q', '--verify', 'HEAD'])]);
      const branch = ref?.trim().startsWith('refs/heads/') ? ref.trim().slice('refs/heads/'.length) : null;
      return { branch, head: head?.trim() || null };
    },

    async addedLines(base: string | null, facts?: Pick<GitFacts, 'head' | 'status'>): Promise<AddedLine[]> {
      const { root } = await open();
      let from = base;
      if (from === null) {
        const head = facts ? facts.head : await tryRun(['rev-parse', '--verify', '-q', 'HEAD']);
        if (head?.trim()) from = head.trim();
        else {
          const format = ((await tryRun(['rev-parse', '--show-object-format'])) ?? 'sha1').trim();
          from = EMPTY_TREE[format] ?? EMPTY_TREE.sha1 ?? null;
        }
      }
      const args = ['diff', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '-M', from as string, '--'];
      let diff: string;
      try {
        diff = await run(args);
      } catch (err) {
        // Git cannot hash a FIFO, socket or device that replaced a tracked file ("unsupported file
        // type") and fails the whole diff: leave those paths out and read the rest.
        const skip = await unhashable(root);
        if (!skip.length) throw err;
        diff = await run([...args, ':(top)', ...skip.map((p) => `:(top,exclude,literal)${p}`)]);
      }
      const untracked = facts ? untrackedOf(facts) : (await run(['ls-files', '-z', '--others', '--exclude-standard'])).split('\0').filter(Boolean);
      return [...parseAddedLines(diff), ...(await untrackedLines(root, untracked))];
    },

    async changedSince(base: string): Promise<StatusEntry[]> {
      return parseNameStatusZ(await run(['diff', '--name-status', '-z', '-M', '--no-ext-diff', base, 'HEAD', '--']));
    },

    async sessionBase(knownHead?: string | null): Promise<string | null> {
      const head = knownHead !== undefined ? knownHead : (await tryRun(['rev-parse', '--verify', '-q', 'HEAD']))?.trim();
      if (!head) return null;
      const candidates: string[] = [];
      const upstream = (await tryRun(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']))?.trim();
      if (upstream) candidates.push(upstream);
      const originHead = (await tryRun(['symbolic-ref', '-q', 'refs/remotes/origin/HEAD']))?.trim();
      if (originHead) candidates.push(originHead);
      candidates.push('refs/heads/main', 'refs/heads/master', 'refs/remotes/origin/main', 'refs/remotes/origin/master');
      for (const ref of candidates) {
        const base = (await tryRun(['merge-base', 'HEAD', ref]))?.trim();
        if (base) return base;
      }
      return null;
    },

    async commitsBetween(from: string, to: string): Promise<number | null> {
      const out = await tryRun(['rev-list', '--count', `${from}..${to}`]);
      const n = out === null ? NaN : Number(out.trim());
      return Number.isInteger(n) ? n : null;
    },

    async remoteUrl(): Promise<string | null> {
      const origin = (await tryRun(['config', '--get', 'remote.origin.url']))?.trim();
      if (origin) return origin;
      const first = (await tryRun(['remote']))?.split('\n')[0]?.trim();
      return (first && (await tryRun(['config', '--get', `remote.${first}.url`]))?.trim()) || null;
    },

    async isAncestor(ancestor: string, descendant: string): Promise<boolean | null> {
      const full: string[] = [];
      for (const rev of [ancestor, descendant]) {
        const sha = /^[0-9a-f]{7,64}$/i.test(rev) ? (await tryRun(['rev-parse', '-q', '--verify', `${rev}^{commit}`]))?.trim() : null;
        if (!sha) return null;
        full.push(sha);
      }
      // The merge base of the two is the ancestor itself exactly when it is one.
      return (await tryRun(['merge-base', full[0]!, full[1]!]))?.trim() === full[0];
    },

    async commitTime(rev: string): Promise<number | null> {
      const out = await tryRun(['log', '-1', '--format=%ct', rev, '--']);
      const n = out === null ? NaN : Number(out.trim());
      return out?.trim() && Number.isInteger(n) ? n : null;
    },

    async listFiles(facts?: Pick<GitFacts, 'status'>): Promise<string[]> {
      if (!facts) {
        const out = await run(['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
        return [...new Set(out.split('\0').filter(Boolean))];
      }
      const tracked = (await run(['ls-files', '-z', '--cached'])).split('\0').filter(Boolean);
      return [...new Set([...tracked, ...untrackedOf(facts)])];
    },

    async lineOrigin(file: string, line: number): Promise<LineOrigin> {
      const { root } = await open();
      const tracked = (await tryRun(['-C', root, 'ls-files', '--error-unmatch', '--', file])) !== null;
      if (!tracked || !Number.isInteger(line) || line < 1) return { tracked, commit: null };
      // Blame names the commit that introduced the line as it is now; all zeros means uncommitted.
      const out = await tryRun(['-C', root, 'blame', '--porcelain', '-L', `${line},${line}`, '--', file]);
      const sha = /^([0-9a-f]{40,64}) /.exec(out ?? '')?.[1] ?? null;
      return { tracked, commit: sha && !/^0+$/.test(sha) ? sha : null };
    },

    async madeHere(file: string): Promise<boolean> {
      const { root } = await open();
      const rel = path.relative(root, path.resolve(root, file));
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return false;
      // Untracked or ignored, or changed from HEAD (staged or not): written in this working tree.
      if ((await tryRun(['-C', root, 'ls-files', '--error-unmatch', '--', rel])) === null) return true;
      const status = await tryRun(['-C', root, 'status', '--porcelain', '--', rel]);
      if (status === null) return false;
      if (status.trim()) return true;
      // As committed: only when the commit that last changed it was made here (HEAD's reflog records it
      // as a commit; a clone, pull, merge or checkout brought it from elsewhere).
      const last = (await tryRun(['-C', root, 'log', '-1', '--format=%H', '--', rel]))?.trim();
      if (!last) return false;
      const reflog = await tryRun(['-C', root, 'reflog', 'show', '-n', String(REFLOG_LIMIT), '--format=%H%x09%gs', 'HEAD', '--']);
      return (reflog ?? '').split('\n').some((l) => l.startsWith(`${last}\tcommit`));
    },
  };
  return client;
}
