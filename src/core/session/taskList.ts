import type { SessionTodo } from './model';
import { cut } from './text';

const MAX_TODOS = 100;

export function todoStatus(s: string): SessionTodo['status'] {
  return s === 'in_progress' || s === 'completed' ? s : 'pending';
}

/**
 * The session's task list as the agent kept it: a whole list replaced (TodoWrite, update_plan) or
 * tasks created and updated one by one (task tools). `count` is the number of commands so far: since
 * when a task is in progress.
 */
export class TaskList {
  items: SessionTodo[] | null = null;
  source: { tool: string; line: number | null } | null = null;

  set(items: { content: string; status: string; id?: string }[], source: { tool: string; line: number | null } | null, count: number): void {
    const previous = new Map((this.items ?? []).map((t) => [t.id ?? t.content, t]));
    const next: SessionTodo[] = [];
    for (const it of items.slice(0, MAX_TODOS)) {
      const content = cut(it.content.trim(), 500);
      if (!content || it.status === 'deleted') continue;
      const status = todoStatus(it.status);
      const before = previous.get(it.id ?? content);
      const since = status === 'in_progress' && before?.status === 'in_progress' ? before.since : count;
      next.push({ content, status, since, ...(it.id !== undefined ? { id: it.id } : {}), ...(source?.line ? { line: source.line } : {}) });
    }
    this.items = next;
    if (source) this.source = source;
  }

  /** Returns false when nothing changed. */
  create(id: string, subject: string, line: number | null, count: number): boolean {
    const content = cut(subject.trim(), 500);
    if (!content) return false;
    const list = (this.items ?? []).filter((t) => t.id !== id);
    if (list.length >= MAX_TODOS) return false;
    list.push({ content, status: 'pending', since: count, id, ...(line ? { line } : {}) });
    this.items = list;
    this.source = { tool: 'task tools', line };
    return true;
  }

  /** Returns false when nothing changed. */
  update(id: string, change: { status?: string; subject?: string }, line: number | null, count: number): boolean {
    const list = this.items ?? [];
    const at = list.findIndex((t) => t.id === id);
    if (change.status === 'deleted') {
      if (at >= 0) list.splice(at, 1);
    } else if (at >= 0) {
      const t = list[at] as SessionTodo;
      const status = change.status ? todoStatus(change.status) : t.status;
      list[at] = {
        ...t,
        ...(change.subject?.trim() ? { content: cut(change.subject.trim(), 500) } : {}),
        status,
        since: status === 'in_progress' && t.status !== 'in_progress' ? count : t.since,
        ...(line ? { line } : {}),
      };
    } else if (change.subject?.trim() && list.length < MAX_TODOS) {
      // A task created before the part of the log that was read (or in a shared list).
      list.push({ content: cut(change.subject.trim(), 500), status: todoStatus(change.status ?? 'pending'), since: count, id, ...(line ? { line } : {}) });
    } else {
      return false;
    }
    this.items = list;
    this.source = { tool: 'task tools', line };
    return true;
  }

  get allCompleted(): boolean {
    return !!this.items?.length && this.items.every((t) => t.status === 'completed');
  }
}
