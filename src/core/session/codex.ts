import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandMeta, CommandResult } from './accumulator';
import { SessionAccumulator } from './accumulator';
import type { LineHandler } from './lines';
import { hasInHead, idsAfter } from './lines';
import { commandOfArgv, contentText, isApplyPatchCommand, patchFiles, unwrapShellString } from './text';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Role-`user` text that Codex injects (instructions, environment), not typed by the human. */
const INJECTED = /^\s*(?:<environment_context>|<user_instructions>|<permissions instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<user_shell_command>|<turn_aborted>)/;
const SHELL_TOOLS = new Set(['shell', 'container.exec', 'local_shell']);

/**
 * Reads a Codex CLI rollout (FORMATS.md §2) into session facts: every shell-tool generation
 * (`shell`, `shell_command`, `exec_command` + `write_stdin` polls, `local_shell_call`), `apply_patch`
 * edits (also run through the shell), the last `update_plan`, the user's messages (the
 * `event_msg user_message` copy is preferred) and assistant text.
 */
export class CodexHandler implements LineHandler {
  readonly acc = new SessionAccumulator('codex');
  /** Patch calls waiting for their result: paths count once the patch applied (with the call's line and the next command's ordinal). */
  private readonly patches = new Map<string, { files: string[]; line: number | null; before: number }>();
  /** write_stdin call → the command whose process it polls. */
  private readonly polls = new Map<string, string>();
  /** exec_command session id → the command still running in it. */
  private readonly running = new Map<string, string>();
  /** Commands the agent sent Ctrl-C to: their end is a stop, not a failure. */
  private readonly stopping = new Set<string>();
  /** Code mode: an `exec` cell (by call id, and by its cell id while it runs) → what it runs. */
  private readonly cells = new Map<string, CodeCell>();
  private sawUserEvent = false;
  private lastFallbackRequest: string | null = null;
  private lastAssistant = '';
  /** The working directory of the current turn. */
  private turnCwd: string | null = null;

  line(bytes: Buffer, lineNo: number): void {
    // Rollout lines start with their type and the payload's type: decide from the head.
    if (hasInHead(bytes, '"type":"function_call_output"') || hasInHead(bytes, '"type":"custom_tool_call_output"')) {
      const ids = idsAfter(bytes.subarray(0, Math.min(bytes.length, 4096)), '"call_id":"');
      if (ids.length && !ids.some((id) => this.wanted(id))) return;
    } else if (
      hasInHead(bytes, '"type":"token_count"') ||
      hasInHead(bytes, '"type":"reasoning"') ||
      hasInHead(bytes, '"type":"agent_reasoning"') ||
      hasInHead(bytes, '"type":"compacted"')
    ) {
      // Usage, reasoning and compaction replays carry no commands of their own.
      return;
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

  oversized(head: string, tailText: string, lineNo = 0): void {
    if (head.includes('"type":"session_meta"')) {
      const id = /"payload":\{"id":"([^"]+)"/.exec(head);
      const cwd = /"cwd":"((?:[^"\\]|\\.)*)"/.exec(head);
      const branch = /"branch":"((?:[^"\\]|\\.)*)"/.exec(tailText);
      if (id?.[1] && !this.acc.sessionId) this.acc.sessionId = id[1];
      if (cwd?.[1]) this.acc.addCwd(JSON.parse(`"${cwd[1]}"`) as string);
      if (branch?.[1]) this.acc.branch = JSON.parse(`"${branch[1]}"`) as string;
      return;
    }
    const ids = idsAfter(Buffer.from(head), '"call_id":"').filter((id) => this.wanted(id));
    for (const id of ids) {
      const exit = /exit_code\\?":(-?\d+)/.exec(tailText) ?? /Process exited with code (-?\d+)|Exit code: (-?\d+)/.exec(head);
      const code = exit ? Number(exit[1] ?? exit[2]) : null;
      this.output(id, code === null ? 'execution error: output too large to read from the rollout' : `Exit code: ${code}\nOutput:\noutput too large to read from the rollout`, null, lineNo || null);
    }
  }

  private wanted(id: string): boolean {
    return this.acc.isPending(id) || this.patches.has(id) || this.polls.has(id) || this.cells.has(id);
  }

  private apply(o: Obj, lineNo: number): void {
    const type = o['type'];
    const p = obj(o['payload']);
    if (!p) return;
    const at = str(o['timestamp']) ?? null;
    if (type === 'session_meta') return this.meta(p);
    if (type === 'turn_context') {
      const cwd = str(p['cwd']);
      if (cwd) {
        this.acc.addCwd(cwd);
        this.turnCwd = cwd;
      }
      const model = str(p['model']);
      if (model) this.acc.model = model;
      return;
    }
    if (type === 'event_msg') return this.event(p, lineNo, o);
    if (type === 'response_item') return this.item(p, at, lineNo);
  }

  private meta(p: Obj): void {
    const acc = this.acc;
    const id = str(p['id']);
    if (id && !acc.sessionId) acc.sessionId = id;
    const cwd = str(p['cwd']);
    if (cwd) {
      acc.addCwd(cwd);
      this.turnCwd ??= cwd;
    }
    const branch = str(obj(p['git'])?.['branch']);
    if (branch) acc.branch = branch;
    const version = str(p['cli_version']);
    if (version) acc.version = version;
  }

  private event(p: Obj, lineNo: number, o: Obj): void {
    const acc = this.acc;
    switch (p['type']) {
      case 'user_message':
        return this.userEvent(str(p['message']) ?? '', lineNo);
      case 'agent_message':
        return this.assistantText(str(p['message']) ?? '', lineNo);
      case 'item_completed': {
        const item = obj(p['item']);
        if (item) this.turnItem(item, str(o['timestamp']) ?? null, lineNo);
        return;
      }
      case 'task_complete':
      case 'turn_complete': {
        // The turn's last words as Codex itself records them: the closing words.
        const last = str(p['last_agent_message']);
        if (last?.trim()) acc.setClosing(last, lineNo);
        return;
      }
      case 'turn_aborted':
        acc.abortPending('interrupted', `the turn was aborted (${str(p['reason']) ?? 'interrupted'}) before the command finished; it may have partially executed`, lineNo);
        acc.interrupted(lineNo);
        return;
      case 'thread_rolled_back': {
        const n = p['num_turns'];
        if (typeof n === 'number') acc.rollBack(n);
        return;
      }
      case 'error':
        return acc.apiError(lineNo);
      case 'exec_command_end': {
        // Only in some persistence modes; the function_call_output usually says the same.
        const id = str(p['call_id']);
        if (!id || !acc.isPending(id)) return;
        const status = str(p['status']);
        const code = typeof p['exit_code'] === 'number' ? p['exit_code'] : null;
        if (status === 'declined') acc.finishCommand(id, { exit: null, rejected: true, line: lineNo });
        else acc.finishCommand(id, { exit: code, unfinished: 'error', stdout: str(p['aggregated_output']) ?? '', line: lineNo });
        return;
      }
      case 'patch_apply_end': {
        const id = str(p['call_id']);
        const patch = id ? this.patches.get(id) : undefined;
        if (!id || !patch) return;
        this.patches.delete(id);
        if (p['success'] !== false) this.applied(patch);
        return;
      }
      default:
        return;
    }
  }

  /** The user's own message (`user_message` event, or a paginated `UserMessage` item): the request, counted once. */
  private userEvent(raw: string, lineNo: number): void {
    const text = raw.trim();
    const echo = !this.sawUserEvent && text === this.lastFallbackRequest;
    this.sawUserEvent = true;
    if (echo) this.acc.relineLatestRequest(lineNo);
    else if (text && !INJECTED.test(text)) this.acc.humanRequest(text, lineNo);
  }

  /**
   * A completed TurnItem (`event_msg item_completed`, FORMATS.md Late 2026 L2.4): in a paginated
   * rollout the only record of requests, answers, command results and edits. The same call may also
   * be a response item (same id): it is counted once, and the item's status and exit code win.
   */
  private turnItem(item: Obj, at: string | null, lineNo: number): void {
    const id = str(item['id']);
    switch (item['type']) {
      case 'UserMessage':
        // Images, skills and mentions the user attached carry no request text.
        return this.userEvent(itemText(item['content']), lineNo);
      case 'AgentMessage':
        return this.assistantText(itemText(item['content']), lineNo);
      case 'CommandExecution':
        if (id) this.commandItem(id, item, at, lineNo);
        return;
      case 'FileChange':
        if (id) this.fileChangeItem(id, item, lineNo);
        return;
      case 'McpToolCall':
      case 'DynamicToolCall':
      case 'CollabAgentToolCall':
      case 'WebSearch':
      case 'ImageView':
      case 'ImageGeneration':
      case 'Extension':
        // A tool call of its own (never a shell command); counted once with its response item.
        if (id && this.acc.firstSight(`call:${id}`)) this.acc.toolUse(lineNo);
        return;
      default:
        // Reasoning, plans, hook prompts, compaction and sleep markers, and variants not known yet.
        return;
    }
  }

  /**
   * A finished command: the end of a pending shell call with this id, or — a command with no call of
   * its own (Codex's code mode runs nested commands with `exec-…` ids, the user's `!cmd`) — a new one.
   * A `write_stdin` interaction is a poll of a running command, not a command.
   */
  private commandItem(id: string, item: Obj, at: string | null, lineNo: number): void {
    const acc = this.acc;
    if (item['source'] === 'unified_exec_interaction') return;
    if (!acc.isPending(id)) {
      if (!acc.firstSight(`call:${id}`)) return;
      const argv = Array.isArray(item['command']) ? item['command'].filter((a): a is string => typeof a === 'string') : [];
      const raw: string[] | string = argv.length ? argv : (str(item['command']) ?? '');
      if (!raw.length) return;
      acc.toolUse(lineNo);
      const cwd = str(item['cwd']);
      this.command(id, raw, at, { line: lineNo, tool: item['source'] === 'user_shell' ? 'user_shell' : 'exec', cwd: cwd ? fileUriPath(cwd) : this.turnCwd });
      if (!acc.isPending(id)) return; // apply_patch through the shell: an edit, settled by its FileChange
    }
    const status = str(item['status']);
    const code = typeof item['exit_code'] === 'number' ? item['exit_code'] : null;
    const d = obj(item['duration']);
    const durationMs = typeof d?.['secs'] === 'number' ? Math.round(d['secs'] * 1000 + (typeof d['nanos'] === 'number' ? d['nanos'] / 1e6 : 0)) : null;
    const stdout = str(item['aggregated_output']) ?? str(item['stdout']) ?? '';
    const stderr = str(item['stderr']) ?? '';
    if (status === 'declined') return acc.finishCommand(id, { exit: null, rejected: true, rejectionReason: stderr.trim() || null, at, line: lineNo });
    if (code === null || code < 0) {
      // Failed to start (sandbox, spawn), or no exit code written.
      const why = stderr.trim().split('\n')[0] || `the command ${status === 'failed' ? 'failed to run' : 'ended'} without an exit code`;
      return acc.finishCommand(id, { exit: null, unfinished: 'error', error: why, stdout, at, durationMs, line: lineNo });
    }
    acc.finishCommand(id, { exit: code, stdout, ...(stderr && stderr !== stdout ? { stderr } : {}), at, durationMs, line: lineNo });
  }

  /** A finished edit: its files (absolute keys of `changes`, a move's target too) count once it did not fail. */
  private fileChangeItem(id: string, item: Obj, lineNo: number): void {
    const pending = this.patches.get(id);
    this.patches.delete(id);
    if (!pending && !this.acc.firstSight(`call:${id}`)) return;
    const status = str(item['status']);
    if (status === 'failed' || status === 'declined') return;
    const changes = obj(item['changes']) ?? {};
    const base = this.acc.cwd;
    const files = Object.entries(changes).flatMap(([f, c]) => [f, str(obj(c)?.['move_path'])].filter((x): x is string => !!x));
    const abs = files.map((f) => (path.isAbsolute(f) || !base ? f : path.resolve(base, f)));
    this.applied({ files: abs.length ? abs : (pending?.files ?? []), line: pending?.line ?? lineNo, before: pending?.before ?? this.acc.nextOrdinal });
  }

  private assistantText(text: string, lineNo: number): void {
    const t = text.trim();
    // The event copy and the response item carry the same text: count it once.
    if (!t || t === this.lastAssistant) return;
    this.lastAssistant = t;
    this.acc.assistantText(t, `m:${t.length}:${t.slice(0, 40)}`, lineNo);
  }

  private item(p: Obj, at: string | null, lineNo: number): void {
    const acc = this.acc;
    switch (p['type']) {
      case 'message': {
        const text = contentText(p['content']).trim();
        if (p['role'] === 'assistant') return this.assistantText(text, lineNo);
        if (p['role'] !== 'user' || this.sawUserEvent || !text || INJECTED.test(text)) return;
        // Older rollouts have no user_message events: the response item is the request.
        this.lastFallbackRequest = text;
        acc.humanRequest(text, lineNo);
        return;
      }
      case 'function_call':
        return this.functionCall(p, at, lineNo);
      case 'custom_tool_call': {
        const id = str(p['call_id']);
        if (!id || !acc.firstSight(`call:${id}`)) return;
        acc.toolUse(lineNo);
        if (p['name'] === 'apply_patch') this.patch(id, str(p['input']) ?? '', lineNo);
        else if (p['name'] === 'exec') this.codeCell(id, str(p['input']) ?? '', at, lineNo);
        return;
      }
      case 'local_shell_call': {
        const id = str(p['call_id']) ?? str(p['id']);
        const action = obj(p['action']);
        const argv = action?.['command'];
        if (!id || !Array.isArray(argv) || !acc.firstSight(`call:${id}`)) return;
        acc.toolUse(lineNo);
        this.command(id, argv.filter((a): a is string => typeof a === 'string'), at, { line: lineNo, tool: 'local_shell', cwd: str(action?.['working_directory']) ?? this.turnCwd });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const id = str(p['call_id']);
        if (id) this.output(id, p['output'], at, lineNo);
        return;
      }
      default:
        return;
    }
  }

  private functionCall(p: Obj, at: string | null, lineNo: number): void {
    const acc = this.acc;
    const id = str(p['call_id']);
    const name = str(p['name']) ?? '';
    if (!id || !acc.firstSight(`call:${id}`)) return;
    let args: Obj = {};
    try {
      args = obj(JSON.parse(str(p['arguments']) ?? '{}')) ?? {};
    } catch {
      // Arguments that are not JSON name no command.
    }
    if (name === 'write_stdin') {
      // A poll of a running process: not a new command.
      const session = args['session_id'];
      const target = session === undefined ? undefined : this.running.get(String(session));
      if (target) this.polls.set(id, target);
      // Ctrl-C sent to the process: the agent stopped it on purpose, whatever exit status follows.
      if (target && typeof args['chars'] === 'string' && args['chars'].includes('\u0003')) this.stopping.add(target);
      return;
    }
    acc.toolUse(lineNo);
    if (name === 'wait' && args['cell_id'] !== undefined) {
      // Code mode: a poll of a running cell, whose result settles the cell's commands.
      const cell = this.cells.get(`cell:${String(args['cell_id'])}`);
      if (cell) this.cells.set(id, cell);
      return;
    }
    if (name === 'update_plan' && Array.isArray(args['plan'])) this.plan(args['plan'], lineNo);
    if (name === 'apply_patch') return this.patch(id, str(args['input']) ?? str(args['patch']) ?? '', lineNo);
    if (SHELL_TOOLS.has(name) || name === 'shell_command' || name === 'exec_command') {
      const raw = args['command'] ?? args['cmd'];
      const meta: CommandMeta = { line: lineNo, tool: name, cwd: str(args['workdir']) ?? this.turnCwd, description: purposeOf(str(args['justification'])) };
      if (Array.isArray(raw)) this.command(id, raw.filter((a): a is string => typeof a === 'string'), at, meta);
      else if (typeof raw === 'string') this.command(id, raw, at, meta);
    }
  }

  private plan(steps: unknown[], lineNo: number): void {
    {
      const items = steps
        .map((s) => obj(s))
        .filter((s): s is Obj => !!s && typeof s['step'] === 'string')
        .map((s) => ({ content: s['step'] as string, status: str(s['status']) ?? 'pending' }));
      this.acc.setTodos(items, { tool: 'update_plan', line: lineNo });
    }
  }

  /**
   * Codex code mode (0.144+): an `exec` call runs a JavaScript cell that calls `tools.exec_command`,
   * `tools.apply_patch`, `tools.update_plan`… Its commands and patches are read from the cell's source;
   * the cell's result ("Script completed" / "Script failed" / "Script running with cell ID N", settled
   * later by `wait`) is theirs: Codex records the cell's outcome, not each command's exit code.
   */
  private codeCell(id: string, source: string, at: string | null, lineNo: number): void {
    const src = readCell(source);
    const cell: CodeCell = { commands: [], patch: null };
    for (const [k, cmd] of src.commands.entries()) {
      const cid = src.commands.length === 1 ? id : `${id}#${k + 1}`;
      const meta: CommandMeta = { line: lineNo, tool: 'exec', cwd: src.workdir ?? this.turnCwd, description: purposeOf(src.justification ?? undefined) };
      if (isApplyPatchCommand(cmd)) continue;
      if (this.acc.startCommand(cid, unwrapShellString(cmd), at, meta)) cell.commands.push(cid);
    }
    if (src.patches.length) {
      const base = this.acc.cwd;
      const files = src.patches.flatMap((p) => patchFiles(p)).map((f) => (path.isAbsolute(f) || !base ? f : path.resolve(base, f)));
      if (files.length) cell.patch = { files, line: lineNo, before: this.acc.nextOrdinal };
    }
    if (src.plan) this.plan(src.plan, lineNo);
    if (cell.commands.length || cell.patch) this.cells.set(id, cell);
  }

  /** The output of a code-mode cell (or of a `wait` on it). */
  private cellOutput(id: string, cell: CodeCell, text: string, at: string | null, lineNo: number | null): void {
    const head = text.trimStart();
    const running = /^Script running with cell ID (\S+)/.exec(head);
    if (running?.[1]) {
      this.cells.set(`cell:${running[1]}`, cell);
      for (const c of cell.commands) this.acc.appendOutput(c, cellBody(text));
      return;
    }
    this.cells.delete(id);
    const body = cellBody(text);
    let result: CommandResult;
    if (/^Script completed\b/.test(head)) result = { exit: 0, stdout: body };
    else if (/^Script failed\b/.test(head)) result = { exit: 1, stdout: body, error: (/Script error:\s*\n?([^\n]*)/.exec(body)?.[1] ?? 'the script failed').slice(0, 500) };
    else if (/^aborted by user\b/i.test(head)) result = { exit: null, unfinished: 'interrupted', error: `${head.split('\n')[0] ?? 'aborted by user'}; it may have partially executed` };
    else result = { exit: null, unfinished: 'no-result', error: 'no outcome in the cell output', stdout: body };
    for (const c of cell.commands) this.acc.finishCommand(c, { ...result, at, line: lineNo });
    if (cell.patch && result.exit === 0) {
      this.applied(cell.patch);
      cell.patch = null;
    }
  }

  /** A shell command, unless it is apply_patch run through the shell (an edit). */
  private command(id: string, raw: string[] | string, at: string | null, meta: CommandMeta): void {
    const text = Array.isArray(raw) ? commandOfArgv(raw) : unwrapShellString(raw);
    if (Array.isArray(raw) && raw[0] === 'apply_patch' && typeof raw[1] === 'string') return this.patch(id, raw[1], meta.line ?? null);
    if (isApplyPatchCommand(text)) return this.patch(id, text, meta.line ?? null);
    this.acc.startCommand(id, text, at, meta);
  }

  private patch(id: string, patch: string, line: number | null): void {
    const base = this.acc.cwd;
    const files = patchFiles(patch).map((f) => (path.isAbsolute(f) || !base ? f : path.resolve(base, f)));
    if (files.length) this.patches.set(id, { files, line, before: this.acc.nextOrdinal });
    if (this.patches.size > 500) this.patches.delete(this.patches.keys().next().value as string);
  }

  /** A patch that applied: each of its files was edited at the patch call. */
  private applied(patch: { files: string[]; line: number | null; before: number }): void {
    for (const f of patch.files) this.acc.edited(f, patch.line, patch.before);
  }

  private output(id: string, raw: unknown, at: string | null, lineNo: number | null = null): void {
    const acc = this.acc;
    const text = typeof raw === 'string' ? raw : contentText(raw);
    const cell = this.cells.get(id);
    if (cell) return this.cellOutput(id, cell, text, at, lineNo);
    const patch = this.patches.get(id);
    if (patch) {
      this.patches.delete(id);
      const r = parseOutput(text);
      const ok = r.exit === 0 || /^Success\b/m.test(r.body);
      if (ok) this.applied(patch);
      return;
    }
    const pollOf = this.polls.get(id);
    const target = pollOf ?? id;
    if (pollOf) this.polls.delete(id);
    if (!acc.isPending(target)) return;
    const r = parseOutput(text);
    if (r.runningSession !== null) {
      // Still running after the yield time: later write_stdin polls of this session may end it.
      this.running.set(r.runningSession, target);
      if (pollOf) acc.appendOutput(target, r.body);
      else acc.finishCommand(target, { exit: null, unfinished: 'running', error: `still running (session ${r.runningSession}) when the log was last written; no exit status`, stdout: r.body, at, line: lineNo }, true);
      return;
    }
    let result: CommandResult = pollOf ? { ...r.result, stdout: undefined } : r.result;
    if (this.stopping.delete(target)) result = { exit: null, unfinished: 'stopped', error: `stopped on purpose by the agent (Ctrl-C)${r.exit !== null ? `, then exit ${r.exit}` : ''}; no failure of its own` };
    if (pollOf) acc.appendOutput(target, r.body);
    acc.finishCommand(target, { ...result, at, durationMs: pollOf ? undefined : r.result.durationMs, line: lineNo });
  }
}

interface ParsedOutput {
  exit: number | null;
  body: string;
  runningSession: string | null;
  result: CommandResult;
}

/** The text parts of a TurnItem's content (`{"type":"text"}` in a UserMessage, `{"type":"Text"}` in an AgentMessage). */
function itemText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => obj(c))
    .filter((c): c is Obj => (c?.['type'] === 'text' || c?.['type'] === 'Text') && typeof c['text'] === 'string')
    .map((c) => c['text'] as string)
    .join('\n');
}

/** A `file://` URI (how newer Codex writes a command's cwd) as a path; a plain path as it is. */
function fileUriPath(cwd: string): string {
  if (!cwd.startsWith('file://')) return cwd;
  try {
    return fileURLToPath(cwd);
  } catch {
    return cwd;
  }
}

/** Exit status, duration and output of any shell tool's output (structured JSON or header text). */
export function parseOutput(text: string): ParsedOutput {
  let exit: number | null = null;
  let body = text;
  let seconds: number | null = null;
  let runningSession: string | null = null;
  let known = false;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const o = obj(JSON.parse(trimmed));
      const meta = obj(o?.['metadata']);
      if (o && typeof o['output'] === 'string') {
        body = o['output'];
        if (typeof meta?.['exit_code'] === 'number') {
          exit = meta['exit_code'];
          known = true;
        }
        if (typeof meta?.['duration_seconds'] === 'number') seconds = meta['duration_seconds'];
      }
    } catch {
      // Not JSON after all: read as text.
    }
  }
  if (!known) {
    const out = /^Output:\n?/m.exec(text);
    const head = out ? text.slice(0, out.index) : text.slice(0, 500);
    const code = /^(?:Exit code:|Process exited with code) (-?\d+)\s*$/m.exec(head);
    const wall = /^Wall time: ([\d.]+) seconds?/m.exec(head);
    const run = /^Process running with session ID (\S+)/m.exec(head);
    if (code) {
      exit = Number(code[1]);
      known = true;
    }
    if (wall) seconds = Number(wall[1]);
    if (run?.[1]) runningSession = run[1];
    if (out && (code || wall || run || /^Chunk ID:/m.test(head))) body = text.slice(out.index + out[0].length);
  }
  const durationMs = seconds === null || !Number.isFinite(seconds) ? null : Math.round(seconds * 1000);
  const lower = body.trimStart().toLowerCase();
  let result: CommandResult;
  if (/^exec command rejected by (the )?user|^(command )?rejected by (the )?user|^user (rejected|declined)/i.test(text.trim())) {
    result = { exit: null, rejected: true };
  } else if ((exit === 124 || !known) && lower.startsWith('command timed out')) {
    result = { exit: null, unfinished: 'timeout', error: body.trimStart().split('\n')[0] ?? 'command timed out', stdout: body.trimStart().split('\n').slice(1).join('\n'), durationMs };
  } else if (!known && /^aborted by user\b/i.test(text.trim())) {
    // Esc during the command: it may have partially executed.
    result = { exit: null, unfinished: 'interrupted', error: `${text.trim().split('\n')[0] ?? 'aborted by user'}; it may have partially executed`, durationMs };
  } else if (!known && /^execution error:/i.test(text.trim())) {
    result = { exit: null, unfinished: 'error', error: text.trim().split('\n')[0] ?? 'execution error', durationMs };
  } else if (!known) {
    result = { exit: null, unfinished: 'no-result', error: 'no exit status in the tool output', stdout: body, durationMs };
  } else {
    result = { exit, stdout: body, durationMs };
  }
  return { exit, body, runningSession, result };
}

/** An escalation request's justification ("Do you want me to run X so I can Y?") as what the call is for ("run X so I can Y"). */
export function purposeOf(justification: string | undefined): string | null {
  const t = justification?.trim();
  if (!t) return null;
  return t.replace(/^(?:do you want me to|may i|can i|should i|allow me to)\s+/i, '').replace(/\?\s*$/, '').trim() || null;
}

interface CodeCell {
  commands: string[];
  patch: { files: string[]; line: number | null; before: number } | null;
}

/** The text of a code-mode cell's output after its "Script completed / Wall time / Output:" head. */
function cellBody(text: string): string {
  const out = /^Output:\n?/m.exec(text);
  return out ? text.slice(out.index + out[0].length) : text;
}

/** A JavaScript string literal at `at` (double, single or back quotes), decoded; null when there is none. */
function stringAt(source: string, at: number): { value: string; end: number } | null {
  const q = source[at];
  if (q !== '"' && q !== "'" && q !== '`') return null;
  let i = at + 1;
  let value = '';
  while (i < source.length && source[i] !== q) {
    const ch = source[i] as string;
    if (ch === '\\' && i + 1 < source.length) {
      const n = source[i + 1] as string;
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', v: '\v' };
      if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      value += simple[n] ?? n;
      i += 2;
      continue;
    }
    if (q === '`' && ch === '$' && source[i + 1] === '{') return null; // a template with parts: not a literal
    value += ch;
    i++;
  }
  return i < source.length ? { value, end: i + 1 } : null;
}

/** Every literal value of a key (`cmd: "…"`, `"cmd":"…"`) in a cell's source, in order. */
function literalsOf(source: string, key: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`(?:["']${key}["']|\\b${key})\\s*:\\s*`, 'g');
  for (const m of source.matchAll(re)) {
    const lit = stringAt(source, (m.index ?? 0) + m[0].length);
    if (lit) out.push(lit.value);
  }
  return out;
}

/** What a code-mode cell runs: its shell commands, patches and plan, read from its source without running it. */
export function readCell(source: string): { commands: string[]; patches: string[]; workdir: string | null; justification: string | null; plan: unknown[] | null } {
  const bounded = source.length > 400_000 ? source.slice(0, 400_000) : source;
  const commands = /\btools\.exec_command\b/.test(bounded) ? literalsOf(bounded, 'cmd') : [];
  const patches: string[] = [];
  if (/\btools\.apply_patch\b/.test(bounded)) {
    for (const m of bounded.matchAll(/["'`]\*\*\* Begin Patch/g)) {
      const lit = stringAt(bounded, m.index ?? 0);
      if (lit) patches.push(lit.value);
    }
  }
  let plan: unknown[] | null = null;
  const planAt = /\btools\.update_plan\(\s*\{/.exec(bounded);
  if (planAt) {
    const start = (planAt.index ?? 0) + planAt[0].length - 1;
    try {
      const parsed = JSON.parse(balanced(bounded, start) ?? '') as { plan?: unknown };
      if (Array.isArray(parsed.plan)) plan = parsed.plan;
    } catch {
      // A plan built in code, not a literal: not read.
    }
  }
  return { commands, patches, workdir: literalsOf(bounded, 'workdir')[0] ?? null, justification: literalsOf(bounded, 'justification')[0] ?? null, plan };
}

/** The balanced `{…}` starting at `start`, strings respected; null when it does not close. */
function balanced(source: string, start: number): string | null {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const ch = source[i];
    if (ch === '"' || ch === "'" || ch === '`') {
      const lit = stringAt(source, i);
      if (!lit) return null;
      i = lit.end - 1;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return source.slice(start, i + 1);
  }
  return null;
}
