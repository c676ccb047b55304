/**
 * What Cline and Roo Code (and its fork Kilo Code) tasks have in common (FORMATS: vscode-agents): a
 * task folder of JSON files rewritten whole on every save — `ui_messages.json` (what the chat shows),
 * `api_conversation_history.json` (the Anthropic-format messages, where exit codes live) and
 * `task_metadata.json` (the files the agent edited). The agent readers turn one snapshot of those
 * files into timeline events; `factsOfEvents` feeds them to the shared accumulator in time order.
 */
import * as path from 'node:path';
import { redact } from '../redact';
import type { CommandResult } from './accumulator';
import { SessionAccumulator } from './accumulator';
import type { SessionAgent, SessionCommand, SessionFacts, SessionText } from './model';
import { cut, MAX_TEXT_CHARS } from './text';

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** The most a JavaScript date holds (ms from the epoch, either way). */
const MAX_DATE_MS = 8.64e15;
/** A message time a date can hold, else 0 (unknown): a `ts` out of range must not break a reading. */
export const tsOf = (v: unknown): number => (Math.abs(num(v)) <= MAX_DATE_MS ? num(v) : 0);

/** The closing words are kept whole up to this (the packet cuts them at a paragraph boundary). */
const CLOSING_CHARS = 12_000;
const REQUEST_CHARS = 2_000;

/** One `ClineMessage` (Roo's are the same shape), with the line of the file it starts on. */
export interface UiMessage {
  ts: number;
  type: 'ask' | 'say';
  /** The `ask` or `say` value. */
  kind: string;
  text: string;
  partial: boolean;
  index: number;
  line: number;
}

/** One api history message: Anthropic role and content, the agent's `ts` and model. */
export interface ApiMessage {
  role: 'user' | 'assistant';
  content: Obj[];
  ts: number | null;
  modelId: string | null;
  index: number;
  line: number;
  raw: Obj;
}

/** The files of one task as read (values already parsed; undefined when a file is missing). */
export interface TaskSnapshot {
  taskId: string;
  /** Absolute task folder. */
  dir: string;
  ui: unknown;
  uiLines: number[];
  api: unknown;
  apiLines: number[];
  metadata: unknown;
  /** The workspace folder the task belongs to (from the agent's task index), when known. */
  cwd: string | null;
}

export function uiMessages(value: unknown, lines: readonly number[]): UiMessage[] {
  if (!Array.isArray(value)) return [];
  const out: UiMessage[] = [];
  value.forEach((v, index) => {
    const m = obj(v);
    if (!m) return;
    const type = m['type'] === 'ask' ? 'ask' : m['type'] === 'say' ? 'say' : null;
    if (!type) return;
    out.push({
      ts: tsOf(m['ts']),
      type,
      kind: str(m[type]) ?? '',
      text: str(m['text']) ?? '',
      partial: m['partial'] === true,
      index,
      line: lines[index] ?? 1,
    });
  });
  return out;
}

/** Content as blocks: a string becomes one text block. */
function blocks(content: unknown): Obj[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.map(obj).filter((b): b is Obj => !!b) : [];
}

export function apiMessages(value: unknown, lines: readonly number[]): ApiMessage[] {
  if (!Array.isArray(value)) return [];
  const out: ApiMessage[] = [];
  value.forEach((v, index) => {
    const m = obj(v);
    if (!m || (m['role'] !== 'user' && m['role'] !== 'assistant')) return;
    const ts = typeof m['ts'] === 'number' && tsOf(m['ts']) === m['ts'] ? m['ts'] : null;
    out.push({ role: m['role'], content: blocks(m['content']), ts, modelId: str(obj(m['modelInfo'])?.['modelId']) ?? null, index, line: lines[index] ?? 1, raw: m });
  });
  return out;
}

/** The text of a tool_result's content (a string or text blocks). */
export function resultText(content: unknown): string {
  return blocks(content)
    .filter((b) => b['type'] === 'text' && typeof b['text'] === 'string')
    .map((b) => b['text'] as string)
    .join('\n');
}

/** A JSON object held in a message's `text` (tool messages, api_req_started), or undefined. */
export function textJson(text: string): Obj | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    return obj(JSON.parse(t));
  } catch {
    return undefined;
  }
}

/** `# Current Working Directory (<path>) Files`, which the agents put in each request's environment details. */
/** The task's working folder: the one its files name, else the first environment details that do. */
export function taskCwd(snap: TaskSnapshot, api: readonly ApiMessage[]): string | null {
  if (snap.cwd) return snap.cwd;
  for (const m of api) {
    const found = m.role === 'user' ? cwdOfEnvironment(resultText(m.content)) : null;
    if (found) return found;
  }
  return null;
}

export function cwdOfEnvironment(text: string): string | null {
  const m = /# Current (?:Working Directory|Workspace Directory) \((.+?)\) Files/.exec(text);
  return m?.[1] ?? null;
}

/**
 * The paths the agent itself wrote, from `task_metadata.json` `files_in_context[]`: records whose
 * `record_source` is the agent's own edit (`cline_edited`, `roo_edited`), which it sets only after a
 * successful write. Relative paths are resolved against the task's folder.
 */
export function metadataEdits(metadata: unknown, cwd: string | null): string[] | null {
  const list = obj(metadata)?.['files_in_context'];
  if (!Array.isArray(list)) return null;
  const out: string[] = [];
  for (const r of list.map(obj)) {
    const p = str(r?.['path']);
    const source = str(r?.['record_source']) ?? '';
    if (!p || !/_edited$/.test(source) || source === 'user_edited') continue;
    out.push(path.isAbsolute(p) || !cwd ? p : path.resolve(cwd, p));
  }
  return out;
}

/** One thing that happened in a task, in time order. */
export type TaskEvent =
  | { k: 'request'; text: string; line: number; ts: number }
  | { k: 'assistant'; text: string; line: number; ts: number; closing: boolean }
  | { k: 'call'; id: string; command: string; tool: string; cwd: string | null; line: number; ts: number }
  | { k: 'result'; id: string; result: CommandResult; feedback: string | null; cwd: string | null; line: number; ts: number }
  | { k: 'todos'; items: { content: string; status: string }[]; tool: string; line: number; ts: number }
  | { k: 'edit'; file: string; line: number; ts: number };

/** The commands of XML tool calls in assistant text (models without native tool calls). */
export function xmlCommands(text: string): string[] {
  const out: string[] = [];
  const re = /<execute_command>\s*<command>([\s\S]*?)<\/command>/g;
  for (let m = re.exec(text); m; m = re.exec(text)) if (m[1]?.trim()) out.push(m[1].trim());
  return out;
}

/** `[execute_command for '<cmd>'] Result:` as it heads a tool result; the command, or null. */
export function resultHeadCommand(text: string): string | null {
  const m = /^\s*\[execute_command for '([\s\S]*?)'\] Result:/.exec(text);
  return m ? (m[1] ?? '') : null;
}

/**
 * The api history's command calls and results as events: native `tool_use` / `tool_result` pairs,
 * and XML calls in the assistant text answered by a `[execute_command for '…'] Result:` text block.
 * `parse` reads the agent's own result strings. A denial's feedback is the text block after it.
 */
export function apiCommandEvents(api: ApiMessage[], parse: (text: string) => CommandResult & { cwd?: string | null }): TaskEvent[] {
  const out: TaskEvent[] = [];
  const xmlPending: { id: string; command: string }[] = [];
  let lastTs = 0;
  for (const m of api) {
    const ts = m.ts ?? lastTs;
    lastTs = ts;
    if (m.role === 'assistant') {
      m.content.forEach((b, i) => {
        if (b['type'] === 'tool_use' && b['name'] === 'execute_command') {
          const input = obj(b['input']);
          const command = str(input?.['command']) ?? '';
          const id = str(b['id']) ?? `api:${m.index}:${i}`;
          if (command.trim()) out.push({ k: 'call', id, command: command.trim(), tool: 'execute_command', cwd: str(input?.['cwd']) ?? null, line: m.line, ts });
        } else if (b['type'] === 'text' && typeof b['text'] === 'string') {
          xmlCommands(b['text']).forEach((command, j) => {
            const id = `xml:${m.index}:${i}:${j}`;
            xmlPending.push({ id, command });
            out.push({ k: 'call', id, command, tool: 'execute_command', cwd: null, line: m.line, ts });
          });
        }
      });
      continue;
    }
    m.content.forEach((b, i) => {
      const nextText = (): string | null => {
        const after = m.content.slice(i + 1).find((x) => x['type'] === 'text' && typeof x['text'] === 'string');
        const t = str(after?.['text'])?.trim();
        return t ? stripFeedback(t) : null;
      };
      if (b['type'] === 'tool_result') {
        const id = str(b['tool_use_id']) ?? str(b['call_id']);
        if (!id) return;
        const r = parse(resultText(b['content']));
        out.push({ k: 'result', id, result: r, feedback: r.rejected ? nextText() : null, cwd: r.cwd ?? null, line: m.line, ts });
      } else if (b['type'] === 'text' && typeof b['text'] === 'string') {
        const head = resultHeadCommand(b['text']);
        if (head === null || !xmlPending.length) return;
        const at = xmlPending.findIndex((p) => p.command === head.trim());
        const [p] = xmlPending.splice(at >= 0 ? at : 0, 1);
        if (!p) return;
        const r = parse(b['text']);
        out.push({ k: 'result', id: p.id, result: r, feedback: r.rejected ? nextText() : null, cwd: r.cwd ?? null, line: m.line, ts });
      }
    });
  }
  return out;
}

/** A feedback block as the user typed it: without the `<feedback>` wrapper the agents add. */
function stripFeedback(text: string): string {
  const m = /<feedback>\s*([\s\S]*?)\s*<\/feedback>/.exec(text);
  return (m?.[1] ?? text).trim();
}

/** The output of a command result: what follows `Output:`. */
export function outputOf(text: string): { head: string; output: string } {
  const m = /(?:^|\n)Output:\n?/.exec(text);
  if (!m) return { head: text, output: '' };
  return { head: text.slice(0, m.index), output: text.slice(m.index + m[0].length) };
}

/** Per-command details the accumulator does not keep. */
interface CommandExtra {
  line: number | null;
  resultLine: number | null;
  tool: string;
  cwd: string | null;
  ts: number;
  feedback: string | null;
  /** For a denial: the human message that came between the call and its result. */
  reply: string | null;
}

/** Where the chat shows a command: its `command` message and its last output chunk. */
export interface UiCommandLine {
  command: string;
  line: number;
  resultLine: number | null;
}

/**
 * The chat's commands in order (`say|ask:"command"`, `REQ_APP` stripped) with the line of their last
 * `command_output` chunk: `facts.file` is the chat, so a command's lines are given there.
 */
export function uiCommandLines(ui: readonly UiMessage[]): UiCommandLine[] {
  const out: UiCommandLine[] = [];
  for (const m of ui) {
    if (m.kind === 'command') out.push({ command: m.text.replace(/\s*REQ_APP\s*$/, '').trim(), line: m.line, resultLine: null });
    else if (m.kind === 'command_output' && out.length) (out[out.length - 1] as UiCommandLine).resultLine = m.line;
  }
  return out;
}

/** Extra facts a reader found besides the events. */
export interface TaskExtras {
  cwd: string | null;
  files: string[];
  model: string | null;
  /**
   * When the events' lines are in another file than `file` (commands from the api history, facts of
   * the chat): the chat's commands, to give each command the chat's lines (null when not matched).
   */
  commandLines?: UiCommandLine[];
  /** The agent's own version, when the task says. */
  version?: string | null;
  /** The type of each record the reader did not know: counted and named in the facts. */
  unknown?: readonly string[];
}

/**
 * Feeds the events, in time order, to a fresh accumulator (the files are rewritten whole, so each
 * snapshot is read from the start) and adds what the accumulator does not track: the lines of the
 * first, latest and closing messages, each command's call and result line, and a denial's feedback.
 */
export function factsOfEvents(agent: SessionAgent, snap: TaskSnapshot, file: string, events: TaskEvent[], extras: TaskExtras): SessionFacts {
  const acc = new SessionAccumulator(agent);
  acc.sessionId = snap.taskId;
  acc.cwd = extras.cwd;
  const order = events.map((e, i) => ({ e, i })).sort((a, b) => a.e.ts - b.e.ts || a.i - b.i);
  const extra = new Map<string, CommandExtra>();
  let first: { text: string; line: number } | null = null;
  let latest: { text: string; line: number } | null = null;
  let closing: { text: string; line: number; explicit: boolean } | null = null;
  let todosSource: { tool: string; line: number | null } | null = null;
  let lastRequest: { text: string; ts: number } | null = null;
  const chatLines = extras.commandLines ? [...extras.commandLines] : null;
  for (const { e } of order) {
    switch (e.k) {
      case 'request': {
        const text = e.text.trim();
        if (!text) break;
        const t = { text, line: e.line };
        first ??= t;
        latest = t;
        closing = null;
        lastRequest = { text, ts: e.ts };
        acc.humanRequest(text, e.line);
        break;
      }
      case 'assistant': {
        const text = e.text.trim();
        if (!text) break;
        acc.assistantText(text, `${e.line}:${e.ts}`, e.line);
        // The closing words: a completion result wins over later chatter in the same turn.
        if (e.closing || !closing?.explicit) closing = { text, line: e.line, explicit: e.closing };
        break;
      }
      case 'call': {
        acc.toolUse(e.line ?? null);
        if (!acc.startCommand(e.id, e.command, e.ts ? new Date(e.ts).toISOString() : null)) break;
        const shown = chatLines ? chatLines.findIndex((c) => c.command === e.command) : -1;
        const where = shown >= 0 ? chatLines?.splice(0, shown + 1).pop() : undefined;
        extra.set(e.id, { line: chatLines ? (where?.line ?? null) : e.line, resultLine: chatLines ? (where?.resultLine ?? null) : null, tool: e.tool, cwd: e.cwd, ts: e.ts, feedback: null, reply: null });
        break;
      }
      case 'result': {
        const x = extra.get(e.id);
        if (!x || !acc.isPending(e.id)) break;
        if (!chatLines) x.resultLine = e.line;
        x.cwd ??= e.cwd;
        x.feedback = e.feedback;
        // The chat shows the user's answer to a denial before the agent records the result.
        if (e.result.rejected && lastRequest && lastRequest.ts >= x.ts) x.reply = lastRequest.text;
        acc.finishCommand(e.id, { ...e.result, at: e.ts ? new Date(e.ts).toISOString() : null });
        break;
      }
      case 'edit':
        acc.edited(e.file, e.line, acc.nextOrdinal);
        break;
      case 'todos':
        acc.setTodos(e.items);
        todosSource = { tool: e.tool, line: e.line };
        break;
    }
  }
  for (const f of extras.files) acc.touch(f);
  for (const t of extras.unknown ?? []) acc.unknownLine(t);
  const facts = acc.facts(file, snap.taskId);
  const withExtra = (c: SessionCommand): SessionCommand => {
    const x = extra.get(c.id);
    if (!x) return c;
    const reason = x.feedback ? redact(x.feedback) : null;
    const reply = c.user_reply ?? reason ?? (x.reply ? redact(x.reply) : null);
    return {
      ...c,
      line: x.line,
      result_line: x.resultLine,
      tool: x.tool,
      cwd: x.cwd ?? extras.cwd,
      ...(c.rejected ? { rejection_reason: reason, user_reply: reply } : {}),
    };
  };
  const closingText = closing ? textOf(redact(stripHasChanges(closing.text)), closing.line, CLOSING_CHARS) : null;
  return {
    ...facts,
    commands: facts.commands.map(withExtra),
    rejected: facts.rejected.map(withExtra),
    cwds: extras.cwd ? [extras.cwd] : [],
    firstRequest: first ? textOf(redact(first.text), first.line, REQUEST_CHARS) : null,
    latestRequest: latest ? textOf(redact(latest.text), latest.line, REQUEST_CHARS) : null,
    closing: closingText,
    endedOnClosing: closingText !== null,
    todosSource,
    model: extras.model,
    version: extras.version ?? null,
  };
}

function textOf(text: string, line: number, max: number): SessionText {
  const whole = cut(text, max);
  const omitted = Math.max(0, text.length - whole.length);
  return omitted ? { text: whole, line, omittedChars: omitted } : { text: whole, line };
}

/** Cline ends a completion result that changed files with `HAS_CHANGES`: not part of the words. */
export function stripHasChanges(text: string): string {
  return text.replace(/\s*HAS_CHANGES\s*$/, '').trim();
}

/** The markdown checklist of a focus chain (`- [ ] …` / `- [x] …`). */
export function checklist(text: string): { content: string; status: string }[] {
  const out: { content: string; status: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^-\s*\[([ xX])\]\s*(.+)$/.exec(line.trim());
    if (m?.[2]) out.push({ content: m[2].trim(), status: m[1] === ' ' ? 'pending' : 'completed' });
  }
  return out;
}

export { MAX_TEXT_CHARS };
