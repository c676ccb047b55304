import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HandoffOptions } from '../options';
import { gitDirOf } from '../registry/ownership';
import { workbenchDirOf } from './paths';

/** Files an agent or script writes into a workbench (the tool's own `context_usage.json` is not one). */
export const WORKBENCH_FILES = ['agent_state.json', 'feedback_record.jsonl', 'feature_list.json', 'task_board.json', 'verification_report.json', 'review_report.json'];

/**
 * Whether an agent event's folder is one the hooks may write into: a git working tree (not the home
 * folder itself, nor a folder only inside a repository rooted at home, as dotfiles repositories are),
 * or a folder holding workbench files. User-level hooks run for every session, in any folder: anywhere
 * else they write nothing.
 */
export async function eventFolderWritable(
  workspaceDir: string,
  options: Pick<HandoffOptions, 'workbenchDir'>,
  env: Record<string, string | undefined> = process.env,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const dir = path.resolve(workspaceDir);
  let workbench: string;
  try {
    workbench = workbenchDirOf(dir, options);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const isFile = (f: string): Promise<boolean> => fs.stat(path.join(workbench, f)).then((s) => s.isFile(), () => false);
  if ((await Promise.all(WORKBENCH_FILES.map(isFile))).some(Boolean)) return { ok: true };
  const home = await fs.realpath(env['HOME'] || os.homedir()).catch(() => path.resolve(env['HOME'] || os.homedir()));
  const gitDir = await gitDirOf(dir);
  if (gitDir) {
    const top = path.basename(gitDir) === '.git' ? path.dirname(gitDir) : null;
    const realTop = top ? await fs.realpath(top).catch(() => top) : null;
    if (realTop !== home) return { ok: true };
    return { ok: false, reason: `${dir} lies in the repository rooted at the home folder (dotfiles), not a project, and holds no workbench files` };
  }
  return { ok: false, reason: `${dir} is not a git repository and holds no workbench files` };
}
