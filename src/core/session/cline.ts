/**
 * Reads a Cline task (legacy bundle, `tasks/<taskId>/`; FORMATS: vscode-agents) into session facts:
 * the first request (`say:"task"`) and later feedback, commands with the exit code from the api
 * history's tool results (native `tool_use` or XML calls), denials with the user's feedback, the
 * files Cline edited (`task_metadata.json`), the focus-chain checklist and the closing words.
 */
import * as path from 'node:path';
import type { CommandResult } from './accumulator';
import type { SessionFacts } from './model';
import type { TaskEvent, TaskSnapshot, UiMessage } from './vscodeTask';
import { apiCommandEvents, apiMessages, checklist, factsOfEvents, metadataEdits, outputOf, taskCwd, textJson, uiCommandLines, uiMessages } from './vscodeTask';

const DENIED = /^The user denied this operation\./;

/**
 * One of Cline's `execute_command` result strings: `Command executed successfully (exit code 0).`,
 * `Command failed with exit code N.`, `Command terminated by signal S.`, or `Command executed.` with
 * no code at all (builds before the exit code was recorded): unknown, never success.
 */
export function parseClineResult(text: string): CommandResult {
  const body = text.replace(/^\s*\[execute_command for '[\s\S]*?'\] Result:\s*\n?/, '');
  const { head, output } = outputOf(body);
  const h = head.trim();
  if (DENIED.test(h)) return { exit: null, rejected: true };
  const ok = /Command executed successfully \(exit code (-?\d+)\)/.exec(h);
  if (ok) return { exit: Number(ok[1]), stdout: output };
  const failed = /Command failed with exit code (-?\d+)/.exec(h);
  if (failed) return { exit: Number(failed[1]), stdout: output };
  const signal = /Command terminated by signal (\S+?)\.?(?:\s|$)/.exec(h);
  if (signal) return { exit: null, unfinished: 'interrupted', error: `terminated by signal ${signal[1]}`, stdout: output };
  if (/still running/i.test(h)) return { exit: null, unfinished: 'running', error: 'still running when the task was last saved; no exit status', stdout: output };
  if (/^Command executed\.?$/m.test(h)) {
    return { exit: null, unfinished: 'no-result', error: 'Cline recorded no exit code ("Command executed."): the outcome is unknown', stdout: output };
  }
  return { exit: null, unfinished: 'no-result', error: 'no exit status in the tool result', stdout: output || body };
}

/** Cline marks a command that needs approval with `REQ_APP` at its end. */
function commandText(text: string): string {
  return text.replace(/\s*REQ_APP\s*$/, '').trim();
}

const EDIT_TOOLS = new Set(['editedExistingFile', 'newFileCreated', 'fileDeleted']);

/** When the api history is missing: the commands the chat shows, with their output and no exit code. */
function uiCommandEvents(ui: UiMessage[]): TaskEvent[] {
  const out: TaskEvent[] = [];
  let open: { id: string; output: string[]; line: number; ts: number; offered: boolean } | null = null;
  const close = () => {
    if (!open) return;
    // An `ask:command` with no output after it was offered and never approved: it never ran.
    if (open.offered && !open.output.length) {
      const call = out.findIndex((e) => e.k === 'call' && e.id === open?.id);
      if (call >= 0) out.splice(call, 1);
      open = null;
      return;
    }
    out.push({ k: 'result', id: open.id, result: { exit: null, unfinished: 'no-result', error: 'no exit code: the api history of the task could not be read', stdout: open.output.join('\n') }, feedback: null, cwd: null, line: open.line, ts: open.ts });
    open = null;
  };
  for (const m of ui) {
    if (m.kind === 'command') {
      close();
      const command = commandText(m.text);
      if (!command) continue;
      const id = `ui:${m.index}`;
      out.push({ k: 'call', id, command, tool: 'execute_command', cwd: null, line: m.line, ts: m.ts });
      open = { id, output: [], line: m.line, ts: m.ts, offered: m.type === 'ask' };
    } else if (m.kind === 'command_output' && open) {
      open.output.push(m.text);
      open.line = m.line;
      open.ts = m.ts;
    }
  }
  close();
  return out;
}

/** The facts of one Cline task snapshot. `file` is the task's `ui_messages.json`. */
export function clineTaskFacts(snap: TaskSnapshot, file: string): SessionFacts {
  const ui = uiMessages(snap.ui, snap.uiLines);
  const api = apiMessages(snap.api, snap.apiLines);
  const events: TaskEvent[] = [];
  const uiEdits: string[] = [];
  const cwd = taskCwd(snap, api);
  ui.forEach((m, i) => {
    if (m.type === 'say' && m.kind === 'task' && i === 0) events.push({ k: 'request', text: m.text, line: m.line, ts: m.ts });
    else if (m.type === 'say' && m.kind === 'user_feedback') events.push({ k: 'request', text: m.text, line: m.line, ts: m.ts });
    else if (m.type === 'say' && m.kind === 'text') events.push({ k: 'assistant', text: m.text, line: m.line, ts: m.ts, closing: false });
    else if (m.kind === 'completion_result') events.push({ k: 'assistant', text: m.text, line: m.line, ts: m.ts, closing: true });
    else if (m.type === 'say' && m.kind === 'task_progress') {
      const items = checklist(m.text);
      if (items.length) events.push({ k: 'todos', items, tool: 'focus chain', line: m.line, ts: m.ts });
    } else if (m.type === 'say' && m.kind === 'tool') {
      // Only `say` edits happened; an `ask` may have been declined.
      const t = textJson(m.text);
      const p = typeof t?.['path'] === 'string' ? t['path'] : null;
      if (p && EDIT_TOOLS.has(String(t?.['tool']))) uiEdits.push(path.isAbsolute(p) || !cwd ? p : path.resolve(cwd, p));
    }
  });
  const fromApi = apiCommandEvents(api, parseClineResult);
  events.push(...(fromApi.length || api.length ? fromApi : uiCommandEvents(ui)));
  const model = [...api].reverse().find((m) => m.modelId)?.modelId ?? null;
  const files = metadataEdits(snap.metadata, cwd) ?? uiEdits;
  return factsOfEvents('cline', snap, file, events, { cwd, files, model, ...(fromApi.length ? { commandLines: uiCommandLines(ui) } : {}) });
}
