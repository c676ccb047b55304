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

/**
 * Reads a Claude Code transcript (FORMATS.md §1) into session facts: main-chain `Bash` calls with
 * their results, edits, the last `TodoWrite`, human requests, assistant text. Sidechain lines, API
 * errors, compaction summaries and injected text are not the session's own. Lines that cannot matter
 * (results of tools we do not follow, bookkeeping lines) are skipped without being parsed.
 */
export class ClaudeHandler implements LineHandler {
  readonly acc = new SessionAccumulator('claude-code');
  /** Edit calls waiting for their result: the file counts once the edit did not fail. */
  private readonly edits = new Map<string, string>();

  line(bytes: Buffer, lineNo: number): void {
    // Decide from the line's edges whether it can matter before parsing it: most of a transcript's
    // bytes are results of tools we do not follow (file reads) and bookkeeping lines.
    const user = hasAtEdges(bytes, '"type":"user"');
    const assistant = !user && hasAtEdges(bytes, '"type":"assistant"');
    if (!user && !assistant) {
      // Another line type (summary, system, snapshots…), unless the keys are laid out unusually.
      if (hasAtEdges(bytes, '"type":"') || bytes.length > 64 * 1024) return;
    } else if (user && hasInHead(bytes, '"tool_use_id":"')) {
      // A tool result: only worth parsing when it answers a command or an edit we follow.
      if (!this.acc.pendingCount && !this.edits.size) return;
      const commandIds = [...this.acc.pendingIds()].filter((id) => has(bytes, `"tool_use_id":"${id}"`));
      const editIds = [...this.edits.keys()].filter((id) => has(bytes, `"tool_use_id":"${id}"`));
      if (!commandIds.length && !editIds.length) return;
      if (!commandIds.length) {
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
    if (o) this.apply(o);
  }

  /** A line too long to parse: the result's outcome is read from its first and last bytes. */
  oversized(head: string, tailText: string): void {
    const ids = idsAfter(Buffer.from(head), '"tool_use_id":"').filter((id) => this.acc.isPending(id) || this.edits.has(id));
    const failed = head.includes('"is_error":true') || tailText.includes('"is_error":true');
    for (const id of ids) {
      if (this.edits.has(id)) {
        this.editResult(id, failed);
        continue;
      }
      const code = /"content":"Exit code (\d+)/.exec(head);
      const note = 'output too large to read from the transcript';
      if (head.includes(REJECTED_PREFIX) || head.includes("The user doesn't want to take this action")) this.acc.finishCommand(id, { exit: null, rejected: true });
      else if (head.includes('"content":"Command timed out')) this.acc.finishCommand(id, { exit: null, unfinished: 'timeout', error: 'Command timed out', stdout: note });
      else if (code) this.acc.finishCommand(id, { exit: Number(code[1]), stdout: note });
      else if (failed) this.acc.finishCommand(id, { exit: null, unfinished: 'error', error: note });
      else this.acc.finishCommand(id, { exit: 0, stdout: note });
    }
  }

  private editResult(id: string, failed: boolean): void {
    const file = this.edits.get(id);
    this.edits.delete(id);
    if (file && !failed) this.acc.touch(file);
  }

  private apply(o: Obj): void {
    // Sub-agent lines are the sub-agent's actions, not the session's.
    if (o['isSidechain'] === true) return;
    const type = o['type'];
    if (type !== 'assistant' && type !== 'user') return;
    const acc = this.acc;
    const sid = str(o['sessionId']);
    if (sid && !acc.sessionId) acc.sessionId = sid;
    const cwd = str(o['cwd']);
    if (cwd && !acc.cwd) acc.cwd = cwd;
    const branch = str(o['gitBranch']);
    if (branch && branch !== 'HEAD') acc.branch = branch;
    const at = str(o['timestamp']) ?? null;
    const message = obj(o['message']);
    if (!message) return;
    if (type === 'assistant') this.assistant(o, message, at);
    else this.user(o, message, at);
  }

  private assistant(o: Obj, message: Obj, at: string | null): void {
    const acc = this.acc;
    const msgId = str(message['id']) ?? str(o['uuid']) ?? '';
    if (o['isApiErrorMessage'] === true || message['model'] === '<synthetic>') {
      if (o['isApiErrorMessage'] === true && acc.firstSight(`api:${msgId}`)) acc.apiError();
      return;
    }
    const content = message['content'];
    if (typeof content === 'string') {
      acc.assistantText(content, msgId);
      return;
    }
    if (!Array.isArray(content)) return;
    for (const part of content) {
      const p = obj(part);
      if (!p) continue;
      if (p['type'] === 'text' && typeof p['text'] === 'string') acc.assistantText(p['text'], msgId);
      else if (p['type'] === 'tool_use') this.toolUse(p, at);
    }
  }

  private toolUse(p: Obj, at: string | null): void {
    const acc = this.acc;
    const id = str(p['id']);
    const name = str(p['name']);
    const input = obj(p['input']) ?? {};
    // One response is streamed as several lines with the same blocks: each call counts once.
    if (!id || !name || !acc.firstSight(`tool:${id}`)) return;
    acc.toolUse();
    if (name === 'Bash') {
      const command = str(input['command']);
      if (command) acc.startCommand(id, command, at);
    } else if (EDIT_TOOLS.has(name)) {
      const file = str(input['file_path']) ?? str(input['notebook_path']);
      if (file) this.edits.set(id, path.isAbsolute(file) || !acc.cwd ? file : path.resolve(acc.cwd, file));
      // Edits whose result never came are forgotten, oldest first, so the map stays small.
      if (this.edits.size > 500) this.edits.delete(this.edits.keys().next().value as string);
    } else if (name === 'TodoWrite' && Array.isArray(input['todos'])) {
      const items = input['todos']
        .map((t) => obj(t))
        .filter((t): t is Obj => !!t && typeof t['content'] === 'string')
        .map((t) => ({ content: t['content'] as string, status: str(t['status']) ?? 'pending' }));
      acc.setTodos(items);
    }
  }

  private user(o: Obj, message: Obj, at: string | null): void {
    const content = message['content'];
    const parts = Array.isArray(content) ? content.map((c) => obj(c)).filter((c): c is Obj => !!c) : [];
    const results = parts.filter((p) => p['type'] === 'tool_result');
    if (results.length) {
      for (const r of results) {
        const id = str(r['tool_use_id']);
        if (!id) continue;
        if (this.edits.has(id)) this.editResult(id, r['is_error'] === true);
        else if (this.acc.isPending(id)) this.acc.finishCommand(id, bashResult(r, results.length === 1 ? o : {}, at));
      }
      return;
    }
    // Compaction summaries and meta lines are written by the tool, not typed by the human.
    if (o['isCompactSummary'] === true || o['isMeta'] === true || o['isVisibleInTranscriptOnly'] === true) return;
    const text = contentText(content).trim();
    if (text && !NOT_A_REQUEST.test(text)) this.acc.humanRequest(text);
  }
}

/** The outcome of a Bash call from its `tool_result` part and the line's `toolUseResult`. */
export function bashResult(part: Obj, line: Obj, at: string | null): CommandResult {
  const text = contentText(part['content']);
  const tur = line['toolUseResult'];
  const turObj = obj(tur);
  const isError = part['is_error'] === true;
  const denial = str(turObj?.['toolDenialKind']) ?? str(line['toolDenialKind']);
  if (REJECTED.test(text) || tur === 'User rejected tool use' || denial === 'user-rejected') {
    return { exit: null, rejected: true, at };
  }
  const timeout = /^Command timed out after ([^\n]*)\n?/.exec(text);
  if (timeout) return { exit: null, unfinished: 'timeout', error: `Command timed out after ${timeout[1]?.trim()}`, stdout: text.slice(timeout[0].length), at };
  if (turObj && (typeof turObj['backgroundTaskId'] === 'string' || typeof turObj['backgroundTaskId'] === 'number')) {
    const after = turObj['timedOutAfterMs'];
    return typeof after === 'number'
      ? { exit: null, unfinished: 'timeout', error: `moved to the background after ${Math.round(after / 1000)} s without finishing; no exit status recorded`, stdout: str(turObj['stdout']) ?? '', at }
      : { exit: null, unfinished: 'background', error: 'sent to the background; no exit status recorded', stdout: str(turObj['stdout']) ?? '', at };
  }
  if (/^Command running in background with ID:/.test(text)) {
    return { exit: null, unfinished: 'background', error: 'sent to the background; no exit status recorded', at };
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
  return stdout !== undefined || stderr !== undefined ? { exit: 0, stdout: stdout ?? '', stderr: stderr ?? '', at } : { exit: 0, stdout: text, at };
}
