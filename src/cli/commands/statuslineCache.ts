import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../../core/fsx';
import { redactedJson } from '../../core/redact';

/** How long the clean/packet words stay valid when nothing they depend on visibly changed. */
export const STATUSLINE_CACHE_TTL_MS = 10_000;

interface CacheEntry {
  at: number;
  fingerprint: string;
  words: string[];
}

/**
 * Claude Code runs the statusline after every message; the clean checks run git several times. The
 * words are cached (outside the repository, so the cache never dirties it) and recomputed when the TTL
 * passes or git's HEAD / index or the output dir changed.
 */
export async function cachedWords(
  workspaceDir: string,
  outputDir: string,
  compute: () => Promise<string[]>,
  now = Date.now(),
): Promise<string[]> {
  const file = path.join(os.tmpdir(), `handoff-statusline-${createHash('sha1').update(workspaceDir).digest('hex').slice(0, 16)}.json`);
  const fingerprint = await fingerprintOf(workspaceDir, outputDir);
  try {
    const entry = JSON.parse((await readIfExists(file)) ?? 'null') as CacheEntry;
    if (entry.fingerprint === fingerprint && now - entry.at >= 0 && now - entry.at < STATUSLINE_CACHE_TTL_MS && Array.isArray(entry.words)) {
      return entry.words;
    }
  } catch {
    // no cache yet, or unreadable: compute
  }
  const words = await compute();
  await atomicWrite(file, redactedJson({ at: now, fingerprint, words } satisfies CacheEntry)).catch(() => undefined);
  return words;
}

async function fingerprintOf(workspaceDir: string, outputDir: string): Promise<string> {
  const paths = [path.join(workspaceDir, '.git', 'HEAD'), path.join(workspaceDir, '.git', 'index'), outputDir];
  const mtimes = await Promise.all(paths.map((p) => fs.stat(p).then((s) => s.mtimeMs, () => 0)));
  return mtimes.join(':');
}
