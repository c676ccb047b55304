/**
 * Reads a Roo Code task (`tasks/<taskId>/`; FORMATS: vscode-agents) into session facts; Zoo Code (Roo's
 * successor) and Kilo Code's Roo-based extension write the same files. The first `say:"text"` is the request and later input is
 * `say:"user_feedback"`; commands come from the api history's `execute_command` results (exit code in
 * the text), edits from `task_metadata.json` (`roo_edited`), the task list from the latest
 * `updateTodoList`, the closing words from the completion result or the last assistant text.
 */
import type { CommandResult } from './accumulator';
import type { SessionFacts } from './model';
import type { TaskEvent, TaskSnapshot } from './vscodeTask';
import { apiCommandEvents, apiMessages, factsOfEvents, metadataEdits, obj, outputOf, taskCwd, str, textJson, uiCommandLines, uiMessages } from './vscodeTask';

/**
 * One of Roo Code's `execute_command` results: `Command executed in terminal within working directory
 * '<cwd>'. … Exit code: N`, `Exit code: <undefined, notify user>` (unknown), `Process terminated by
 * signal X`, `Command is still running…`, or a denial (`{"status":"denied",…}`).
 */
export function parseRooResult(text: string): CommandResult & { cwd?: string | null } {
  const t = text.replace(/^\s*\[execute_command for '[\s\S]*?'\] Result:\s*\n?/, '').trim();
  if (t.startsWith('{')) {
    try {
      const o = obj(JSON.parse(t));
      if (o?.['status'] === 'denied') return { exit: null, rejected: true };
    } catch {
      // Not JSON: read as text.
    }
  }
  if (/^The user denied this operation\./.test(t)) return { exit: null, rejected: true };
  const cwd = /within working directory '([^'\n]+)'/.exec(t)?.[1] ?? null;
  const { head, output } = outputOf(t);
  const code = /Exit code: (-?\d+)/.exec(head);
  if (code) return { exit: Number(code[1]), stdout: output, cwd };
  const signal = /Process terminated by signal (\S+?)\.?(?:\s|$)/.exec(head);
  if (signal) return { exit: null, unfinished: 'interrupted', error: `terminated by signal ${signal[1]}`, stdout: output, cwd };
  if (/Command is still running/i.test(head)) return { exit: null, unfinished: 'running', error: 'still running when the task was last saved; no exit status', stdout: output || t, cwd };
  if (/Exit code: <undefined/.test(head)) return { exit: null, unfinished: 'no-result', error: 'Roo Code recorded no exit code: the outcome is unknown', stdout: output, cwd };
  return { exit: null, unfinished: 'no-result', error: 'no exit status in the tool result', stdout: output || t, cwd };
}

/** The todo list of an `updateTodoList` tool message. */
function todosOf(text: string): { content: string; status: string }[] | null {
  const o = textJson(text);
  if (o?.['tool'] !== 'updateTodoList' || !Array.isArray(o['todos'])) return null;
  return o['todos']
    .map(obj)
    .filter((t): t is Record<string, unknown> => typeof t?.['content'] === 'string')
    .map((t) => ({ content: t['content'] as string, status: str(t['status']) ?? 'pending' }));
}

/** The facts of one Roo Code (or Kilo Code) task snapshot. `file` is the task's `ui_messages.json`. */
export function rooTaskFacts(snap: TaskSnapshot, file: string, agent: 'roo' | 'zoo' | 'kilo' = 'roo'): SessionFacts {
  const ui = uiMessages(snap.ui, snap.uiLines);
  const api = apiMessages(snap.api, snap.apiLines);
  const cwd = taskCwd(snap, api);
  const events: TaskEvent[] = [];
  ui.forEach((m, i) => {
    if (m.type === 'say' && m.kind === 'text') {
      if (i === 0) events.push({ k: 'request', text: m.text, line: m.line, ts: m.ts });
      else events.push({ k: 'assistant', text: m.text, line: m.line, ts: m.ts, closing: false });
    } else if (m.type === 'say' && m.kind === 'user_feedback') events.push({ k: 'request', text: m.text, line: m.line, ts: m.ts });
    else if (m.kind === 'completion_result') events.push({ k: 'assistant', text: m.text, line: m.line, ts: m.ts, closing: true });
    else if ((m.type === 'ask' && m.kind === 'tool') || (m.type === 'say' && m.kind === 'user_edit_todos')) {
      const items = todosOf(m.text);
      if (items) events.push({ k: 'todos', items, tool: 'updateTodoList', line: m.line, ts: m.ts });
    }
  });
  events.push(...apiCommandEvents(api, parseRooResult));
  return factsOfEvents(agent, snap, file, events, { cwd, files: metadataEdits(snap.metadata, cwd) ?? [], model: null, commandLines: uiCommandLines(ui) });
}
