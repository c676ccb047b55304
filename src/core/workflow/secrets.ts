/**
 * `handoff secrets`: every credential the folder's inputs hold — the workbench files (every feedback
 * record included) and the agent sessions working in the folder — one entry per value, and the scrub
 * that masks them in the session files in place, byte for byte (./scrubInPlace).
 */
import type { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { SecretFinding } from '../artifacts/snapshot';
import { claudeHostDirName, claudeProjectDirName, claudeProjectSlug, defaultClaudeConfigDir, isInsideFolder, SessionDiscovery } from '../context/discovery';
import type { Head } from '../context/heads';
import { claudeHead } from '../context/heads';
import { listDir, mb, statOrNull } from '../fsx';
import { isJson } from '../context/tailReader';
import type { GitClient, LineOrigin } from '../gitPort';
import type { HandoffOptions } from '../options';
import { secretRisks, sessionSecretFindings } from '../packet/secretRisks';
import type { Risk } from '../packet/schema';
import { mayHoldCredential } from '../redact/scan';
import type { SessionAgent, SessionFacts } from '../session/model';
import { codexPredecessors } from '../session/codexPages';
import { readSessionFile } from '../session/reader';
import type { VscodeAgent, VscodeAgentOptions } from '../context/vscodeAgents';
import { VscodeTaskDiscovery } from '../context/vscodeAgents';
import { agentName } from '../session/model';
import { eachArrayElement, MAX_ELEMENT_BYTES } from '../session/jsonElements';
import { elementLines, TAIL_FROM_BYTES } from '../session/taskJson';
import { isKiloDbFile } from '../session/kiloDb';
import { taskReaderFor } from '../session/taskReader';
import type { TaskFilePaths } from '../session/taskCredentials';
import { wholeTaskCredentials } from '../session/taskCredentials';
import { isSdkMessagesFile } from '../session/clineSdk';
import { loadMergedWorkbench } from './inspect';
import { secretOriginsOf } from './gitInputs';
import { workbenchDirOf } from './paths';
import type { FileSpan, OpenedTarget, TextSpan } from './scrubInPlace';
import { byteSpans, credentialSpans, maskSpans, openTarget, removeLeftovers, stillTheFile, withStars } from './scrubInPlace';

export interface SecretsArgs {
  workspaceDir: string;
  options: HandoffOptions;
  claudeConfigDir?: string;
  codexHome?: string;
  /** Session files named by the user, read besides the ones found for the folder. */
  sessionFiles?: { file: string; agent: SessionAgent }[];
  /** Where Cline / Roo Code / Kilo Code keep their tasks (default: every editor's global storage). */
  tasks?: VscodeAgentOptions;
  git?: GitClient | null;
}

export interface SecretsReport {
  /** One per credential: where it was seen and what to do. */
  risks: Risk[];
  findings: SecretFinding[];
  /**
   * The session files read, with how many credentials each holds. A Cline / Roo Code / Kilo Code task
   * gives one entry per JSON file holding some (its chat when none), with `task` set ("Cline task 1764…").
   */
  sessions: SessionFileEntry[];
  /**
   * The files only part of which was read (a task file past its size limit is read from its end): a
   * credential in the rest is not found, so "no credentials" does not hold for them.
   */
  notScanned: { file: string; message: string }[];
}

export interface SessionFileEntry {
  file: string;
  agent: SessionAgent;
  credentials: number;
  task?: string;
}

const TASK_AGENTS: readonly VscodeAgent[] = ['cline', 'roo', 'zoo', 'kilo', 'opencode'];
/** Task folders read at the same time. */
const TASKS_AT_ONCE = 16;

/** Every task of the folder (any age) with its facts: they stay on disk until deleted. */
async function folderTasks(args: SecretsArgs): Promise<SessionFacts[]> {
  const found = await new VscodeTaskDiscovery(args.workspaceDir, args.tasks ?? {}).all(TASK_AGENTS).catch(() => []);
  const out: (SessionFacts | null)[] = found.map(() => null);
  // A few tasks read at once: thousands of small folders cost their file operations' waits, not CPU.
  let next = 0;
  const readTasks = async (): Promise<void> => {
    for (let i = next++; i < found.length; i = next++) {
      const c = found[i]!;
      const reader = taskReaderFor(c);
      out[i] = await reader.facts(true).catch(() => null);
    }
  };
  await Promise.all(Array.from({ length: Math.min(TASKS_AT_ONCE, found.length) }, readTasks));
  return out.filter((f): f is SessionFacts => f !== null);
}

const LOG_AGENTS: readonly VscodeAgent[] = ['gemini', 'qwen', 'copilot-cli', 'copilot-chat'];

/** Every session log of the folder (any age) of the terminal agents that keep one per session, with its facts. */
async function folderLogs(args: SecretsArgs): Promise<SessionFacts[]> {
  const found = await new VscodeTaskDiscovery(args.workspaceDir, args.tasks ?? {}).all(LOG_AGENTS).catch(() => []);
  const out: SessionFacts[] = [];
  for (const c of found) {
    const f = await taskReaderFor(c).facts(true).catch(() => null);
    if (f) out.push(f);
  }
  return out;
}

const TASK_FILE_AGENTS = new Set<SessionAgent>(['cline', 'roo', 'zoo', 'kilo']);

/**
 * A task whose big JSON files the packet read only from their end, scanned again whole for credentials
 * (message by message, memory bounded by one): "no credentials" then holds for the files, and the scrub
 * finds what it must mask. What is still left out stays named.
 */
async function scannedWhole(f: SessionFacts): Promise<SessionFacts> {
  const part = (f.notRead ?? []).map((n) => n.file);
  if (!part.length || !TASK_FILE_AGENTS.has(f.agent)) return f;
  const files: TaskFilePaths = {};
  for (const file of part) {
    const name = path.basename(file);
    if (name === 'ui_messages.json' || name === 'api_conversation_history.json') {
      files.ui = path.join(path.dirname(file), 'ui_messages.json');
      files.api = path.join(path.dirname(file), 'api_conversation_history.json');
    } else if (isSdkMessagesFile(file)) files.api = file;
  }
  if (!files.ui && !files.api) return f;
  const whole = await wholeTaskCredentials(files, f.agent as 'cline' | 'roo' | 'zoo' | 'kilo');
  const scanned = new Set([files.ui, files.api]);
  const notRead = [...(f.notRead ?? []).filter((n) => !scanned.has(n.file)), ...whole.notRead];
  // What the end's reading found stays, should the whole scan have stopped short of it.
  const seen = new Set(whole.credentials.map((c) => c.fingerprint));
  const credentials = [...whole.credentials, ...(f.credentials ?? []).filter((c) => !seen.has(c.fingerprint))];
  const { credentials: _tail, notRead: _part, ...rest } = f;
  return { ...rest, ...(credentials.length ? { credentials } : {}), ...(notRead.length ? { notRead } : {}) };
}

/** A task's entries: each of its files holding a credential, with how many (the chat alone when none). */
function taskEntries(f: SessionFacts): SessionFileEntry[] {
  const task = `${agentName(f.agent)} task ${f.sessionId}`;
  const counts = new Map<string, number>();
  for (const c of f.credentials ?? []) for (const file of new Set((c.places ?? []).map((p) => p.file))) counts.set(file, (counts.get(file) ?? 0) + 1);
  if (!counts.size) return [{ file: f.file, agent: f.agent, credentials: 0, task }];
  return [...counts].map(([file, n]) => ({ file, agent: f.agent, credentials: n, task }));
}

/**
 * True when a transcript in a project dir named like the folder's is one of the folder's sessions: its
 * cwd is the folder or inside it. Names alone cannot tell: `/app/sub`, `/app-old` and `/app.bak` all
 * start with `/app`'s name, and `/my.app` and `/my-app` share one. A transcript naming no cwd belongs
 * only to the dir of exactly the folder's name.
 */
async function transcriptOfFolder(file: string, folder: string, exact: boolean): Promise<boolean> {
  const head = await claudeHead(file).catch(() => ({}) as Head);
  return head.cwd ? isInsideFolder(folder, head.cwd) : exact;
}

/**
 * Every Claude Code transcript of the folder (not only the newest; sub-agents' too), and the newest
 * Codex rollout. A symbolic link to a transcript is read like the transcript (the packet reads it too).
 */
async function folderSessions(args: SecretsArgs): Promise<{ file: string; agent: SessionAgent }[]> {
  const out: { file: string; agent: SessionAgent }[] = [];
  const projects = path.join(args.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects');
  const slug = claudeProjectSlug(args.workspaceDir);
  // The folder's own name (a long path's is cut and hashed) and the one a host chose.
  const names = [claudeProjectDirName(args.workspaceDir), claudeHostDirName()];
  const dirs = await listDir(projects);
  const add = async (file: string, exact: boolean): Promise<void> => {
    if (await transcriptOfFolder(file, args.workspaceDir, exact)) out.push({ file, agent: 'claude-code' });
  };
  for (const d of dirs.filter((x) => names.includes(x) || x === slug || x.startsWith(`${slug}-`))) {
    const project = path.join(projects, d);
    for (const name of (await listDir(project)).sort((a, b) => a.localeCompare(b))) {
      const st = await statOrNull(path.join(project, name));
      if (st?.isFile() && name.endsWith('.jsonl')) await add(path.join(project, name), d === slug || names.includes(d));
      // A session's sub-agents write their own transcripts beside it: `<session>/subagents/*.jsonl`.
      if (st?.isDirectory()) {
        const sub = path.join(project, name, 'subagents');
        for (const f of (await listDir(sub)).filter((x) => x.endsWith('.jsonl')).sort()) if ((await statOrNull(path.join(sub, f)))?.isFile()) await add(path.join(sub, f), d === slug || names.includes(d));
      }
    }
  }
  const found = await new SessionDiscovery({ folder: args.workspaceDir, sources: ['codex'], ...(args.codexHome ? { codexHome: args.codexHome } : {}) }).find().catch(() => []);
  for (const c of found) {
    if (c.source !== 'codex') continue;
    // A paginated thread's older pages hold its earlier turns: each file is listed (and scrubbed) on its own.
    const { pages } = await codexPredecessors(c.file).catch(() => ({ pages: [] }));
    for (const p of pages) out.push({ file: p.file, agent: 'codex' });
    out.push({ file: c.file, agent: 'codex' });
  }
  for (const s of args.sessionFiles ?? []) if (!out.some((o) => o.file === s.file)) out.push(s);
  return out;
}

/** Lists the credentials of the folder: workbench files and sessions, one risk per value. */
export async function findSecrets(args: SecretsArgs): Promise<SecretsReport> {
  const sessions: SecretsReport['sessions'] = [];
  const facts: SessionFacts[] = [];
  for (const s of await folderSessions(args)) {
    const f = await readSessionFile(s.file, s.agent).catch(() => null);
    if (!f) continue;
    facts.push(f);
    sessions.push({ file: s.file, agent: s.agent, credentials: f.credentials?.length ?? 0 });
  }
  for (const t of await folderTasks(args)) {
    const f = await scannedWhole(t);
    facts.push(f);
    sessions.push(...taskEntries(f));
  }
  // The terminal agents' session logs: append-only JSONL, listed and scrubbed like a Claude Code transcript.
  for (const f of await folderLogs(args)) {
    facts.push(f);
    sessions.push({ file: f.file, agent: f.agent, credentials: f.credentials?.length ?? 0 });
  }
  // Every line of a big feedback log is scanned, not only the window the packet reads.
  const snapshot = await loadMergedWorkbench(args.workspaceDir, args.options, null, { feedbackScanWhole: true });
  const findings = [...(snapshot.secrets ?? []), ...facts.flatMap((f) => sessionSecretFindings(f))];
  let origins: Record<string, LineOrigin> = {};
  if (args.git) {
    const gitFacts = await args.git.facts().catch(() => null);
    if (gitFacts) origins = (await secretOriginsOf(args.git, { ...snapshot, secrets: findings }, workbenchDirOf(args.workspaceDir, args.options), gitFacts.root)) ?? {};
  }
  const agent = facts.length === 1 ? facts[0]!.agent : undefined;
  const notScanned = facts.flatMap((f) => f.notRead ?? []);
  return { risks: secretRisks(findings, origins, agent), findings, sessions, notScanned };
}

/** Why a Kilo Code or OpenCode database is listed but never rewritten. */
export const dbNotScrubbed = (agent = 'Kilo Code'): string => `${agent} keeps its sessions in one SQLite database, which is not scrubbed (rewriting a live database is out of scope): delete the session in ${agent}, and rotate the credential`;

/** Why a Copilot Chat session is listed but never rewritten. */
export const COPILOT_CHAT_NOT_SCRUBBED = "VS Code keeps Copilot Chat's sessions in its own storage and writes them back from memory, so they are not scrubbed: delete the chat in VS Code, and rotate the credential";

/** A session written to this recently may still be in use: it is not masked without `force`. */
export const SCRUB_QUIET_MS = 60_000;

export type ScrubOutcome =
  | {
      kind: 'scrubbed';
      file: string;
      masked: number;
      lines: number[];
      messages?: number[];
      task?: string;
      /** Credentials found but not masked, and why. */
      left?: { count: number; reason: string };
      /** Hidden copies an earlier version of the scrub left beside the file, removed. */
      leftovers?: number;
    }
  | { kind: 'clean'; file: string; leftovers?: number }
  | { kind: 'refused'; file: string; reason: string; leftovers?: number };

/** Why credentials found in a file were not masked, for people (`broken`: lines whose JSON a mask would break). */
function leftReason(changed: number, broken: number, unlocated: number, who: string, unit = 'line'): string {
  const why: string[] = [];
  if (changed) why.push(`${changed} changed on disk between reading and masking (${who} rewrote the file; run the scrub again)`);
  if (broken) why.push(`masking would break the JSON of ${broken} ${unit}${broken === 1 ? '' : 's'}`);
  if (unlocated) why.push(`${unlocated} could not be located byte for byte (invalid UTF-8 inside the credential)`);
  return why.join('; ');
}

/** The outcome once the spans were written: masked ones reported, the rest with their reason. */
function outcomeOf(file: string, masked: number, left: number, reason: string, rest: { lines: number[]; messages?: number[]; task?: string; leftovers: number }): ScrubOutcome {
  const leftovers = rest.leftovers ? { leftovers: rest.leftovers } : {};
  if (!masked) return { kind: 'refused', file, reason: `nothing masked: ${reason}; the file is left as it was`, ...leftovers };
  return { kind: 'scrubbed', file, masked, lines: rest.lines, ...(rest.messages ? { messages: rest.messages } : {}), ...(rest.task ? { task: rest.task } : {}), ...(left ? { left: { count: left, reason } } : {}), ...leftovers };
}

const REPLACED = (who: string): string => `the file was replaced while it was scrubbed (${who} saved a new one in its place), so the one there now was not masked: run the scrub again once it is closed`;

/**
 * Masks every credential of a session log (Claude Code transcript, Codex rollout) in place, byte for
 * byte (see ./scrubInPlace): the real file behind a symbolic link, each credential's bytes overwritten
 * with as many `*`, nothing else written. Lines the agent appends meanwhile are kept (the file is
 * never replaced), and only complete lines are read: a line still being written is left for later.
 * Refuses a file written to in the last minute unless `force` (the agent may still be rewriting what
 * it just wrote), and a compressed one.
 */
export async function scrubSession(file: string, opts: { force?: boolean; now?: number } = {}): Promise<ScrubOutcome> {
  let t: OpenedTarget | { refused: string };
  try {
    t = await openTarget(file, { ...opts, quietMs: SCRUB_QUIET_MS, busy: 'the agent may still be using it (close the session, or pass --force)' });
  } catch (err) {
    return { kind: 'refused', file, reason: (err as Error).message };
  }
  if ('refused' in t) return { kind: 'refused', file, reason: t.refused };
  const target = t;
  try {
    const leftovers = await removeLeftovers(file, target.real);
    const spans: FileSpan[] = [];
    let broken = 0;
    let brokenLines = 0;
    let unlocated = 0;
    const onLine = (bytes: Buffer, offset: number, lineNo: number): void => {
      if (!mayHoldCredential(bytes)) return;
      const text = bytes.toString('utf8');
      const found = credentialSpans(text);
      if (!found.length) return;
      const mine: FileSpan[] = [];
      for (const b of byteSpans(bytes, text, found)) {
        if (b) mine.push({ offset: offset + b.start, bytes: Buffer.from(bytes.subarray(b.start, b.end)), line: lineNo });
        else unlocated++;
      }
      // A line that is JSON stays JSON (a mask inside a string always does; this guards the rest).
      if (mine.length && isJson(text) && !isJson(withStars(bytes, mine, offset).toString('utf8'))) {
        broken += mine.length;
        brokenLines++;
      } else spans.push(...mine);
    };
    await eachLine(target.handle, onLine);
    if (!spans.length && !broken && !unlocated) return { kind: 'clean', file, ...(leftovers ? { leftovers } : {}) };
    if (spans.length && !(await stillTheFile(target))) return { kind: 'refused', file, reason: REPLACED('the agent'), ...(leftovers ? { leftovers } : {}) };
    const { masked, changed } = await maskSpans(target.handle, spans);
    if (masked.length && !(await stillTheFile(target))) return { kind: 'refused', file, reason: REPLACED('the agent'), ...(leftovers ? { leftovers } : {}) };
    const lines = [...new Set(masked.map((s) => s.line))];
    return outcomeOf(file, masked.length, changed + broken + unlocated, leftReason(changed, brokenLines, unlocated, 'the agent'), { lines, leftovers });
  } catch (err) {
    return { kind: 'refused', file, reason: (err as Error).message };
  } finally {
    await target.handle.close().catch(() => undefined);
  }
}

/**
 * Calls `onLine` with each complete line of the open file (its bytes without the newline, its byte
 * offset, its 1-based number), read with positioned reads up to the end as it is when reached. A last
 * line without its newline is passed only when it is whole JSON (else the agent is still writing it).
 */
async function eachLine(handle: fsp.FileHandle, onLine: (bytes: Buffer, offset: number, lineNo: number) => void): Promise<void> {
  const chunk = Buffer.alloc(1 << 20);
  let pending: Buffer[] = [];
  let lineStart = 0;
  let lineNo = 0;
  for (let pos = 0; ; ) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, pos);
    if (!bytesRead) break;
    const got = chunk.subarray(0, bytesRead);
    let start = 0;
    for (let nl = got.indexOf(10); nl !== -1; nl = got.indexOf(10, start)) {
      pending.push(got.subarray(start, nl));
      const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
      pending = [];
      onLine(bytes, lineStart, ++lineNo);
      start = nl + 1;
      lineStart = pos + start;
    }
    if (start < got.length) pending.push(Buffer.from(got.subarray(start)));
    pos += bytesRead;
  }
  const last = Buffer.concat(pending);
  if (last.length && isJson(last.toString('utf8'))) onLine(last, lineStart, ++lineNo);
}

/** Scrubs one entry of the report: a session log or a task's JSON file, each in place. */
export function scrubEntry(entry: SessionFileEntry, opts: { force?: boolean; now?: number } = {}): Promise<ScrubOutcome> {
  if (isKiloDbFile(entry.file)) return Promise.resolve({ kind: 'refused', file: entry.file, reason: dbNotScrubbed(entry.agent === 'opencode' ? 'OpenCode' : 'Kilo Code') });
  if (entry.agent === 'copilot-chat') return Promise.resolve({ kind: 'refused', file: entry.file, reason: COPILOT_CHAT_NOT_SCRUBBED });
  return entry.task ? scrubTaskFile(entry.file, { ...opts, task: entry.task }) : scrubSession(entry.file, opts);
}

/**
 * Masks every credential of one JSON file of a Cline / Roo Code / Kilo Code task in place, byte for
 * byte, the same way as a session log: exactly the credentials' characters inside string values
 * (keys never), checked to leave valid JSON. Refuses a file written in the last minute (the agent may
 * be running the task) unless `force`, a file that is not valid JSON now (caught half-written), and
 * says so when the agent saved a new file in its place meanwhile. The agent must not have the task
 * open: it would write its own unmasked copy back on its next save.
 */
export async function scrubTaskFile(file: string, opts: { force?: boolean; now?: number; task?: string } = {}): Promise<ScrubOutcome> {
  const who = opts.task?.replace(/ task .*$/, '') ?? 'the agent';
  let t: OpenedTarget | { refused: string };
  try {
    t = await openTarget(file, { ...opts, quietMs: SCRUB_QUIET_MS, busy: `${who} may be running the task (close the task, or pass --force)` });
  } catch (err) {
    return { kind: 'refused', file, reason: (err as Error).message };
  }
  if ('refused' in t) return { kind: 'refused', file, reason: t.refused };
  const target = t;
  try {
    const leftovers = await removeLeftovers(file, target.real);
    const keep = leftovers ? { leftovers } : {};
    if (target.st.size > TAIL_FROM_BYTES) return await scrubBigTaskFile(file, target, who, opts.task, leftovers);
    const bytes = await target.handle.readFile();
    const text = bytes.toString('utf8');
    const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    let before: unknown;
    try {
      before = JSON.parse(text.slice(bom));
    } catch {
      return { kind: 'refused', file, reason: `not valid JSON right now (${who} may be writing it); it is left as it was`, ...keep };
    }
    const found = byteSpans(bytes, text, credentialSpans(text));
    if (!found.length) return { kind: 'clean', file, ...keep };
    const spans: FileSpan[] = found.filter((b): b is TextSpan => !!b).map((b) => ({ offset: b.start, bytes: Buffer.from(bytes.subarray(b.start, b.end)), line: 0 }));
    const unlocated = found.length - spans.length;
    if (!isJson(withStars(bytes, spans).toString('utf8').slice(bom))) return { kind: 'refused', file, reason: 'masking would break its JSON; it is left as it was', ...keep };
    if (!(await stillTheFile(target))) return { kind: 'refused', file, reason: REPLACED(who), ...keep };
    const { masked, changed } = await maskSpans(target.handle, spans);
    if (masked.length && !(await stillTheFile(target))) return { kind: 'refused', file, reason: REPLACED(who), ...keep };
    // Which messages changed, and the line each starts on, for the report.
    const afterText = withStars(bytes, masked).toString('utf8').slice(bom);
    const after = JSON.parse(afterText) as unknown;
    const messages: number[] = [];
    if (Array.isArray(before) && Array.isArray(after)) before.forEach((m, i) => JSON.stringify(m) !== JSON.stringify(after[i]) && messages.push(i));
    const starts = Array.isArray(after) ? elementLines(afterText) : [];
    const lines = [...new Set(messages.map((i) => starts[i] ?? 1))];
    return outcomeOf(file, masked.length, changed + unlocated, leftReason(changed, 0, unlocated, who), { lines, messages, ...(opts.task ? { task: opts.task } : {}), leftovers });
  } catch (err) {
    return { kind: 'refused', file, reason: (err as Error).message };
  } finally {
    await target.handle.close().catch(() => undefined);
  }
}

/**
 * A task file too big to read whole (the packet reads it from its end): masked message by message,
 * memory bounded by one message, each masked message checked to stay valid JSON. A message over
 * `MAX_ELEMENT_BYTES` is not scanned, and the outcome says so.
 */
async function scrubBigTaskFile(file: string, target: OpenedTarget, who: string, task: string | undefined, leftovers: number): Promise<ScrubOutcome> {
  const keep = leftovers ? { leftovers } : {};
  const spans: FileSpan[] = [];
  const messageOf = new Map<FileSpan, number>();
  let broken = 0;
  let brokenMessages = 0;
  let unlocated = 0;
  const result = await eachArrayElement(target.handle, (e) => {
    if (!mayHoldCredential(e.bytes)) return;
    const text = e.bytes.toString('utf8');
    const found = byteSpans(e.bytes, text, credentialSpans(text));
    const mine: FileSpan[] = [];
    for (const b of found) {
      if (b) mine.push({ offset: e.offset + b.start, bytes: Buffer.from(e.bytes.subarray(b.start, b.end)), line: e.line });
      else unlocated++;
    }
    if (!mine.length) return;
    if (!isJson(withStars(e.bytes, mine, e.offset).toString('utf8'))) {
      broken += mine.length;
      brokenMessages++;
      return;
    }
    for (const s of mine) messageOf.set(s, e.index);
    spans.push(...mine);
  });
  if (!result.ok) return { kind: 'refused', file, reason: `not valid JSON right now (${who} may be writing it); it is left as it was`, ...keep };
  const big = result.oversized.length;
  const unscanned = big ? `${big === 1 ? 'one message' : `${big} messages`} over ${mb(MAX_ELEMENT_BYTES)} not scanned` : '';
  if (!spans.length && !broken && !unlocated) return big ? { kind: 'refused', file, reason: `nothing found to mask, but ${unscanned}; a credential there is neither found nor masked`, ...keep } : { kind: 'clean', file, ...keep };
  if (spans.length && !(await stillTheFile(target))) return { kind: 'refused', file, reason: REPLACED(who), ...keep };
  const { masked, changed } = await maskSpans(target.handle, spans);
  if (masked.length && !(await stillTheFile(target))) return { kind: 'refused', file, reason: REPLACED(who), ...keep };
  const messages = [...new Set(masked.map((s) => messageOf.get(s)!))];
  const lines = [...new Set(masked.map((s) => s.line))];
  const reason = [leftReason(changed, brokenMessages, unlocated, who, 'message'), unscanned].filter(Boolean).join('; ');
  return outcomeOf(file, masked.length, changed + broken + unlocated + big, reason, { lines, messages, ...(task ? { task } : {}), leftovers });
}
