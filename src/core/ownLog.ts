import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Redacted } from './redact';
import { makeDir } from './safeDirs';

/**
 * The tool's own log lines (`hook.log`), written so that a repository cannot aim them: the folder must
 * really lie inside the workspace (no symlinked output dir or parent leading out), the log itself is
 * never a symlink, FIFO or device. Where that cannot be had, lines go to the user's own state folder.
 */

/** True when `abs` is `root` or inside it (both absolute). */
function within(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Where a path really is: its deepest existing part with symlinks resolved, the rest as written. */
async function realish(p: string): Promise<string> {
  let probe = path.resolve(p);
  const rest: string[] = [];
  for (;;) {
    const real = await fs.realpath(probe).catch(() => null);
    if (real !== null) return path.join(real, ...rest.reverse());
    // A link to nothing: where it would lead is unknown, so it is inside nothing.
    if (await fs.lstat(probe).then(() => true, () => false)) return '\u0000dangling';
    const parent = path.dirname(probe);
    if (parent === probe) return path.resolve(p);
    rest.push(path.basename(probe));
    probe = parent;
  }
}

/**
 * Whether `dir` really lies inside `root`: the real location of its deepest existing part (symlinks
 * resolved) is inside the root's. A folder not yet created is judged by its parents.
 */
export async function realInside(dir: string, root: string): Promise<boolean> {
  if (!within(path.resolve(root), path.resolve(dir))) return false;
  const [realRoot, realDir] = await Promise.all([realish(root), realish(dir)]);
  return within(realRoot, realDir);
}

// O_NOFOLLOW: a symlink in the log's place fails the open (ELOOP) instead of being written through.
const APPEND_FLAGS =
  fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

/** Appends to a regular file that is not a symlink; the reason when it refuses. */
async function appendNoFollow(file: string, text: string, mode: number): Promise<string | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, APPEND_FLAGS, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ELOOP' || code === 'EMLINK' ? 'is a symbolic link; not followed' : `cannot be written: ${(err as Error).message}`;
  }
  try {
    if (!(await handle.stat()).isFile()) return 'is not a regular file; not written';
    await handle.write(text);
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * Appends `text` to `file` when its folder really lies inside `root` and the file is a plain file (or
 * absent). Returns null when written, else why not (nothing is created outside the root, nor the root).
 */
export async function appendInside(file: string, root: string, text: Redacted): Promise<string | null> {
  const dir = path.dirname(file);
  if (!(await realInside(dir, root))) return `${dir} leads outside the workspace; not written`;
  // A workspace removed meanwhile (a repository deleted while its packet was written) is not made again.
  if (!(await fs.stat(root).then((st) => st.isDirectory(), () => false))) return `${root} no longer exists; not written`;
  try {
    await makeDir(dir);
  } catch (err) {
    return `cannot be created: ${(err as Error).message}`;
  }
  if (!(await realInside(dir, root))) return `${dir} leads outside the workspace; not written`;
  const refused = await appendNoFollow(file, text, 0o644);
  return refused ? `${file} ${refused}` : null;
}

/**
 * The user's own state folder for the tool (`$HANDOFF_STATE_DIR`, else `$XDG_STATE_HOME/session-handoff`,
 * else `~/.local/state/session-handoff`; `%LOCALAPPDATA%\session-handoff` on Windows).
 */
export function userStateDir(env: Record<string, string | undefined> = process.env): string {
  if (env['HANDOFF_STATE_DIR']) return path.resolve(env['HANDOFF_STATE_DIR']);
  const home = env['HOME'] || os.homedir();
  if (process.platform === 'win32') return path.join(env['LOCALAPPDATA'] || path.join(home, 'AppData', 'Local'), 'session-handoff');
  return path.join(env['XDG_STATE_HOME'] || path.join(home, '.local', 'state'), 'session-handoff');
}

/** The log in the user's state folder, for hook runs that may not write where they were started. */
export const STATE_LOG = 'hook.log';

/** Appends one line to the state folder's log (created `0700`); never throws. */
export async function appendStateLog(text: Redacted, env: Record<string, string | undefined> = process.env): Promise<void> {
  try {
    const dir = userStateDir(env);
    await makeDir(dir, 0o700);
    await appendNoFollow(path.join(dir, STATE_LOG), text, 0o600);
  } catch {
    // Nowhere left to report to.
  }
}
