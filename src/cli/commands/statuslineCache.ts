import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, files, readIfExists, readRegular } from '../../core/fsx';
import { redactedJson } from '../../core/redact';

/** How long the clean/packet words stay valid when nothing they depend on visibly changed. */
export const STATUSLINE_CACHE_TTL_MS = 10_000;

/** The workbench artifacts a packet's freshness compares (their change makes it stale). */
const INPUT_FILES = ['agent_state.json', 'feedback_record.jsonl', 'feature_list.json', 'task_board.json', 'verification_report.json', 'review_report.json'];

interface CacheEntry {
  at: number;
  /** A digest of `statuslineFingerprint`: with thousands of packet folders the string itself runs to hundreds of KB. */
  fingerprint: string;
  words: string[];
}

export interface CacheDirs {
  workspaceDir: string;
  workbenchDir: string;
  outputDir: string;
}

/**
 * Claude Code runs the statusline after every message; the clean checks run git several times. The
 * words are cached (outside the repository, so the cache never dirties it) and recomputed when the TTL
 * passes or anything freshness depends on changed: HEAD, the ref it points to, the index, the packet
 * files or the input artifacts.
 */
export async function cachedWords(dirs: CacheDirs, compute: () => Promise<string[]>, now = Date.now()): Promise<string[]> {
  const file = cacheFileOf(dirs.workspaceDir);
  const fingerprint = digestOf(await statuslineFingerprint(dirs));
  try {
    const entry = JSON.parse((await readIfExists(file)) ?? 'null') as CacheEntry;
    if (entry.fingerprint === fingerprint && now - entry.at >= 0 && now - entry.at < STATUSLINE_CACHE_TTL_MS && Array.isArray(entry.words)) {
      return entry.words;
    }
  } catch {
    // no cache yet, or unreadable: compute
  }
  const words = await compute();
  await atomicWrite(file, redactedJson({ at: now, fingerprint, words } satisfies CacheEntry), { durable: false }).catch(() => undefined);
  return words;
}

/** Where the words of a workspace are cached: the system's temporary folder, never the repository. */
export function cacheFileOf(workspaceDir: string): string {
  return path.join(os.tmpdir(), `handoff-statusline-${fnv1a(workspaceDir)}.json`);
}

/** A 64-bit FNV-1a hash as hex: names the cache file per workspace without loading the crypto module. */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

/**
 * A 64-bit digest of a text (two 32-bit multiply-xorshift lanes over its UTF-16 units, then its length):
 * what the cache compares instead of a fingerprint that grows with every packet folder, so a warm run
 * reads, parses and compares a few dozen bytes. Not cryptographic, and it needs not be: the cache file is
 * the user's own, and a chance collision costs at most one stale line until the TTL passes.
 */
export function digestOf(text: string): string {
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `${(h2 >>> 0).toString(16).padStart(8, '0')}${(h1 >>> 0).toString(16).padStart(8, '0')}/${text.length}`;
}

/** A small git file's text, or '' — a FIFO or device in its place is refused, never waited on. */
const readText = (file: string): Promise<string> =>
  readRegular(file, { maxBytes: 64 * 1024 }).then((r) => (r.ok ? r.bytes.toString('utf8').trim() : ''), () => '');
const statOf = (file: string): Promise<string> => files().stat(file).then((s) => `${s.mtimeMs}/${s.size}`, () => '-');

/**
 * Where git keeps this checkout's HEAD and index (`git rev-parse --git-dir`) and the refs shared by
 * all worktrees (`--git-common-dir`), found without running git: the nearest `.git` folder, or the
 * `gitdir:` a linked worktree's `.git` file points to (with its `commondir`). Null outside a repository.
 */
export async function gitDirsOf(dir: string): Promise<{ gitDir: string; commonDir: string } | null> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const dotGit = path.join(d, '.git');
    const stat = await files().stat(dotGit).catch(() => null);
    if (stat?.isDirectory()) return { gitDir: dotGit, commonDir: dotGit };
    if (stat?.isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(await readText(dotGit));
      if (!m?.[1]) return null;
      const gitDir = path.resolve(d, m[1].trim());
      const common = await readText(path.join(gitDir, 'commondir'));
      return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
    }
    if (path.dirname(d) === d) return null;
  }
}

/**
 * What the words depend on, as one string: HEAD's content, the ref it names (loose, else packed-refs),
 * the index, each packet file in the output dir and the input artifacts. A commit, a reset, a checkout
 * in this worktree, a new or rewritten packet or an edited input all change it.
 */
export async function statuslineFingerprint(dirs: CacheDirs): Promise<string> {
  const git = await gitDirsOf(dirs.workspaceDir);
  const parts: Promise<string>[] = [];
  if (git) {
    const head = await readText(path.join(git.gitDir, 'HEAD'));
    parts.push(Promise.resolve(head), statOf(path.join(git.gitDir, 'index')));
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    if (ref) {
      // Per-worktree refs live in the worktree's git dir, branches in the common dir.
      const base = ref.startsWith('refs/heads/') || ref.startsWith('refs/remotes/') || ref.startsWith('refs/tags/') ? git.commonDir : git.gitDir;
      parts.push(readText(path.join(base, ref)), statOf(path.join(git.commonDir, 'packed-refs')));
    }
  }
  const packets = await files().readdir(dirs.outputDir).catch(() => []);
  for (const e of packets.filter((p) => p.isDirectory()).map((p) => p.name).sort()) {
    parts.push(statOf(path.join(dirs.outputDir, e, 'handoff.json')).then((s) => `${e}:${s}`));
  }
  for (const f of INPUT_FILES) parts.push(statOf(path.join(dirs.workbenchDir, f)));
  return (await Promise.all(parts)).join('|');
}
