/**
 * Credentials an agent session saw (flagged, never only masked). Every line of a session file goes
 * through the byte-level pre-filter of ../redact/scan, and only a line where it fires is read by the
 * full detector, one JSON string value at a time. What printed the credential is known from the tool
 * calls seen before: Claude Code `tool_use` ids and Codex `call_id`s map to the command or the file
 * read (redacted: a command can hold a credential itself).
 */
import { detectSecrets, redact } from '../redact';
import type { Found } from '../redact/scan';
import { credentialsInJsonLine, fingerprintOf, mayHoldCredential } from '../redact/scan';
import { hasAtEdges, hasInHead } from './lines';
import type { CredentialPlace, SessionCredential } from './model';

/** Lines kept per credential, and credentials per session: a transcript full of keys stays bounded. */
const MAX_LINES = 20;
const MAX_CREDENTIALS = 200;
/** Tool calls remembered (newest win): a result names its call soon after it. */
const MAX_CALLS = 4096;

/** What a tool call printed with: the shell command, or the file it read. */
interface Call {
  printedBy: string;
  line: number;
}

const CLAUDE_CALL = Buffer.from('"tool_use"');

/** The JSON string value after `key` (e.g. `"command":"`) within `text`, decoded; null when absent. */
function stringAfter(text: string, key: string, from = 0): string | null {
  const at = text.indexOf(key, from);
  if (at === -1) return null;
  const start = at + key.length;
  let j = start;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  try {
    return JSON.parse(`"${text.slice(start, j)}"`) as string;
  } catch {
    return null;
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };

/** JSON text with its string escapes undone, wherever they are (for a cut piece of a line). */
function unescapeJson(text: string): string {
  return text.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_m, hex: string | undefined, c: string | undefined) => (hex ? String.fromCharCode(parseInt(hex, 16)) : ESCAPES[c!]!));
}

export const shortCommand = (c: string): string => {
  // Redacted before the cut: a command holding a credential is never shown in part.
  const one = redact(c).replace(/\s+/g, ' ').trim();
  return one.length > 120 ? `${one.slice(0, 117)}…` : one;
};

/**
 * Every credential in one JSON text (a line of a session file, one message of a task file): the
 * byte-level pre-filter first, the full detector over its string values only where it fires.
 */
export function credentialsInJson(text: string, bytes: Buffer = Buffer.from(text, 'utf8')): Found[] {
  return mayHoldCredential(bytes) ? credentialsInJsonLine(text) : [];
}

/** What printed a credential, and the line of that call (0 when none). */
export interface PrintedBy {
  printedBy: string;
  line: number;
}

/** Where a credential was seen: a line of the session file, or (`file`, `index`) a message of one of a task's JSON files. */
export interface SeenAt {
  line: number;
  file?: string;
  /** 0-based index of the message in the file's top-level array. */
  index?: number;
}

/**
 * The credentials found in one session (or task), by fingerprint, in order of first sighting: the
 * store the session scanner and the task scanner share. Bounded: a file full of keys stays small.
 */
export class CredentialStore {
  private readonly found = new Map<string, SessionCredential>();
  /** Changes whenever a finding is added or grows. */
  revision = 0;

  add(hits: readonly Found[], at: SeenAt, by: PrintedBy | null): void {
    for (const h of hits) {
      const fingerprint = fingerprintOf(h.value);
      let c = this.found.get(fingerprint);
      if (!c) {
        if (this.found.size >= MAX_CREDENTIALS) continue;
        c = { kind: h.name ? `${h.kind} (${h.name})` : h.kind, fingerprint, lines: [], printedBy: by?.printedBy ?? null, callLine: by?.line || null, ...(h.weak ? { weak: true } : {}) };
        this.found.set(fingerprint, c);
        this.revision++;
      } else if (c.weak && !h.weak) {
        // The same value seen where its shape or syntax says "secret": a credential after all.
        delete c.weak;
        c.kind = h.name ? `${h.kind} (${h.name})` : h.kind;
        this.revision++;
      }
      if (c.printedBy === null && by && at.file !== undefined) {
        // A later sighting that knows what printed it says more than the first one.
        c.printedBy = by.printedBy;
        c.callLine = by.line || null;
        this.revision++;
      }
      if (at.file !== undefined) {
        const places: CredentialPlace[] = (c.places ??= []);
        if (!places.some((p) => p.file === at.file && p.index === at.index) && places.length < MAX_LINES) {
          places.push({ file: at.file, line: at.line, index: at.index ?? 0 });
          if (places[0]!.file === at.file && !c.lines.includes(at.line)) c.lines.push(at.line);
          this.revision++;
        }
      } else if (!c.lines.includes(at.line) && c.lines.length < MAX_LINES) {
        c.lines.push(at.line);
        this.revision++;
      }
    }
  }

  /** What was found, in order of first sighting (copies). */
  credentials(): SessionCredential[] {
    return [...this.found.values()].map((c) => ({ ...c, lines: [...c.lines], ...(c.places ? { places: c.places.map((p) => ({ ...p })) } : {}) }));
  }
}

/**
 * Scans the lines of one session file (fed in order, each once) and keeps what it found, by
 * fingerprint. Memory is bounded: the findings and the tool calls remembered are capped.
 */
export class CredentialScanner {
  private readonly calls = new Map<string, Call>();
  private readonly store = new CredentialStore();
  /** The calls of the line being read. */
  private lineCalls: Call[] = [];

  constructor(private readonly agent: 'claude-code' | 'codex') {}

  /** Changes whenever a finding is added or grows. */
  get revision(): number {
    return this.store.revision;
  }

  /** One complete line of the file, 1-based. */
  line(bytes: Buffer, lineNo: number): void {
    // Tool calls are in assistant lines (Claude Code) or response items (Codex): their type is at the edges.
    const call = this.agent === 'claude-code' ? hasAtEdges(bytes, '"type":"assistant"') && bytes.indexOf(CLAUDE_CALL) !== -1 : hasInHead(bytes, '_call"');
    const may = mayHoldCredential(bytes);
    if (!call && !may) return;
    const text = bytes.toString('utf8');
    this.lineCalls = [];
    if (call) this.remember(text, lineNo);
    // A tool-call line the pre-filter passes (nothing credential-shaped in it) needs no detector.
    if (!may) return;
    const hits = credentialsInJsonLine(text);
    if (hits.length) this.add(hits, lineNo, text);
  }

  /**
   * The head and tail of a line too long to hold: their JSON is cut (the tail starts inside a string),
   * so each is read as text with its JSON escapes undone.
   */
  oversized(head: string, tail: string, lineNo: number): void {
    this.lineCalls = [];
    const hits: Found[] = [];
    for (const part of [head, tail]) {
      if (!mayHoldCredential(Buffer.from(part))) continue;
      const text = unescapeJson(part);
      for (const h of detectSecrets(text)) if (!h.personal) hits.push({ rule: h.rule, kind: h.label, value: text.slice(h.start, h.end), ...(h.weak ? { weak: true } : {}) });
    }
    if (hits.length) this.add(hits, lineNo, head);
  }

  /** What was found, in order of first sighting. */
  credentials(): SessionCredential[] {
    return this.store.credentials();
  }

  private add(hits: Found[], lineNo: number, text: string): void {
    this.store.add(hits, { line: lineNo }, this.printedBy(text));
  }

  /** What printed the text of this line: the tool call its result answers, else who wrote it. */
  private printedBy(text: string): Call | null {
    const id = stringAfter(text, '"tool_use_id":"') ?? stringAfter(text, '"call_id":"');
    const call = id ? this.calls.get(id) : undefined;
    if (call) return call;
    // The credential is in a call itself (`curl -H "Authorization: Bearer …"`): the call of this line.
    if (this.lineCalls.length === 1) return { printedBy: `the command ${this.lineCalls[0]!.printedBy}`, line: 0 };
    if (this.lineCalls.length > 1) return null;
    if (this.agent === 'claude-code') {
      if (text.includes('"type":"tool_use"')) return null;
      if (/"type":"user"/.test(text.slice(0, 4096)) || /"type":"user"/.test(text.slice(-4096))) return { printedBy: 'a user message', line: 0 };
      if (/"type":"assistant"/.test(text.slice(0, 4096)) || /"type":"assistant"/.test(text.slice(-4096))) return { printedBy: 'assistant text', line: 0 };
      return null;
    }
    if (/"role":"user"|"type":"user_message"/.test(text)) return { printedBy: 'a user message', line: 0 };
    if (/"role":"assistant"|"type":"agent_message"/.test(text)) return { printedBy: 'assistant text', line: 0 };
    return null;
  }

  /** Remembers the tool calls of a line: id → the command or the file it reads. */
  private remember(text: string, lineNo: number): void {
    if (this.agent === 'claude-code') {
      for (let at = text.indexOf('"type":"tool_use"'); at !== -1; at = text.indexOf('"type":"tool_use"', at + 1)) {
        // The block's id and name follow its type; its input follows them.
        const id = stringAfter(text, '"id":"', at);
        const name = stringAfter(text, '"name":"', at);
        if (!id || !name) continue;
        const input = text.indexOf('"input":', at);
        const command = input === -1 ? null : stringAfter(text, '"command":"', input);
        const file = input === -1 ? null : stringAfter(text, '"file_path":"', input) ?? stringAfter(text, '"path":"', input);
        const printedBy = command !== null && /bash|shell|powershell|monitor/i.test(name) ? `\`${shortCommand(command)}\`` : file ? `${name} of ${file}` : name;
        this.putCall(id, { printedBy, line: lineNo });
      }
      return;
    }
    const callId = stringAfter(text, '"call_id":"');
    const name = stringAfter(text, '"name":"') ?? 'tool';
    if (!callId) return;
    const args = stringAfter(text, '"arguments":"') ?? stringAfter(text, '"input":"');
    let printedBy = name;
    if (args !== null) {
      let cmd: unknown = null;
      try {
        const parsed = JSON.parse(args) as Record<string, unknown>;
        cmd = parsed['cmd'] ?? parsed['command'];
        if (Array.isArray(cmd)) cmd = cmd.join(' ').replace(/^(?:\S*\/)?(?:ba|z)?sh -l?c /, '');
        if (typeof cmd !== 'string' && typeof parsed['path'] === 'string') printedBy = `${name} of ${parsed['path']}`;
      } catch {
        // apply_patch and custom tools carry plain text
      }
      if (typeof cmd === 'string') printedBy = `\`${shortCommand(cmd)}\``;
    }
    this.putCall(callId, { printedBy, line: lineNo });
  }

  private putCall(id: string, call: Call): void {
    this.calls.delete(id);
    const kept = { printedBy: redact(call.printedBy), line: call.line };
    this.calls.set(id, kept);
    this.lineCalls.push(kept);
    if (this.calls.size > MAX_CALLS) this.calls.delete(this.calls.keys().next().value as string);
  }
}
