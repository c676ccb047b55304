import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** The top-level artifacts whose changes matter to a refresh (the alternatives under outputs/ aside). */
const ARTIFACT_FILES = ['agent_state.json', 'verification_report.json', 'review_report.json', 'feedback_record.jsonl', 'feature_list.json', 'task_board.json'];

async function stamp(file: string): Promise<string> {
  try {
    const s = await fs.stat(file);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return '-';
  }
}

/**
 * A cheap summary of what a full refresh reads — artifact and packet file stamps, git's HEAD and
 * index — made of `stat`s only. The slow fallback compares it with the last refresh's, so a lost
 * watcher event (inotify misses files created in a brand-new folder) costs a delay, not a stale view.
 */
export async function workbenchFingerprint(dirs: { workbenchDir: string; outputDir: string; gitDir: string }): Promise<string> {
  let packets: string[] = [];
  try {
    packets = (await fs.readdir(dirs.outputDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch {
    // No output dir yet.
  }
  const files = [
    ...ARTIFACT_FILES.map((f) => path.join(dirs.workbenchDir, f)),
    ...packets.map((p) => path.join(dirs.outputDir, p, 'handoff.json')),
    path.join(dirs.gitDir, 'HEAD'),
    path.join(dirs.gitDir, 'index'),
  ];
  const stamps = await Promise.all(files.map(stamp));
  return files.map((f, i) => `${f}=${stamps[i]}`).join('\n');
}
