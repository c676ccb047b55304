/**
 * What the terminal agents that keep one JSONL log per session have in common (FORMATS: more-agents
 * §2 Gemini CLI, §3 Qwen Code, §4 Copilot CLI): the log is read whole (it is small, and records are
 * rewritten by id or chained by parent, so no incremental read would be simpler), its lines parsed
 * with a bad line located and a torn last line said, its credentials scanned line by line, and its
 * facts fed to the shared accumulator through ./vscodeTask's `factsOfEvents`. Each agent's module
 * turns its records into events and its newest token usage into a `LogUsage`.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { round1 } from '../context/claude';
import { modelInfo } from '../context/models';
import type { ContextResult } from '../context/types';
import { openRegular, statOrNull } from '../fsx';
import { redact } from '../redact';
import { CredentialStore, credentialsInJson } from './credentials';
import type { SessionCredential, SessionFacts } from './model';
import type { Obj, TaskEvent } from './vscodeTask';
import { factsOfEvents, obj } from './vscodeTask';

/** A session log larger than this is not read (a message says so). */
export const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** A regular file's text, refused (with why) past the cap or when it is not a regular file. */
export async function readFileCapped(file: string, max = MAX_LOG_BYTES): Promise<string> {
  const st = await statOrNull(file);
  if (!st) throw new Error('it is missing');
  if (!st.isFile()) throw new Error('it is not a regular file');
  if (st.size > max) throw new Error(`it is ${Math.round(st.size / 1048576)} MB, more than the ${max / 1048576} MB read`);
  return fs.readFile(file, 'utf8');
}

/** The first line of a regular file (up to `max` bytes), or throws why it cannot be read. A FIFO or device is never opened. */
export async function firstLine(file: string, max = 256 * 1024): Promise<string> {
  const opened = await openRegular(file);
  if (!opened.ok) throw new Error(opened.refusal.kind === 'missing' ? 'it is missing' : opened.refusal.message);
  const { handle } = opened.file;
  try {
    const buf = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buf, 0, max, 0);
    const text = buf.toString('utf8', 0, bytesRead);
    const nl = text.indexOf('\n');
    return nl === -1 ? text : text.slice(0, nl);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * A reader of a session log's first line, each file parsed once per `key` (its size, time and inode):
 * `parse` gets the line's JSON object (undefined when it is none) and gives the head or an Error
 * saying why the file is not a session. At most 4 096 files are remembered.
 */
export function headReader<T>(parse: (o: Obj | undefined, file: string) => T | Error): (file: string, key: string) => Promise<T | Error> {
  const heads = new Map<string, { key: string; head: T | Error }>();
  return async (file, key) => {
    const cached = heads.get(file);
    if (cached?.key === key) return cached.head;
    let head: T | Error;
    try {
      const line = await firstLine(file);
      let o: Obj | undefined;
      try {
        o = obj(JSON.parse(line));
      } catch {
        o = undefined;
      }
      head = parse(o, file);
    } catch (err) {
      head = err as Error;
    }
    heads.set(file, { key, head });
    if (heads.size > 4096) heads.delete(heads.keys().next().value as string);
    return head;
  };
}

/** One parsed line of a log. */
export interface LogRecord {
  o: Obj;
  /** 1-based line. */
  line: number;
  raw: string;
}

/** The JSON object lines of a log; a line that is not one is located, a torn last line (no newline yet) said. */
export function logRecords(text: string, file: string): { records: LogRecord[]; badLines: number[]; notRead: { file: string; message: string }[] } {
  const records: LogRecord[] = [];
  const badLines: number[] = [];
  const notRead: { file: string; message: string }[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, n) => {
    if (!raw.trim()) return;
    let o: Obj | undefined;
    try {
      o = obj(JSON.parse(raw));
    } catch {
      o = undefined;
    }
    if (o) records.push({ o, line: n + 1, raw });
    else if (n === lines.length - 1) notRead.push({ file, message: `line ${n + 1} is not complete (the agent may be writing it); read up to line ${n}` });
    else badLines.push(n + 1);
  });
  return { records, badLines, notRead };
}

/** Credentials seen in a log's lines, each with its line and what printed it. */
export class LineCredentials {
  private readonly store = new CredentialStore();

  add(raw: string, line: number, by: string | null): void {
    const hits = credentialsInJson(raw);
    if (hits.length) this.store.add(hits, { line }, by ? { printedBy: redact(by), line: 0 } : null);
  }

  list(): SessionCredential[] {
    return this.store.credentials();
  }
}

/** The prompt size of the newest model call, and the window where the store (or its config) says it. */
export interface LogUsage {
  line: number;
  at: string;
  model: string | null;
  used: number;
  /** The window the agent itself recorded or configured; null to take it from the model table. */
  window: number | null;
  /** Where the agent auto-compacts, 0–100 of the window (100 when it does not say). */
  compactAtPercent: number;
}

/** One log read: the events for the accumulator and what the accumulator does not track. */
export interface LogRead {
  events: TaskEvent[];
  files: string[];
  model: string | null;
  version: string | null;
  usage: LogUsage | null;
  badLines: number[];
  notRead: { file: string; message: string }[];
  /** The type of every record the reader does not know (counted and named, never a crash). */
  unknown: string[];
  credentials: SessionCredential[];
}

/** The agents read this way. */
export type LogAgent = 'gemini' | 'qwen' | 'copilot-cli';

export const LOG_AGENT_NAMES: Record<LogAgent, string> = { gemini: 'Gemini CLI', qwen: 'Qwen Code', 'copilot-cli': 'Copilot CLI' };

/** A found session of one of these agents. */
export interface LogRef {
  agent: LogAgent;
  file: string;
  sessionId: string;
  cwd: string;
}

/** How one agent's log is read. */
export interface LogFormat {
  /** Files besides the log whose change changes the facts (a todo list kept beside it). */
  companions(ref: LogRef): string[];
  read(ref: LogRef, text: string): Promise<LogRead>;
}

async function keyOf(files: readonly string[]): Promise<string> {
  const stats = await Promise.all(files.map((f) => statOrNull(f)));
  return stats.map((st) => (st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '-')).join('|');
}

/** One session log: its facts and its meter, read again when it (or a companion file) changes. */
export class AgentLogReader {
  private cached: { key: string; read: LogRead; facts: SessionFacts } | null = null;

  constructor(
    readonly ref: LogRef,
    private readonly format: LogFormat,
  ) {}

  get file(): string {
    return this.ref.file;
  }

  get sessionId(): string {
    return this.ref.sessionId;
  }

  get agent(): LogAgent {
    return this.ref.agent;
  }

  private async load(): Promise<{ read: LogRead; facts: SessionFacts }> {
    const key = await keyOf([this.file, ...this.format.companions(this.ref)]);
    if (this.cached?.key === key) return this.cached;
    const read = await this.format.read(this.ref, await readFileCapped(this.file));
    const snap = { taskId: this.sessionId, dir: path.dirname(this.file), ui: null, uiLines: [], api: null, apiLines: [], metadata: null, cwd: this.ref.cwd };
    let facts = factsOfEvents(this.agent, snap, this.file, read.events, { cwd: this.ref.cwd, files: [...new Set(read.files)], model: read.model, version: read.version, unknown: read.unknown });
    facts = { ...facts, badLines: read.badLines };
    if (read.notRead.length) facts = { ...facts, notRead: read.notRead };
    if (read.credentials.length) facts = { ...facts, credentials: read.credentials };
    this.cached = { key, read, facts };
    return this.cached;
  }

  async facts(): Promise<SessionFacts | null> {
    return (await this.load()).facts;
  }

  async reading(o: { windowOverride?: number } = {}): Promise<ContextResult> {
    const name = LOG_AGENT_NAMES[this.agent];
    const base = { source: this.agent, sessionId: this.sessionId, file: this.file } as const;
    let read: LogRead;
    try {
      read = (await this.load()).read;
    } catch (err) {
      return { known: false, ...base, reason: `${name}'s ${this.file} could not be read: ${(err as Error).message}` };
    }
    const warnings = [...read.notRead.map((n) => `${n.file}: ${n.message}`), ...read.badLines.slice(0, 5).map((l) => `${this.file}:${l}: not a JSON line; skipped`)];
    const extra = warnings.length ? { warnings } : {};
    const u = read.usage;
    if (!u) return { known: false, ...base, reason: `no token usage in the ${name} session yet, so the context used is unknown`, ...extra };
    const override = o.windowOverride && o.windowOverride > 0 ? o.windowOverride : null;
    const window = override ?? u.window ?? modelInfo(u.model)?.contextWindow ?? null;
    if (!window) {
      const why = u.model ? `the model "${u.model}" is not in Session Handoff's model table` : `the ${name} session names no model`;
      return { known: false, ...base, ...(u.model ? { model: u.model } : {}), usedTokens: u.used, at: u.at, reason: `${why}, and ${name} stores no window for it, so its context window is unknown (set sessionHandoff.context.windowOverride)`, ...extra };
    }
    return { known: true, ...base, ...(u.model ? { model: u.model } : {}), usedTokens: u.used, windowTokens: window, percent: round1((u.used / window) * 100), compactAtPercent: u.compactAtPercent, at: u.at, ...extra };
  }
}
