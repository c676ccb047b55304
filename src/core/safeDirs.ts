import { mkdirSync, promises as fsp, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import * as path from 'node:path';

/**
 * Folders are made one level at a time, never in a system folder. The kernel's own file systems
 * (`/proc`, `/sys`, `/dev`) are no place for the tool's files: a recursive `mkdir` in `/proc/1` never
 * returns (the kernel answers ENOENT for the child and EEXIST for the parent, over and over), and
 * anything written there is not a file. A state or output folder there is refused with a sentence.
 */

const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

/** The system folder `abs` (absolute) lies in, or null (never on Windows). */
export function systemFolderOf(abs: string): string | null {
  if (process.platform === 'win32') return null;
  return SYSTEM_FOLDERS.find((root) => abs === root || abs.startsWith(`${root}/`)) ?? null;
}

function refusal(dir: string, root: string): Error {
  return Object.assign(new Error(`${dir} lies under ${root}, a system folder; nothing is made or written there`), { code: 'ESYSTEMDIR' });
}

const missingCode = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/** Makes `dir` and its missing parents (like `mkdir -p`), refusing a system folder, also one reached through a link. */
export async function makeDir(dir: string, mode?: number): Promise<void> {
  const abs = path.resolve(dir);
  const root = systemFolderOf(abs);
  if (root) throw refusal(abs, root);
  const missing: string[] = [];
  let d = abs;
  for (;;) {
    const st: Stats | null = await fsp.stat(d).catch((err: unknown) => {
      if (missingCode(err)) return null;
      throw err;
    });
    if (st) {
      if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: ${d} is not a folder; ${abs} cannot be made`), { code: 'ENOTDIR' });
      const real = await fsp.realpath(d).catch(() => d);
      const via = systemFolderOf(real);
      if (via) throw refusal(abs, via);
      break;
    }
    missing.push(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    try {
      await fsp.mkdir(m, mode === undefined ? {} : { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** `makeDir`, blocking (for the one-shot processes that use blocking file operations). */
export function makeDirSync(dir: string, mode?: number): void {
  const abs = path.resolve(dir);
  const root = systemFolderOf(abs);
  if (root) throw refusal(abs, root);
  const missing: string[] = [];
  let d = abs;
  for (;;) {
    let st: Stats | null = null;
    try {
      st = statSync(d);
    } catch (err) {
      if (!missingCode(err)) throw err;
    }
    if (st) {
      if (!st.isDirectory()) throw Object.assign(new Error(`ENOTDIR: ${d} is not a folder; ${abs} cannot be made`), { code: 'ENOTDIR' });
      let real = d;
      try {
        real = realpathSync(d);
      } catch {
        // Judged by its name.
      }
      const via = systemFolderOf(real);
      if (via) throw refusal(abs, via);
      break;
    }
    missing.push(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m, mode === undefined ? {} : { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
