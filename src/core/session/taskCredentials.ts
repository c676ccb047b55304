/**
 * Credentials a Cline / Roo Code / Kilo Code task saw (flagged, never only masked). The task's JSON
 * files are rewritten whole on every save, so each snapshot is scanned whole: every message of
 * `ui_messages.json` and every content block of `api_conversation_history.json` (or an SDK session's
 * messages file) goes through the same pre-filter and detector as a line of a Claude Code or Codex
 * session (./credentials). What printed a credential is known from the messages before it: the chat's
 * `command` message before its `command_output`, the `tool_use` a `tool_result` answers, the
 * `[read_file for '…'] Result:` head of an XML-mode result.
 */
import { mb, openRegular } from '../fsx';
import { redact } from '../redact';
import { mayHoldCredential } from '../redact/scan';
import type { PrintedBy } from './credentials';
import { CredentialStore, credentialsInJson, shortCommand } from './credentials';
import { eachArrayElement, MAX_ELEMENT_BYTES } from './jsonElements';
import type { SessionCredential } from './model';
import type { Obj } from './vscodeTask';
import { obj, str, textJson } from './vscodeTask';

/** The files of one task snapshot, with what was parsed from each (the value and its elements' lines). */
export interface TaskFiles {
  ui?: { file: string; value: unknown; lines: readonly number[] };
  api?: { file: string; value: unknown; lines: readonly number[] };
}

const COMMAND_TOOLS = /^(?:execute_command|run_command|bash|shell)$/i;

/** A tool call for people: the command in backticks, or `<tool> of <path>` for a file tool. */
export function callName(tool: string, input: Obj | undefined): string | null {
  const command = str(input?.['command']);
  if (command !== undefined && COMMAND_TOOLS.test(tool)) return `\`${shortCommand(command)}\``;
  const p = str(input?.['path']) ?? str(input?.['file_path']) ?? str(obj(obj(input?.['args'])?.['file'])?.['path']);
  return p ? `${tool} of ${p}` : null;
}

/** `[execute_command for 'npm test'] Result:` / `[read_file for '.env'] Result:` heading a result text. */
function resultHead(text: string): string | null {
  const m = /^\s*\[(\w+) for '([\s\S]*?)'\] Result:/.exec(text);
  if (!m) return null;
  return m[1] === 'execute_command' ? `\`${shortCommand(m[2] ?? '')}\`` : `${m[1]} of ${m[2]}`;
}

const safe = (by: PrintedBy | null): PrintedBy | null => (by ? { printedBy: redact(by.printedBy), line: by.line } : null);

const mapNull = (printedBy: string | null, line: number): PrintedBy | null => (printedBy ? { printedBy, line } : null);

/**
 * The scan of one task's messages, one at a time (a task file too big to parse whole is given element by
 * element): what printed a credential is known from the messages before it, so each file's messages come
 * in file order, the chat's first.
 */
export class TaskCredentialScan {
  private readonly store = new CredentialStore();
  /** The chat's last `command` message. */
  private command: PrintedBy | null = null;
  /** The api history's tool calls by id. */
  private readonly calls = new Map<string, PrintedBy>();

  constructor(private readonly agent: 'cline' | 'roo' | 'zoo' | 'kilo') {}

  /** One message of the chat (`ui_messages.json`): a `ClineMessage`, the same shape for Roo Code and Kilo Code. */
  ui(file: string, v: unknown, index: number, line: number): void {
    const m = obj(v);
    if (!m) return;
    const kind = str(m[m['type'] === 'ask' ? 'ask' : 'say']) ?? '';
    const text = str(m['text']) ?? '';
    if (kind === 'command') this.command = { printedBy: `\`${shortCommand(text.replace(/\s*REQ_APP\s*$/, ''))}\``, line };
    const hits = credentialsInJson(JSON.stringify(v));
    if (!hits.length) return;
    let by: PrintedBy | null = null;
    if (kind === 'command') by = { printedBy: `the command ${this.command!.printedBy}`, line: 0 };
    else if (kind === 'command_output') by = this.command;
    else if (kind === 'tool') {
      const t = textJson(text);
      const tool = str(t?.['tool']);
      by = tool ? mapNull(callName(tool, t), line) : null;
    } else if (kind === 'api_req_started') {
      // The request as sent holds the tool results of the turn: its head names the call.
      const request = str(textJson(text)?.['request']) ?? '';
      by = mapNull(resultHead(request.replace(/^[\s\S]*?(?=\[\w+ for ')/, '')), 0);
    } else if (kind === 'task' || kind === 'user_feedback' || (this.agent !== 'cline' && kind === 'text' && index === 0)) by = { printedBy: 'a user message', line: 0 };
    else if (kind === 'text' || kind === 'completion_result' || kind === 'reasoning') by = { printedBy: 'assistant text', line: 0 };
    this.store.add(hits, { file, line, index }, safe(by));
  }

  /** One message of the api history (Anthropic format): each content block on its own, so a result names its call. */
  api(file: string, v: unknown, index: number, line: number): void {
    const m = obj(v);
    if (!m) return;
    const role = m['role'];
    const content = typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : Array.isArray(m['content']) ? m['content'] : [];
    for (const raw of content) {
      const b = obj(raw);
      if (!b) continue;
      const type = b['type'];
      let call: string | null = null;
      if (type === 'tool_use' && role === 'assistant') {
        call = callName(str(b['name']) ?? 'tool', obj(b['input']));
        const id = str(b['id']);
        if (id && call) this.calls.set(id, { printedBy: call, line });
      }
      const hits = credentialsInJson(JSON.stringify(b));
      if (!hits.length) continue;
      let by: PrintedBy | null = null;
      if (type === 'tool_use') by = call ? { printedBy: call.startsWith('`') ? `the command ${call}` : call, line: call.startsWith('`') ? 0 : line } : null;
      else if (type === 'tool_result') {
        const id = str(b['tool_use_id']) ?? str(b['call_id']);
        by = (id ? this.calls.get(id) : undefined) ?? null;
      } else if (type === 'text') {
        const head = resultHead(str(b['text']) ?? '');
        by = head ? { printedBy: head, line: 0 } : { printedBy: role === 'assistant' ? 'assistant text' : 'a user message', line: 0 };
      } else if (role === 'assistant') by = { printedBy: 'assistant text', line: 0 };
      this.store.add(hits, { file, line, index }, safe(by));
    }
  }

  credentials(): SessionCredential[] {
    return this.store.credentials();
  }
}

/**
 * Every credential in one snapshot of a task's files, deduplicated by fingerprint, with each message
 * it was seen in (file, index, line) and what printed it. The chat is read first: its `command`
 * message names the command whose output held the credential.
 */
export function taskCredentials(files: TaskFiles, agent: 'cline' | 'roo' | 'zoo' | 'kilo'): SessionCredential[] {
  const scan = new TaskCredentialScan(agent);
  const { ui, api } = files;
  if (ui && Array.isArray(ui.value)) ui.value.forEach((v, i) => scan.ui(ui.file, v, i, ui.lines[i] ?? 1));
  if (api && Array.isArray(api.value)) api.value.forEach((v, i) => scan.api(api.file, v, i, api.lines[i] ?? 1));
  return scan.credentials();
}

/** The JSON files of a task named by their role, absolute: the chat, the api history (or an SDK session's messages file). */
export interface TaskFilePaths {
  ui?: string;
  api?: string;
}

/** Messages whose bytes name these are parsed even without a credential's mark: they say what printed a later one. */
const CALL_MARKS = { ui: Buffer.from('"command"'), api: Buffer.from('"tool_use"') } as const;

/**
 * Every credential of a task's JSON files read whole, however big: each file streamed message by
 * message (memory bounded by one message, see ./jsonElements), each message that may hold one parsed and
 * scanned as `taskCredentials` does. `notRead` names what was still left out: a message over
 * `MAX_ELEMENT_BYTES`, a file that is not one whole array (being written, cut short), one that cannot
 * be opened.
 */
export async function wholeTaskCredentials(files: TaskFilePaths, agent: 'cline' | 'roo' | 'zoo' | 'kilo'): Promise<{ credentials: SessionCredential[]; notRead: { file: string; message: string }[] }> {
  const scan = new TaskCredentialScan(agent);
  const notRead: { file: string; message: string }[] = [];
  for (const role of ['ui', 'api'] as const) {
    const file = files[role];
    if (!file) continue;
    const opened = await openRegular(file);
    if (!opened.ok) {
      if (opened.refusal.kind !== 'missing') notRead.push({ file, message: `${opened.refusal.message}; not scanned for credentials` });
      continue;
    }
    let unparsed: number | null = null;
    try {
      const result = await eachArrayElement(opened.file.handle, (e) => {
        if (!mayHoldCredential(e.bytes) && !e.bytes.includes(CALL_MARKS[role])) return;
        let value: unknown;
        try {
          value = JSON.parse(e.bytes.toString('utf8'));
        } catch {
          unparsed ??= e.line;
          return;
        }
        scan[role](file, value, e.index, e.line);
      });
      if (!result.ok) notRead.push({ file, message: 'is not one whole JSON array right now (the agent may be writing it); what follows the fault was not scanned for credentials' });
      else if (unparsed !== null) notRead.push({ file, message: `the message at line ${unparsed} is not valid JSON; it was not scanned for credentials` });
      const big = result.oversized;
      if (big.length) notRead.push({ file, message: `${big.length === 1 ? 'one message' : `${big.length} messages`} over ${mb(MAX_ELEMENT_BYTES)} (line ${big.map((b) => b.line).slice(0, 5).join(', ')}${big.length > 5 ? ', …' : ''}) not scanned for credentials` });
    } catch (err) {
      notRead.push({ file, message: `cannot be read: ${(err as Error).message}` });
    } finally {
      await opened.file.handle.close().catch(() => undefined);
    }
  }
  return { credentials: scan.credentials(), notRead };
}
