import { promises as fs } from 'node:fs';
import { atomicWrite } from '../fsx';
import type { SetupPlan } from './plan';

/**
 * Carries out a plan: the backup first (never over an existing one), then the file, atomically; a
 * file that must not exist is deleted. Re-checks that the file did not change since the plan was
 * made, so an edit made meanwhile (for example while the diff was on screen) is never overwritten.
 */
export async function applyPlan(plan: SetupPlan): Promise<void> {
  const now = await fs.readFile(plan.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (now !== plan.before) throw new Error(`${plan.file} changed since the change was prepared; nothing was written. Run it again.`);
  if (plan.writeBackup !== null) {
    const exists = await fs.stat(plan.backupFile).then(() => true, () => false);
    // The user's own settings, written back byte for byte: not an output, and masking a key in it
    // would break their configuration.
    if (!exists) await atomicWrite(plan.backupFile, Buffer.from(plan.writeBackup, 'utf8'));
  }
  if (plan.after !== plan.before) {
    if (plan.after === null) await fs.rm(plan.file, { force: true });
    else {
      // Keep the file's permissions (a settings file may be private to its owner).
      const mode = plan.before === null ? null : (await fs.stat(plan.file)).mode & 0o777;
      await atomicWrite(plan.file, Buffer.from(plan.after, 'utf8'));
      if (mode !== null) await fs.chmod(plan.file, mode);
    }
  }
  if (plan.removeBackup) await fs.rm(plan.backupFile, { force: true });
}
