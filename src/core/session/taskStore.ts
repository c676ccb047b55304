import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readRegular } from '../fsx';

/** A task of Claude Code's on-disk task list (FORMATS.md §1.8.6), as read: raw text, redacted later. */
export interface StoredTask {
  id: string;
  subject: string;
  status: 'pending' | 'in_progress' | 'completed';
}

const MAX_TASKS = 100;
const MAX_TASK_BYTES = 256 * 1024;

/**
 * The task-list folder of a Claude Code transcript: `<config>/tasks/<sessionId>/` next to the
 * `<config>/projects/<slug>/<sessionId>.jsonl` the transcript sits in; null for a file elsewhere.
 */
export function taskStoreDir(transcript: string, sessionId: string): string | null {
  const projects = path.dirname(path.dirname(transcript));
  if (path.basename(projects) !== 'projects' || !/^[\w.-]+$/.test(sessionId)) return null;
  return path.join(path.dirname(projects), 'tasks', sessionId);
}

/**
 * Reads Claude Code's live task list for one session, read-only: one JSON file per task
 * (`{id, subject, status, …}`; deleted tasks have no file; `metadata._internal` tasks are hidden from
 * the agent too). Re-reads only when a file was added, removed or rewritten. Null when the folder is
 * missing or holds no task, so the transcript's own record is used instead.
 */
export class TaskStore {
  private key = '';
  private tasks: StoredTask[] | null = null;

  constructor(readonly dir: string) {}

  /** The tasks as of now, and whether they changed since the last call. */
  async read(): Promise<{ tasks: StoredTask[] | null; changed: boolean }> {
    let names: string[];
    try {
      names = (await fs.readdir(this.dir)).filter((n) => n.endsWith('.json')).sort();
    } catch {
      return this.settle('', null);
    }
    const stats = await Promise.all(names.slice(0, MAX_TASKS * 2).map(async (n) => ({ n, st: await fs.stat(path.join(this.dir, n)).catch(() => null) })));
    const files = stats.filter((s) => s.st?.isFile());
    const key = files.map((s) => `${s.n}:${s.st?.mtimeMs}:${s.st?.size}`).join('|');
    if (key === this.key) return { tasks: this.tasks, changed: false };
    const tasks: StoredTask[] = [];
    for (const { n } of files) {
      if (tasks.length >= MAX_TASKS) break;
      const r = await readRegular(path.join(this.dir, n), { root: this.dir, maxBytes: MAX_TASK_BYTES });
      if (!r.ok) continue;
      const t = parseTask(r.bytes.toString('utf8'));
      if (t) tasks.push(t);
    }
    tasks.sort((a, b) => (Number(a.id) || 0) - (Number(b.id) || 0) || a.id.localeCompare(b.id));
    return this.settle(key, tasks.length ? tasks : null);
  }

  private settle(key: string, tasks: StoredTask[] | null): { tasks: StoredTask[] | null; changed: boolean } {
    const changed = key !== this.key;
    this.key = key;
    this.tasks = tasks;
    return { tasks, changed };
  }
}

function parseTask(text: string): StoredTask | null {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return null;
  const t = o as Record<string, unknown>;
  const id = typeof t['id'] === 'string' || typeof t['id'] === 'number' ? String(t['id']) : null;
  const subject = typeof t['subject'] === 'string' ? t['subject'].trim() : '';
  const meta = t['metadata'];
  if (!id || !subject || t['status'] === 'deleted') return null;
  if (meta && typeof meta === 'object' && (meta as Record<string, unknown>)['_internal']) return null;
  const status = t['status'] === 'in_progress' || t['status'] === 'completed' ? t['status'] : 'pending';
  return { id, subject, status };
}
