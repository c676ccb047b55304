import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findOnPath } from './launcher';

/**
 * Which Codex CLI is installed decides how `setup codex` connects it: hooks (SessionStart,
 * UserPromptSubmit, PreCompact, Stop) where it has them all, else the legacy `notify` program.
 * SessionStart and Stop came in 0.114, UserPromptSubmit in ~0.117, PreCompact with PR #19905 (~0.129).
 */
export const CODEX_HOOKS_SINCE = '0.129.0';

export interface CodexVersion {
  /** `x.y.z`, or null when it could not be told. */
  version: string | null;
  /** Where it was read, for the person: `codex --version (/usr/bin/codex)`, `the newest rollout (…)`. */
  from: string;
}

const VERSION = /(\d+)\.(\d+)\.(\d+)/;

/** Compares two `x.y.z` versions numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = VERSION.exec(a)?.slice(1).map(Number) ?? [0, 0, 0];
  const pb = VERSION.exec(b)?.slice(1).map(Number) ?? [0, 0, 0];
  for (let i = 0; i < 3; i++) if (pa[i]! !== pb[i]!) return pa[i]! - pb[i]!;
  return 0;
}

/** SessionEnd hooks came in Codex 0.145.0 (capped at 3 s). */
export const CODEX_SESSION_END_SINCE = '0.145.0';

/** Whether this Codex has SessionEnd hooks; an unknown version is taken as a current Codex. */
export const codexHasSessionEnd = (v: CodexVersion): boolean => v.version === null || compareVersions(v.version, CODEX_SESSION_END_SINCE) >= 0;

/** Whether this Codex gets hooks; an unknown version is taken as a current Codex (it has them). */
export const codexHasHooks = (v: CodexVersion): boolean => v.version === null || compareVersions(v.version, CODEX_HOOKS_SINCE) >= 0;

function runVersion(file: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { timeout: 3_000, windowsHide: true, maxBuffer: 64 * 1024 }, (err, stdout) => {
      resolve(err ? null : (VERSION.exec(String(stdout))?.[0] ?? null));
    });
  });
}

/** The newest rollout under `sessions/YYYY/MM/DD/` (by folder date, then modification time). */
async function newestRollout(codexHome: string): Promise<string | null> {
  const names = async (dir: string): Promise<string[]> => (await fs.readdir(dir).catch(() => [] as string[])).sort().reverse();
  const root = path.join(codexHome, 'sessions');
  for (const y of (await names(root)).filter((n) => /^\d{4}$/.test(n))) {
    for (const m of (await names(path.join(root, y))).filter((n) => /^\d{2}$/.test(n))) {
      for (const d of (await names(path.join(root, y, m))).filter((n) => /^\d{2}$/.test(n))) {
        const dir = path.join(root, y, m, d);
        const files = (await names(dir)).filter((n) => /^rollout-.*\.jsonl$/.test(n));
        let best: { file: string; mtime: number } | null = null;
        for (const f of files) {
          const st = await fs.stat(path.join(dir, f)).catch(() => null);
          if (st?.isFile() && (!best || st.mtimeMs > best.mtime)) best = { file: path.join(dir, f), mtime: st.mtimeMs };
        }
        if (best) return best.file;
      }
    }
  }
  return null;
}

/** The `cli_version` of a rollout's `session_meta` line (its first line; only the first 64 KB are read). */
async function rolloutVersion(file: string): Promise<string | null> {
  const handle = await fs.open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const first = buf.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
    const v = (JSON.parse(first) as { payload?: { cli_version?: unknown } }).payload?.cli_version;
    return typeof v === 'string' && VERSION.test(v) ? v : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * The installed Codex's version: `codex --version` when it is on PATH, else the `cli_version` of the
 * newest rollout in `codexHome`, else unknown. Never throws.
 */
export async function detectCodexVersion(env: Record<string, string | undefined>, codexHome: string): Promise<CodexVersion> {
  const exe = await findOnPath('codex', env).catch(() => null);
  if (exe) {
    const v = await runVersion(exe);
    if (v) return { version: v, from: `codex --version (${exe})` };
  }
  const rollout = await newestRollout(codexHome);
  if (rollout) {
    const v = await rolloutVersion(rollout);
    if (v) return { version: v, from: `the newest rollout (${rollout})` };
  }
  return { version: null, from: 'no codex on PATH and no rollout to read a version from' };
}

/** Which Codex was found, from where, and what that means for the set-up (one sentence for the person). */
export function versionNote(v: CodexVersion): string {
  if (v.version === null) return `Codex version unknown (${v.from}): set up for a current Codex, through its hooks. Pass --codex-version to choose.`;
  return codexHasHooks(v)
    ? `Codex ${v.version} (from ${v.from}) has hooks: connecting through hooks.json.`
    : `Codex ${v.version} (from ${v.from}) predates the hooks Session Handoff uses (${CODEX_HOOKS_SINCE}): connecting through the notify program.`;
}
