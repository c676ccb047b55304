import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isProgramSource } from '../clean/codeSmells';
import { resolveInside } from '../safePath';

/** Enough of a file to see its shebang and, in a script, its `__main__` guard. */
const HEAD_BYTES = 64 * 1024;
const MAX_FILES = 200;

/** The first bytes of a regular file inside `root`, or null (missing, not a file, outside, unreadable). */
async function head(root: string, rel: string): Promise<string | null> {
  const abs = resolveInside(root, rel);
  if (!abs) return null;
  try {
    const st = await fs.lstat(abs);
    if (!st.isFile()) return null;
    const handle = await fs.open(abs, 'r');
    try {
      const buf = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** The `bin` entries of the repository's package.json, repo-relative. */
async function packageBins(root: string): Promise<string[]> {
  const text = await head(root, 'package.json');
  if (!text) return [];
  try {
    const bin = (JSON.parse(text) as { bin?: unknown }).bin;
    const entries = typeof bin === 'string' ? [bin] : bin && typeof bin === 'object' ? Object.values(bin as Record<string, unknown>) : [];
    return entries.filter((b): b is string => typeof b === 'string').map((b) => path.posix.normalize(b.replace(/\\/g, '/')).replace(/^\.\//, ''));
  } catch {
    return [];
  }
}

/**
 * Which of `paths` (repo-relative) are command-line programs: the package's `bin` entries, and files
 * that start with a shebang or hold a Python `__main__` guard. Their prints are output, not debugging.
 */
export async function programFilesOf(root: string, paths: readonly string[]): Promise<string[]> {
  const bins = new Set(await packageBins(root));
  const out: string[] = [];
  for (const p of [...new Set(paths)].slice(0, MAX_FILES)) {
    if (bins.has(p)) {
      out.push(p);
      continue;
    }
    const text = await head(root, p);
    if (text !== null && isProgramSource(text)) out.push(p);
  }
  return out;
}
