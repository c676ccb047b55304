import { randomBytes } from 'node:crypto';
import { constants as fsc, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pidAlive } from '../registry/lock';
import type { SetupPlan } from './plan';
import { makeDir } from '../safeDirs';

/** Agent settings may hold API keys (`env`): a backup or temp copy is never readable by others. */
const PRIVATE = 0o600;

const errno = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

/**
 * The file a write to `file` really lands in: the target of a symlink (dotfiles kept in a repository
 * stay links; their target gets the change), else the file itself.
 */
export async function realTarget(file: string): Promise<string> {
  try {
    return await fs.realpath(file);
  } catch (err) {
    if (errno(err) === 'ENOENT') {
      // A dangling link is written where it points; a missing file where it is named.
      const link = await fs.readlink(file).catch(() => null);
      return link === null ? file : path.resolve(path.dirname(file), link);
    }
    throw err;
  }
}

/**
 * Why `file` must not be changed, or null: a settings file its owner made read-only (`0444`) is theirs
 * to open up; set-up never overrides that, also when it runs as root.
 */
export async function writeRefusal(file: string): Promise<string | null> {
  let st;
  try {
    st = await fs.stat(file);
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
  const readOnly = (st.mode & 0o222) === 0 || (await fs.access(file, fsc.W_OK).then(() => false, () => true));
  if (!readOnly) return null;
  return `${file} is read-only (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); nothing was written. Make it writable (chmod u+w) and run set-up again, or add the entries by hand.`;
}

/**
 * The temp files a killed set-up left beside `target` (`.<name>.<pid>.<hex>.tmp` of a process that is
 * gone): they may hold a copy of the settings. Only this file's own temp names are looked at.
 */
async function removeKilledTemps(target: string): Promise<void> {
  const prefix = `.${path.basename(target)}.`;
  const names = await fs.readdir(path.dirname(target)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length));
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) await fs.rm(path.join(path.dirname(target), name), { force: true });
  }
}

/** What killed runs left beside the plans' files and backups; also when there is nothing to write now. Never throws. */
export async function removeLeftovers(plans: SetupPlan[]): Promise<void> {
  for (const f of plans.flatMap((p) => [p.file, p.backupFile])) await removeKilledTemps(await realTarget(f)).catch(() => undefined);
}

/**
 * Writes `text` to `file` atomically with the given mode from the first byte: a temp file next to the
 * real target, created exclusively with `mode` (so a run killed half-way leaves no wider copy), synced,
 * then renamed over the target. A symlink at `file` is kept.
 */
export async function writeWithMode(file: string, text: string, mode: number): Promise<void> {
  const target = await realTarget(file);
  await makeDir(path.dirname(target));
  await removeKilledTemps(target);
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await fs.open(tmp, 'wx', mode);
  try {
    await handle.chmod(mode); // the umask may have narrowed it; never widened
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/**
 * Carries out a plan: the backup first (never over an existing one), then the file, atomically; a
 * file that must not exist is deleted. Re-checks that the file did not change since the plan was
 * made, so an edit made meanwhile (for example while the diff was on screen) is never overwritten.
 * The file keeps its mode (and stays a link when it is one); the backup gets the file's mode, never
 * wider than `0600`; a read-only file is refused.
 */
export async function applyPlan(plan: SetupPlan): Promise<void> {
  const now = await fs.readFile(plan.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (now !== plan.before) throw new Error(`${plan.file} changed since the change was prepared; nothing was written. Run it again.`);
  await removeLeftovers([plan]);
  const writes = plan.after !== plan.before || (plan.writeBackup !== null) || plan.removeBackup;
  if (!writes) return;
  const refusal = plan.before === null ? null : await writeRefusal(plan.file);
  if (refusal) throw new Error(refusal);
  const fileMode = plan.before === null ? PRIVATE : (await fs.stat(plan.file)).mode & 0o777;
  if (plan.writeBackup !== null) {
    const exists = await fs.lstat(plan.backupFile).then(() => true, () => false);
    // The user's own settings, written back byte for byte: not an output, and masking a key in it
    // would break their configuration.
    if (!exists) await writeWithMode(plan.backupFile, plan.writeBackup, fileMode & PRIVATE);
  }
  if (plan.after !== plan.before) {
    // A file set-up created goes again; behind a link, the link stays (as it was before set-up).
    if (plan.after === null) await fs.rm(await realTarget(plan.file), { force: true });
    else await writeWithMode(plan.file, plan.after, plan.before === null ? 0o600 : fileMode);
  }
  if (plan.removeBackup) await fs.rm(plan.backupFile, { force: true });
}

/**
 * Carries out the plans of one set-up (Codex: hooks.json and config.toml) after checking them all
 * first: when any file changed since the plans were made, or is read-only, nothing is written.
 */
export async function applyPlans(plans: SetupPlan[]): Promise<void> {
  for (const plan of plans) {
    const now = await fs.readFile(plan.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (now !== plan.before) throw new Error(`${plan.file} changed since the change was prepared; nothing was written. Run it again.`);
    const refusal = plan.before === null || plan.after === plan.before ? null : await writeRefusal(plan.file);
    if (refusal) throw new Error(refusal);
  }
  for (const plan of plans) await applyPlan(plan);
}
