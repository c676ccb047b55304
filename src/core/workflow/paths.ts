import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { HandoffOptions } from '../options';

/**
 * A workbench or output dir that would lie outside the workspace folder. Settings come with the
 * repository (`.vscode/settings.json`), so a checked-out project must not be able to point reads or
 * writes at the rest of the disk.
 */
export class OutsideWorkspaceError extends Error {
  constructor(readonly setting: 'workbenchDir' | 'outputDir', readonly value: string) {
    super(`${setting} "${value}" leads outside the workspace folder; use a folder inside it`);
    this.name = 'OutsideWorkspaceError';
  }
}

/** True when `abs` is `root` or inside it (both absolute). */
function isWithin(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Checks that the workbench dir and the output dir both lie inside the workspace folder; returns the
 * first that does not, or null. Lexical: the files read and written there are checked for symlinks
 * leading out when they are opened.
 */
export function uncontainedDir(workspaceDir: string, options: Pick<HandoffOptions, 'workbenchDir' | 'outputDir'>): OutsideWorkspaceError | null {
  const root = path.resolve(workspaceDir);
  const workbench = path.resolve(root, options.workbenchDir || '.');
  if (!isWithin(root, workbench)) return new OutsideWorkspaceError('workbenchDir', options.workbenchDir);
  const output = path.resolve(workbench, options.outputDir || 'outputs/handoff');
  if (!isWithin(root, output)) return new OutsideWorkspaceError('outputDir', options.outputDir);
  return null;
}

/**
 * The workbench dir: `options.workbenchDir` resolved against the workspace folder. Throws
 * `OutsideWorkspaceError` when it leaves the folder.
 */
export function workbenchDirOf(workspaceDir: string, options: Pick<HandoffOptions, 'workbenchDir'>): string {
  const root = path.resolve(workspaceDir);
  const dir = path.resolve(root, options.workbenchDir || '.');
  if (!isWithin(root, dir)) throw new OutsideWorkspaceError('workbenchDir', options.workbenchDir);
  return dir;
}

/**
 * The output dir: `options.outputDir` resolved against the workbench dir. Throws
 * `OutsideWorkspaceError` when it (or the workbench dir) leaves the workspace folder.
 */
export function outputDirOf(workspaceDir: string, options: Pick<HandoffOptions, 'workbenchDir' | 'outputDir'>): string {
  const dir = path.resolve(workbenchDirOf(workspaceDir, options), options.outputDir || 'outputs/handoff');
  if (!isWithin(path.resolve(workspaceDir), dir)) throw new OutsideWorkspaceError('outputDir', options.outputDir);
  return dir;
}

/**
 * Before writing into the output dir: its real location (symlinks resolved, up to the deepest part that
 * exists) must still be inside the workspace folder's. Throws `OutsideWorkspaceError` otherwise.
 */
export async function assertOutputInside(workspaceDir: string, options: Pick<HandoffOptions, 'workbenchDir' | 'outputDir'>): Promise<void> {
  const outputDir = outputDirOf(workspaceDir, options);
  const root = await fs.realpath(workspaceDir).catch(() => path.resolve(workspaceDir));
  let probe = outputDir;
  for (;;) {
    const real = await fs.realpath(probe).catch(() => null);
    if (real !== null) {
      if (!isWithin(root, real)) throw new OutsideWorkspaceError('outputDir', options.outputDir);
      return;
    }
    const parent = path.dirname(probe);
    if (parent === probe) return;
    probe = parent;
  }
}

/** A packet's folder inside the output dir. */
export function packetDirOf(outputDir: string, packetId: string): string {
  return path.join(outputDir, packetId);
}
