import * as path from 'node:path';
import type { CommandResult } from './accumulator';
import { SessionAccumulator } from './accumulator';
import type { LineHandler } from './lines';
import { has, hasAtEdges, hasInHead, idsAfter } from './lines';
import { contentText } from './text';

const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
const REJECTED_PREFIX = "The user doesn't want to proceed with this tool use";
/** The permission prompt's "No" (and Esc at the prompt, in newer versions): the call never ran. */
const REJECTED = /^The user doesn't want to (?:proceed with this tool use|take this action)/;

/** User text that is not a human request: synthetic interrupts, slash-command echoes, caveats, reminders. */
const NOT_A_REQUEST = /^\s*(?:\[Request interrupted by user|<command-name>|<command-message>|<command-args>|<local-command-stdout>|<local-command-stderr>|<system-reminder>|<task-notification>|<bash-input>|<bash-stdout>|<bash-stderr>|<user-prompt-submit-hook>|Caveat:)/;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Tools whose results the reader follows besides commands and edits. */
type ToolKind = 'task-create' | 'task-update' | 'task-list' | 'task-get' | 'question' | 'stop' | 'poll' | 'output' | 'plan';
const TOOL_KINDS: Record<string, ToolKind> = {
  TaskCreate: 'task-create',
  TaskUpdate: 'task-update',
  TaskList: 'task-list',
  TaskGet: 'task-get',
  AskUserQuestion: 'question',
  ExitPlanMode: 'plan',
  KillShell: 'stop',
  KillBash: 'stop',
  TaskStop: 'stop',
  BashOutput: 'poll',
  TaskOutput: 'poll',
};
const SHELL_TOOLS = new Set(['Bash', 'PowerShell', 'Monitor']);
/**
 * Line types the reader knows (FORMATS §1 table, L5): the ones that carry facts, and bookkeeping lines
 * that carry none. Any other type is skipped and counted, never an error.
 */
const KNOWN_TYPES = new Set(['user', 'assistant', 'system', 'attachment', 'queue-operation', 'last-prompt', 'ai-title', 'permission-mode', 'summary', 'file-history-snapshot', 'progress', 'custom-title', 'agent-name', 'bridge-session',
  // Claude Code 2.1.3xx bookkeeping: the request as sent (system prompt and context blobs, never the
  // human's words), the tool names used, the running cost, the permission mode, the file-history delta.
  'atis-latch', 'api-request-shape', 'api-request-blob', 'api-request', 'tools-used', 'cost-state', 'mode', 'file-history-delta']);
const KNOWN_AT_EDGES = [...KNOWN_TYPES].map((t) => `"type":"${t}"`);
/** `/goal <condition>` (Claude Code 2.1.139+): the condition is only in `<command-args>`. */
const GOAL_COMMAND = /<command-name>\/goal<\/command-name>/;
const GOAL_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
/** `/goal clear` and its aliases end the goal. */
const GOAL_CLEAR = /^(?:clear|stop|off|reset|none|cancel)$/i;
const RECAP_SUFFIX = /\s*\(disable recaps in \/config\)\s*$/i;
const MAX_TOOLS = 500;

/**
 * Reads a Claude Code transcript (FORMATS.md §1) into session facts: main-chain `Bash` / `PowerShell` /
 * `Monitor` calls with their results and background outcomes (task notifications, stops), edits, the
 * task list of every generation (`TodoWrite`, the task tools and their reminders), human requests
 * (typed mid-turn ones too), the question tool, the recap and the closing words. Sidechain lines, API
 * errors, compaction summaries and injected text are not the session's own. Lines that cannot matter
 * (results of tools we do not follow, bookkeeping lines) are skipped without being parsed.
 */
export class ClaudeHandler implements LineHandler {
  readonly acc = new SessionAccumulator('claude-code');
  /**
   * Edit calls waiting for their result: the file counts once the edit did not fail. With the call's
   * line and the ordinal of the command that comes next.
   */
  private readonly edits = new Map<string, { file: string; line: number; before: number }>();
  /** Other calls whose results carry facts (task ids, answers, stops), with their input and line. */
  private readonly tools = new Map<string, { kind: ToolKind; input: Obj; line: number }>();
  /** Task notifications already applied (each arrives two or three times): task id + status. */
  private readonly notified = new Set<string>();
  /** The text of the last request typed mid-turn: the same prompt as a user line right after is one request. */
  private lastQueuedPrompt: string | null = null;
  /** Whether the session ever used a task tool (an empty reminder alone is no task list). */
  private usedTaskTools = false;

  line(bytes: Buffer, lineNo: number): void {
    // Decide from the line's edges whether it can matter before parsing it: most of a transcript's
    // bytes are results of tools we do not follow (file reads) and bookkeeping lines.
    const user = hasAtEdges(bytes, '"type":"user"');
    const assistant = !user && hasAtEdges(bytes, '"type":"assistant"');
    if (!user && !assistant) {
      if (!otherLineMatters(bytes)) return this.skipped(bytes);
    } else if (user && hasInHead(bytes, '"tool_use_id":"')) {
      // A tool result: only worth parsing when it answers a call we follow.
      if (!this.acc.pendingCount && !this.edits.size && !this.tools.size) return;
      const follows = (id: string) => has(bytes, `"tool_use_id":"${id}"`);
      const commandIds = [...this.acc.pendingIds()].filter(follows);
      const toolIds = [...this.tools.keys()].filter(follows);
      const editIds = [...this.edits.keys()].filter(follows);
      if (!commandIds.length && !editIds.length && !toolIds.length) return;
      // A declined edit carries the reason the user typed: parsed like the others.
      if (!commandIds.length && !toolIds.length && !has(bytes, REJECTED_PREFIX)) {
        // An edit result holds the whole file; its error flag is enough.
        const failed = has(bytes, '"is_error":true');
        for (const id of editIds) this.editResult(id, failed);
        return;
      }
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      this.acc.badLine(lineNo);
      return;
    }
    const o = obj(value);
    if (o) this.apply(o, lineNo);
  }

  /** A line too long to parse: the result's outcome is read from its first and last bytes. */
  oversized(head: string, tailText: string, lineNo = 0): void {
    if (!head.includes('"tool_use_id":"')) return this.oversizedRequest(head, tailText, lineNo);
    const ids = idsAfter(Buffer.from(head), '"tool_use_id":"').filter((id) => this.acc.isPending(id) || this.edits.has(id));
    const failed = head.includes('"is_error":true') || tailText.includes('"is_error":true');
    for (const id of ids) {
      if (this.edits.has(id)) {
        this.editResult(id, failed);
        continue;
      }
      const code = /"content":"Exit code (\d+)/.exec(head);
      const note = 'output too large to read from the transcript';
      const line = lineNo || null;
      if (head.includes(REJECTED_PREFIX) || head.includes("The user doesn't want to take this action")) this.acc.finishCommand(id, { exit: null, rejected: true, line });
      else if (head.includes('"content":"Command timed out')) this.acc.finishCommand(id, { exit: null, unfinished: 'timeout', error: 'Command timed out', stdout: note, line });
      else if (code) this.acc.finishCommand(id, { exit: Number(code[1]), stdout: note, line });
      else if (failed) this.acc.finishCommand(id, { exit: null, unfinished: 'error', error: note, line });
      else this.acc.finishCommand(id, { exit: 0, stdout: note, line });
    }
  }

  /**
   * A human message too long to hold (pasted images of several MB): its typed text sits after the
   * image data, in the line's last bytes, and its cwd after the message.
   */
  private oversizedRequest(head: string, tailText: string, lineNo: number): void {
    const user = /"type":"user"/.test(head.slice(0, 4096)) || /"type":"user"/.test(tailText.slice(-4096));
    if (!user || /"isSidechain":true/.test(head.slice(0, 4096)) || /"isMeta":true/.test(tailText.slice(-4096))) return;
    const cwd = /"cwd":"((?:[^"\\]|\\.)*)"/.exec(tailText.slice(-8192));
    if (cwd?.[1]) this.acc.addCwd(JSON.parse(`"${cwd[1]}"`) as string);
    const texts: string[] = [];
    const re = /\{"type":"text","text":"((?:[^"\\]|\\.)*)"\}/g;
    for (let m = re.exec(tailText); m; m = re.exec(tailText)) {
      try {
        texts.push(JSON.parse(`"${m[1] ?? ''}"`) as string);
      } catch {
        // A part cut at the tail's start is not a whole text.
      }
    }
    const text = texts.join('\n').trim();
    if (text && !NOT_A_REQUEST.test(text) && !text.includes('<task-notification>')) this.acc.humanRequest(text, lineNo || null);
  }

  /** A line that carries no fact: counted when its type is not one the reader knows (parsed only then). */
  private skipped(bytes: Buffer): void {
    if (KNOWN_AT_EDGES.some((k) => hasAtEdges(bytes, k))) return;
    let o: Obj | undefined;
    try {
      o = obj(JSON.parse(bytes.toString('utf8')));
    } catch {
      return; // not a line of any type (a torn or foreign line is not a line type)
    }
    if (o && o['isSidechain'] !== true) this.noteType(o['type']);
  }

  private noteType(type: unknown): void {
    if (typeof type === 'string' && KNOWN_TYPES.has(type)) return;
    this.acc.unknownLine(typeof type === 'string' && type ? type : '(no type)');
  }

  private editResult(id: string, failed: boolean): void {
    const edit = this.edits.get(id);
    this.edits.delete(id);
    if (edit && !failed) this.acc.edited(edit.file, edit.line, edit.before);
  }

  private apply(o: Obj, lineNo: number): void {
    // Sub-agent lines are the sub-agent's actions, not the session's.
    if (o['isSidechain'] === true) return;
    const type = o['type'];
    const acc = this.acc;
    const sid = str(o['sessionId']);
    if (sid && !acc.sessionId) acc.sessionId = sid;
    const cwd = str(o['cwd']);
    if (cwd) acc.addCwd(cwd);
    const branch = str(o['gitBranch']);
    if (branch && branch !== 'HEAD') acc.branch = branch;
    const version = str(o['version']);
    if (version) acc.version = version;
    const at = str(o['timestamp']) ?? null;
    if (type === 'attachment') return this.attachment(obj(o['attachment']), lineNo);
    if (type === 'queue-operation') {
      // The queue's copy of a prompt is never counted (the prompt arrives again); its notices are read.
      const content = str(o['content']);
      if (o['operation'] === 'enqueue' && content?.includes('<task-notification>')) this.notifications(content, lineNo);
      return;
    }
    if (type === 'system') {
      const content = str(o['content']);
      if (o['subtype'] === 'away_summary' && content) acc.setRecap(content.replace(RECAP_SUFFIX, ''), lineNo);
      // The goal was met: it is no longer the standing task.
      if (o['subtype'] === 'goal_status' && o['met'] === true) acc.setGoal(null, lineNo);
      if (o['subtype'] === 'compact_boundary') acc.compacted(null, lineNo);
      return;
    }
    if (type !== 'assistant' && type !== 'user') return this.noteType(type);
    const message = obj(o['message']);
    if (!message) return;
    if (type === 'assistant') this.assistant(o, message, at, lineNo, cwd ?? null);
    else this.user(o, message, at, lineNo);
  }

  private assistant(o: Obj, message: Obj, at: string | null, lineNo: number, cwd: string | null): void {
    const acc = this.acc;
    const msgId = str(message['id']) ?? str(o['uuid']) ?? '';
    if (o['isApiErrorMessage'] === true || message['model'] === '<synthetic>') {
      if (o['isApiErrorMessage'] === true && acc.firstSight(`api:${msgId}`)) acc.apiError(lineNo);
      return;
    }
    const model = str(message['model']);
    if (model) acc.model = model;
    const content = message['content'];
    if (typeof content === 'string') {
      acc.assistantText(content, msgId, lineNo);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const part of content) {
      const p = obj(part);
      if (!p) continue;
      if (p['type'] === 'text' && typeof p['text'] === 'string') acc.assistantText(p['text'], msgId, lineNo);
      else if (p['type'] === 'tool_use') this.toolUse(p, at, lineNo, cwd);
    }
  }

  private toolUse(p: Obj, at: string | null, lineNo: number, cwd: string | null): void {
    const acc = this.acc;
    const id = str(p['id']);
    const name = str(p['name']);
    const input = obj(p['input']) ?? {};
    // One response is streamed as several lines with the same blocks: each call counts once.
    if (!id || !name || !acc.firstSight(`tool:${id}`)) return;
    acc.toolUse(lineNo);
    const kind = TOOL_KINDS[name];
    if (name === 'Skill' && str(input['skill'])) acc.skill(str(input['skill']) as string, lineNo);
    if (SHELL_TOOLS.has(name)) {
      const command = str(input['command']);
      if (command) acc.startCommand(id, command, at, { line: lineNo, tool: name, cwd: cwd ?? acc.cwd, description: str(input['description']) ?? null });
    } else if (name === 'Read' && /[\\/]tasks[\\/][\w-]+\.output$/.test(str(input['file_path']) ?? '')) {
      // Reading a background command's output file (2.1.x): its output, not a command.
      const taskId = /([\w-]+)\.output$/.exec(str(input['file_path']) ?? '')?.[1];
      if (taskId && acc.isBackgroundTask(taskId)) this.tools.set(id, { kind: 'output', input: { task_id: taskId }, line: lineNo });
    } else if (EDIT_TOOLS.has(name)) {
      const file = str(input['file_path']) ?? str(input['notebook_path']);
      const base = cwd ?? acc.cwd;
      if (file) this.edits.set(id, { file: path.isAbsolute(file) || !base ? file : path.resolve(base, file), line: lineNo, before: acc.nextOrdinal });
      // Edits whose result never came are forgotten, oldest first, so the map stays small.
      if (this.edits.size > 500) this.edits.delete(this.edits.keys().next().value as string);
    } else if (name === 'TodoWrite' && Array.isArray(input['todos'])) {
      const items = input['todos']
        .map((t) => obj(t))
        .filter((t): t is Obj => !!t && typeof t['content'] === 'string')
        .map((t) => ({ content: t['content'] as string, status: str(t['status']) ?? 'pending' }));
      acc.setTodos(items, { tool: 'TodoWrite', line: lineNo });
    } else if (kind) {
      if (kind.startsWith('task-')) this.usedTaskTools = true;
      if (kind === 'question') acc.askQuestions(id, questionsOf(input), lineNo);
      this.tools.set(id, { kind, input, line: lineNo });
      if (this.tools.size > MAX_TOOLS) this.tools.delete(this.tools.keys().next().value as string);
    }
  }

  private user(o: Obj, message: Obj, at: string | null, lineNo: number): void {
    const content = message['content'];
    const parts = Array.isArray(content) ? content.map((c) => obj(c)).filter((c): c is Obj => !!c) : [];
    const results = parts.filter((p) => p['type'] === 'tool_result');
    if (results.length) {
      for (const r of results) {
        const id = str(r['tool_use_id']);
        if (!id) continue;
        const line = results.length === 1 ? o : {};
        const tool = this.tools.get(id);
        const declined = r['is_error'] === true ? rejection(r, line) : undefined;
        if (declined !== undefined && (this.edits.has(id) || (tool && tool.kind !== 'question'))) {
          const target = this.edits.get(id)?.file ?? `${tool?.kind ?? 'tool'} call`;
          this.edits.delete(id);
          if (tool) this.tools.delete(id);
          this.acc.rejectedEdit(target, declined, lineNo);
        } else if (this.edits.has(id)) this.editResult(id, r['is_error'] === true);
        else if (this.acc.isPending(id)) this.acc.finishCommand(id, { ...bashResult(r, line, at), line: lineNo });
        else if (tool) {
          this.tools.delete(id);
          this.toolResult(id, tool, r, line, lineNo);
        }
      }
      return;
    }
    const text = contentText(content).trim();
    if (o['isCompactSummary'] === true) return this.acc.compacted(text, lineNo);
    if (GOAL_COMMAND.test(text)) return this.goal(text, lineNo);
    // Compaction summaries and meta lines are written by the tool, not typed by the human.
    if (o['isMeta'] === true || o['isVisibleInTranscriptOnly'] === true) return;
    if (!text) return;
    if (obj(o['origin'])?.['kind'] === 'task-notification' || text.includes('<task-notification>')) return this.notifications(text, lineNo);
    if (/^\s*\[Request interrupted by user/.test(text)) return this.acc.interrupted(lineNo);
    if (NOT_A_REQUEST.test(text)) return;
    if (this.lastQueuedPrompt !== null && text === this.lastQueuedPrompt) {
      // The prompt typed mid-turn, delivered again as a user line: one request.
      this.lastQueuedPrompt = null;
      return;
    }
    this.lastQueuedPrompt = null;
    this.acc.humanRequest(text, lineNo);
  }

  /** `/goal <condition>` sets the standing goal (not a request); `/goal clear` (or an alias) ends it. */
  private goal(text: string, lineNo: number): void {
    const args = GOAL_ARGS.exec(text)?.[1]?.trim() ?? '';
    // A bare `/goal` shows the goal; it changes nothing.
    if (!args) return;
    this.acc.setGoal(GOAL_CLEAR.test(args) ? null : args, lineNo);
  }

  private attachment(a: Obj | undefined, lineNo: number): void {
    if (!a) return;
    const acc = this.acc;
    switch (a['type']) {
      case 'queued_command': {
        const text = contentText(a['prompt']).trim();
        if (!text) return;
        if (a['commandMode'] === 'task-notification' || text.includes('<task-notification>')) return this.notifications(text, lineNo);
        if (a['commandMode'] !== undefined && a['commandMode'] !== 'prompt') return;
        if (NOT_A_REQUEST.test(text)) return;
        acc.humanRequest(text, lineNo);
        this.lastQueuedPrompt = text;
        return;
      }
      case 'task_reminder':
      case 'todo_reminder': {
        const items = Array.isArray(a['content']) ? a['content'].map((t) => obj(t)).filter((t): t is Obj => !!t) : [];
        // An empty reminder in a session that never made a list is a nudge, not a task list.
        if (!items.length && !acc.hasTodos && !this.usedTaskTools) return;
        // Claude Code empties a list once every task is completed (often after a compaction): the
        // finished list stays the session's record, not an empty one.
        if (!items.length && acc.todosAllCompleted) return;
        const task = a['type'] === 'task_reminder';
        const list = items
          .map((t) => ({ content: str(task ? t['subject'] : t['content']) ?? str(t['subject']) ?? str(t['content']) ?? '', status: str(t['status']) ?? 'pending', ...(t['id'] !== undefined ? { id: String(t['id']) } : {}) }))
          .filter((t) => t.content);
        acc.setTodos(list, { tool: task ? 'task tools' : 'TodoWrite', line: lineNo });
        return;
      }
      default:
        return;
    }
  }

  /** Every `<task-notification>` in a text: a background command's outcome, or a monitor's event (progress). */
  private notifications(text: string, lineNo: number): void {
    const re = /<task-notification>([\s\S]*?)(?:<\/task-notification>|$)/g;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const body = m[1] ?? '';
      const tag = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1]?.trim() ?? null;
      const status = tag('status');
      const taskId = tag('task-id');
      const id = tag('tool-use-id');
      // Without a status it is a monitor event: progress, not an outcome.
      if (!status || (!taskId && !id)) continue;
      const key = `${taskId ?? id}|${status}`;
      if (this.notified.has(key)) continue;
      const summary = tag('summary');
      const code = summary ? /exit code (-?\d+)/i.exec(summary) : null;
      const killed = status === 'killed' || status === 'stopped' || /\bwas stopped\b|\bkilled\b/i.test(summary ?? '');
      const outcome = killed ? 'killed' : status === 'failed' ? 'failed' : status === 'completed' ? 'completed' : null;
      if (!outcome) continue;
      if (this.acc.resolveBackground({ id, taskId }, { status: outcome, exit: code ? Number(code[1]) : null, line: lineNo, summary })) this.notified.add(key);
    }
  }

  private toolResult(id: string, tool: { kind: ToolKind; input: Obj; line: number }, r: Obj, line: Obj, lineNo: number): void {
    const acc = this.acc;
    const text = contentText(r['content']);
    const tur = obj(line['toolUseResult']);
    const failed = r['is_error'] === true || tur?.['success'] === false;
    switch (tool.kind) {
      case 'plan': {
        // Plan mode's exit: the plan the user approved (a declined one is a rejected approach).
        const plan = str(tool.input['plan']);
        if (!failed && plan) acc.planApproved(plan, tool.line);
        return;
      }
      case 'task-create': {
        const task = obj(tur?.['task']);
        const taskId = str(task?.['id']) ?? (typeof task?.['id'] === 'number' ? String(task['id']) : undefined) ?? /Task #(\w+) created/.exec(text)?.[1];
        const subject = str(tool.input['subject']) ?? str(task?.['subject']);
        if (!failed && taskId && subject) acc.taskCreate(taskId, subject, tool.line);
        return;
      }
      case 'task-update': {
        // A hook can refuse a completion: the result says whether the update happened.
        if (failed || /^<tool_use_error>/.test(text)) return;
        const taskId = str(tool.input['taskId']) ?? (typeof tool.input['taskId'] === 'number' ? String(tool.input['taskId']) : undefined);
        const change = obj(tur?.['statusChange']);
        const status = str(change?.['to']) ?? str(tool.input['status']);
        const subject = str(tool.input['subject']);
        if (taskId) acc.taskUpdate(taskId, { ...(status ? { status } : {}), ...(subject ? { subject } : {}) }, tool.line);
        return;
      }
      case 'task-list': {
        const tasks = tur?.['tasks'];
        if (failed || !Array.isArray(tasks)) return;
        const list = tasks.map((t) => obj(t)).filter((t): t is Obj => !!t && typeof t['subject'] === 'string');
        acc.setTodos(list.map((t) => ({ content: t['subject'] as string, status: str(t['status']) ?? 'pending', ...(t['id'] !== undefined ? { id: String(t['id']) } : {}) })), { tool: 'task tools', line: lineNo });
        return;
      }
      case 'task-get': {
        const task = obj(tur?.['task']);
        const taskId = task?.['id'];
        if (failed || !task || taskId === undefined) return;
        acc.taskUpdate(String(taskId), { ...(str(task['status']) ? { status: str(task['status']) as string } : {}), ...(str(task['subject']) ? { subject: str(task['subject']) as string } : {}) }, lineNo);
        return;
      }
      case 'question':
        return acc.questionResult(id, REJECTED.test(text) || r['is_error'] === true ? {} : answersOf(tur, text), lineNo);
      case 'stop': {
        const taskId = str(tool.input['task_id']) ?? str(tool.input['shell_id']) ?? str(tur?.['task_id']) ?? str(tur?.['shell_id']);
        if (!taskId) return;
        const message = str(tur?.['message']) ?? text;
        const gone = /is not running[^\n]*\(status: (\w+)\)/.exec(text) ?? /is not running[^\n]*\(status: (\w+)\)/.exec(message);
        if (/Successfully (?:killed|stopped)/i.test(message) && !r['is_error']) acc.resolveBackground({ taskId }, { status: 'killed', exit: null, line: lineNo });
        else if (gone?.[1] === 'completed' || gone?.[1] === 'failed') acc.resolveBackground({ taskId }, { status: gone[1], exit: null, line: lineNo });
        return;
      }
      case 'output': {
        const taskId = str(tool.input['task_id']);
        const file = obj(tur?.['file']);
        // The Read result's own copy has no `N\t` line numbers.
        const content = str(file?.['content']) ?? text.replace(/^ *\d+\t/gm, '');
        if (taskId && !failed) acc.backgroundOutput(taskId, content);
        return;
      }
      case 'poll': {
        const taskId = str(tool.input['task_id']) ?? str(tool.input['bash_id']) ?? str(tool.input['shell_id']);
        const status = /<status>(\w+)<\/status>/.exec(text)?.[1];
        const code = /<exit_code>(-?\d+)<\/exit_code>/.exec(text)?.[1];
        const out = /<stdout>([\s\S]*?)<\/stdout>/.exec(text)?.[1];
        if (taskId && out) acc.backgroundOutput(taskId, out);
        if (!taskId || (status !== 'completed' && status !== 'failed' && status !== 'killed')) return;
        acc.resolveBackground({ taskId }, { status, exit: code === undefined ? null : Number(code), line: lineNo });
        return;
      }
    }
  }
}

/** The questions of an AskUserQuestion call, with the labels of their options. */
function questionsOf(input: Obj): { question: string; options: string[] }[] {
  const qs = Array.isArray(input['questions']) ? input['questions'] : [];
  return qs
    .map((q) => obj(q))
    .filter((q): q is Obj => !!q && typeof q['question'] === 'string')
    .map((q) => ({
      question: q['question'] as string,
      options: (Array.isArray(q['options']) ? q['options'] : []).map((o) => str(obj(o)?.['label']) ?? str(o) ?? '').filter(Boolean),
    }));
}

/** The answers of an AskUserQuestion result: `toolUseResult.answers`, else the pairs of its text. */
function answersOf(tur: Obj | undefined, text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const answers = obj(tur?.['answers']);
  if (answers) {
    for (const [q, a] of Object.entries(answers)) {
      const v = typeof a === 'string' ? a : Array.isArray(a) ? a.filter((x) => typeof x === 'string').join(', ') : '';
      if (v.trim()) out[q] = v;
    }
    return out;
  }
  if (!/^(?:User has answered your questions|Your questions have been answered)/.test(text)) return out;
  const re = /"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(text); m; m = re.exec(text)) if (m[1] && m[2]) out[m[1]] = m[2];
  return out;
}

/** Whether a line that is neither a user nor an assistant line carries a fact (notices, queued prompts, task lists, the recap). */
function otherLineMatters(bytes: Buffer): boolean {
  if (hasAtEdges(bytes, '"type":"queue-operation"')) return has(bytes, '<task-notification>');
  if (hasAtEdges(bytes, '"type":"attachment"')) return hasInHead(bytes, '"queued_command"') || hasInHead(bytes, '"task_reminder"') || hasInHead(bytes, '"todo_reminder"');
  if (hasAtEdges(bytes, '"type":"system"')) return hasAtEdges(bytes, '"away_summary"') || hasAtEdges(bytes, '"goal_status"') || hasAtEdges(bytes, '"compact_boundary"');
  // Another line type (summary, snapshots…), unless the keys are laid out unusually.
  return !hasAtEdges(bytes, '"type":"') && bytes.length <= 64 * 1024;
}

const REASON = /The user provided the following reason for the rejection:\s*([\s\S]*)$/;
const CANCELLED = /^(?:<tool_use_error>)?Cancelled: parallel tool call/;

/** For a call the user declined: the reason typed with it ('' when none); undefined when it was not declined. */
export function rejection(part: Obj, line: Obj): string | undefined {
  const r = bashResult(part, line, null);
  return r.rejected ? (r.rejectionReason ?? '') : undefined;
}

/** The outcome of a Bash (or Monitor) call from its `tool_result` part and the line's `toolUseResult`. */
export function bashResult(part: Obj, line: Obj, at: string | null): CommandResult {
  const text = contentText(part['content']);
  const tur = line['toolUseResult'];
  const turObj = obj(tur);
  const isError = part['is_error'] === true;
  const denial = str(turObj?.['toolDenialKind']) ?? str(line['toolDenialKind']);
  if (REJECTED.test(text) || tur === 'User rejected tool use' || denial === 'user-rejected') {
    const reason = REASON.exec(text)?.[1]?.replace(/\n\nNote: The user's next message may contain[\s\S]*$/, '').trim();
    return { exit: null, rejected: true, at, ...(reason ? { rejectionReason: reason } : {}) };
  }
  if (CANCELLED.test(text) || (typeof tur === 'string' && CANCELLED.test(tur))) {
    return { exit: null, unfinished: 'cancelled', error: 'did not run: cancelled because a parallel tool call failed', at };
  }
  const timeout = /^Command timed out after ([^\n]*)\n?/.exec(text);
  if (timeout) return { exit: null, unfinished: 'timeout', error: `Command timed out after ${timeout[1]?.trim()}`, stdout: text.slice(timeout[0].length), at };
  const monitor = /^Monitor started \(task ([^,)\s]+)/.exec(text);
  if (monitor || (turObj && typeof turObj['taskId'] === 'string' && 'timeoutMs' in turObj)) {
    const taskId = str(turObj?.['taskId']) ?? monitor?.[1] ?? null;
    return { exit: null, unfinished: 'background', error: 'a monitor running in the background; its end was not recorded', at, background: { taskId } };
  }
  const bgId = turObj?.['backgroundTaskId'];
  if (turObj && (typeof bgId === 'string' || typeof bgId === 'number')) {
    const after = turObj['timedOutAfterMs'];
    const background = { taskId: String(bgId) };
    return typeof after === 'number'
      ? { exit: null, unfinished: 'timeout', error: `moved to the background after ${Math.round(after / 1000)} s without finishing; no exit status recorded`, stdout: str(turObj['stdout']) ?? '', at, background }
      : { exit: null, unfinished: 'background', error: 'sent to the background; no exit status recorded', stdout: str(turObj['stdout']) ?? '', at, background };
  }
  // "Command running in background with ID: …" (and the newer wording of a run moved there at its timeout).
  const started = /^Command\b[^\n]*\bbackground\b[^\n]*?\bID: ?([A-Za-z0-9_-]+)/.exec(text);
  if (started) {
    return { exit: null, unfinished: 'background', error: 'sent to the background; no exit status recorded', at, background: { taskId: started[1] ?? null } };
  }
  const code = /^Exit code (-?\d+)\n?/.exec(text);
  if (code) return { exit: Number(code[1]), stdout: text.slice(code[0].length).replace(/^\n/, ''), at };
  if (turObj?.['interrupted'] === true) {
    return { exit: null, unfinished: 'interrupted', error: 'interrupted by the user', stdout: str(turObj['stdout']) ?? text, stderr: str(turObj['stderr']) ?? '', at };
  }
  // The tool refused the call (invalid input, a hook or a permission rule): the command never ran.
  const refused = /^<tool_use_error>([\s\S]*?)(?:<\/tool_use_error>|$)/.exec(text) ?? /^(Permission to use Bash[^\n]*denied[^\n]*|[^\n]*blocked by [^\n]*hook[^\n]*)/i.exec(text);
  if (isError && refused) return { exit: null, unfinished: 'error', error: `did not run: ${(refused[1] ?? '').trim().split('\n')[0]}`, at };
  // Older versions flag a non-zero exit with is_error but do not write its code: a failure all the same.
  if (isError) return { exit: 1, stdout: text, error: null, at };
  const stdout = str(turObj?.['stdout']);
  const stderr = str(turObj?.['stderr']);
  // Claude Code reads exit 1 of grep, find, diff, test… as "not an error" and says so instead of the code.
  const interpretation = str(turObj?.['returnCodeInterpretation']);
  const exit = interpretation ? 1 : 0;
  const extra = interpretation ? { interpretation } : {};
  return stdout !== undefined || stderr !== undefined ? { exit, stdout: stdout ?? '', stderr: stderr ?? '', at, ...extra } : { exit, stdout: text, at, ...extra };
}
