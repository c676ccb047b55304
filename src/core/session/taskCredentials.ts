/**
 * Credentials a Cline / Roo Code / Kilo Code task saw (flagged, never only masked). The task's JSON
 * files are rewritten whole on every save, so each snapshot is scanned whole: every message of
 * `ui_messages.json` and every content block of `api_conversation_history.json` (or an SDK session's
 * messages file) goes through the same pre-filter and detector as a line of a Claude Code or Codex
 * session (./credentials). What printed a credential is known from the messages before it: the chat's
 * `command` message before its `command_output`, the `tool_use` a `tool_result` answers, the
 * `[read_file for '…'] Result:` head of an XML-mode result.
 */
import { redact } from '../redact';
import type { PrintedBy } from './credentials';
import { CredentialStore, credentialsInJson, shortCommand } from './credentials';
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

/** Scans the chat (`ui_messages.json`): `ClineMessage[]`, the same shape for Roo Code and Kilo Code. */
function scanUi(store: CredentialStore, file: string, value: unknown, lines: readonly number[], agent: 'cline' | 'roo' | 'zoo' | 'kilo'): void {
  if (!Array.isArray(value)) return;
  let command: PrintedBy | null = null;
  value.forEach((v, index) => {
    const m = obj(v);
    if (!m) return;
    const line = lines[index] ?? 1;
    const kind = str(m[m['type'] === 'ask' ? 'ask' : 'say']) ?? '';
    const text = str(m['text']) ?? '';
    if (kind === 'command') command = { printedBy: `\`${shortCommand(text.replace(/\s*REQ_APP\s*$/, ''))}\``, line };
    const hits = credentialsInJson(JSON.stringify(v));
    if (!hits.length) return;
    let by: PrintedBy | null = null;
    if (kind === 'command') by = { printedBy: `the command ${command!.printedBy}`, line: 0 };
    else if (kind === 'command_output') by = command;
    else if (kind === 'tool') {
      const t = textJson(text);
      const tool = str(t?.['tool']);
      by = tool ? mapNull(callName(tool, t), line) : null;
    } else if (kind === 'api_req_started') {
      // The request as sent holds the tool results of the turn: its head names the call.
      const request = str(textJson(text)?.['request']) ?? '';
      by = mapNull(resultHead(request.replace(/^[\s\S]*?(?=\[\w+ for ')/, '')), 0);
    } else if (kind === 'task' || kind === 'user_feedback' || (agent !== 'cline' && kind === 'text' && index === 0)) by = { printedBy: 'a user message', line: 0 };
    else if (kind === 'text' || kind === 'completion_result' || kind === 'reasoning') by = { printedBy: 'assistant text', line: 0 };
    store.add(hits, { file, line, index }, safe(by));
  });
}

const mapNull = (printedBy: string | null, line: number): PrintedBy | null => (printedBy ? { printedBy, line } : null);

/** Scans the api history (Anthropic-format messages): each content block on its own, so a result names its call. */
function scanApi(store: CredentialStore, file: string, value: unknown, lines: readonly number[]): void {
  if (!Array.isArray(value)) return;
  const calls = new Map<string, PrintedBy>();
  value.forEach((v, index) => {
    const m = obj(v);
    if (!m) return;
    const line = lines[index] ?? 1;
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
        if (id && call) calls.set(id, { printedBy: call, line });
      }
      const hits = credentialsInJson(JSON.stringify(b));
      if (!hits.length) continue;
      let by: PrintedBy | null = null;
      if (type === 'tool_use') by = call ? { printedBy: call.startsWith('`') ? `the command ${call}` : call, line: call.startsWith('`') ? 0 : line } : null;
      else if (type === 'tool_result') {
        const id = str(b['tool_use_id']) ?? str(b['call_id']);
        by = (id ? calls.get(id) : undefined) ?? null;
      } else if (type === 'text') {
        const head = resultHead(str(b['text']) ?? '');
        by = head ? { printedBy: head, line: 0 } : { printedBy: role === 'assistant' ? 'assistant text' : 'a user message', line: 0 };
      } else if (role === 'assistant') by = { printedBy: 'assistant text', line: 0 };
      store.add(hits, { file, line, index }, safe(by));
    }
  });
}

/**
 * Every credential in one snapshot of a task's files, deduplicated by fingerprint, with each message
 * it was seen in (file, index, line) and what printed it. The chat is read first: its `command`
 * message names the command whose output held the credential.
 */
export function taskCredentials(files: TaskFiles, agent: 'cline' | 'roo' | 'zoo' | 'kilo'): SessionCredential[] {
  const store = new CredentialStore();
  if (files.ui) scanUi(store, files.ui.file, files.ui.value, files.ui.lines, agent);
  if (files.api) scanApi(store, files.api.file, files.api.value, files.api.lines);
  return store.credentials();
}
