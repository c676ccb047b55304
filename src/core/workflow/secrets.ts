/**
 * `handoff secrets`: every credential the folder's inputs hold — the workbench files (every feedback
 * record included) and the agent sessions working in the folder — one entry per value, and the scrub
 * that masks them in the session files in place.
 */
import type { Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SecretFinding } from '../artifacts/snapshot';
import { claudeProjectSlug, defaultClaudeConfigDir, SessionDiscovery } from '../context/discovery';
import { isJson } from '../context/tailReader';
import type { GitClient, LineOrigin } from '../gitPort';
import type { HandoffOptions } from '../options';
import { secretRisks, sessionSecretFindings } from '../packet/secretRisks';
import type { Risk } from '../packet/schema';
import { detectSecrets, MASK } from '../redact';
import { decodeJsonString, jsonStrings, mayHoldCredential } from '../redact/scan';
import type { SessionAgent, SessionFacts } from '../session/model';
import { readSessionFile } from '../session/reader';
import type { VscodeAgent, VscodeAgentOptions } from '../context/vscodeAgents';
import { VscodeTaskDiscovery } from '../context/vscodeAgents';
import { agentName } from '../session/model';
import { ClineSdkReader, isSdkMessagesFile } from '../session/clineSdk';
import { elementLines } from '../session/taskJson';
import { VscodeTaskReader } from '../session/taskReader';
import { loadMergedWorkbench } from './inspect';
import { secretOriginsOf } from './gitInputs';
import { workbenchDirOf } from './paths';

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
}

export interface SessionFileEntry {
  file: string;
  agent: SessionAgent;
  credentials: number;
  task?: string;
}

const TASK_AGENTS: readonly VscodeAgent[] = ['cline', 'roo', 'kilo'];
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
      const reader = isSdkMessagesFile(c.file) ? new ClineSdkReader(c.file) : new VscodeTaskReader(c.dir, c.source, { cwd: c.cwd });
      out[i] = await reader.facts(true).catch(() => null);
    }
  };
  await Promise.all(Array.from({ length: Math.min(TASKS_AT_ONCE, found.length) }, readTasks));
  return out.filter((f): f is SessionFacts => f !== null);
}

/** A task's entries: each of its files holding a credential, with how many (the chat alone when none). */
function taskEntries(f: SessionFacts): SessionFileEntry[] {
  const task = `${agentName(f.agent)} task ${f.sessionId}`;
  const counts = new Map<string, number>();
  for (const c of f.credentials ?? []) for (const file of new Set((c.places ?? []).map((p) => p.file))) counts.set(file, (counts.get(file) ?? 0) + 1);
  if (!counts.size) return [{ file: f.file, agent: f.agent, credentials: 0, task }];
  return [...counts].map(([file, n]) => ({ file, agent: f.agent, credentials: n, task }));
}

/** Every Claude Code transcript of the folder (not only the newest; sub-agents' too), and the newest Codex rollout. */
async function folderSessions(args: SecretsArgs): Promise<{ file: string; agent: SessionAgent }[]> {
  const out: { file: string; agent: SessionAgent }[] = [];
  const projects = path.join(args.claudeConfigDir ?? defaultClaudeConfigDir(), 'projects');
  const slug = claudeProjectSlug(args.workspaceDir);
  const dirs = await fs.readdir(projects).catch(() => [] as string[]);
  for (const d of dirs.filter((x) => x === slug || x.startsWith(`${slug}-`))) {
    const project = path.join(projects, d);
    const entries = await fs.readdir(project, { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isFile() && e.name.endsWith('.jsonl')) out.push({ file: path.join(project, e.name), agent: 'claude-code' });
      // A session's sub-agents write their own transcripts beside it: `<session>/subagents/*.jsonl`.
      if (e.isDirectory()) {
        const sub = path.join(project, e.name, 'subagents');
        const files = await fs.readdir(sub).catch(() => [] as string[]);
        for (const f of files.filter((x) => x.endsWith('.jsonl')).sort()) out.push({ file: path.join(sub, f), agent: 'claude-code' });
      }
    }
  }
  const found = await new SessionDiscovery({ folder: args.workspaceDir, sources: ['codex'], ...(args.codexHome ? { codexHome: args.codexHome } : {}) }).find().catch(() => []);
  for (const c of found) if (c.source === 'codex') out.push({ file: c.file, agent: 'codex' });
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
  for (const f of await folderTasks(args)) {
    facts.push(f);
    sessions.push(...taskEntries(f));
  }
  const snapshot = await loadMergedWorkbench(args.workspaceDir, args.options, null);
  const findings = [...(snapshot.secrets ?? []), ...facts.flatMap((f) => sessionSecretFindings(f))];
  let origins: Record<string, LineOrigin> = {};
  if (args.git) {
    const gitFacts = await args.git.facts().catch(() => null);
    if (gitFacts) origins = (await secretOriginsOf(args.git, { ...snapshot, secrets: findings }, workbenchDirOf(args.workspaceDir, args.options), gitFacts.root)) ?? {};
  }
  const agent = facts.length === 1 ? facts[0]!.agent : undefined;
  return { risks: secretRisks(findings, origins, agent), findings, sessions };
}

/** A session written to this recently may still be in use: it is not rewritten without `force`. */
export const SCRUB_QUIET_MS = 60_000;

export type ScrubOutcome =
  | { kind: 'scrubbed'; file: string; masked: number; lines: number[]; messages?: number[]; task?: string }
  | { kind: 'clean'; file: string }
  | { kind: 'refused'; file: string; reason: string };

/**
 * One JSON line with every credential inside its string values masked: the mask replaces exactly the
 * raw characters of the credential (escapes included), so the line stays valid JSON and nothing else
 * changes. Keys are never touched. Returns the line and how many credentials were masked.
 */
export function maskJsonLine(text: string): { text: string; masked: number } {
  let out = '';
  let at = 0;
  let masked = 0;
  for (const s of jsonStrings(text)) {
    if (s.key || s.end - s.start < 6) continue;
    const { value, at: raw } = decodeJsonString(text, s.start, s.end);
    for (const h of detectSecrets(value)) {
      const start = raw[h.start]!;
      const end = raw[h.end]!;
      if (start < at) continue;
      out += text.slice(at, start) + MASK;
      at = end;
      masked++;
    }
  }
  out += text.slice(at);
  // A line that was JSON stays JSON; should a mask ever break it, the line is left for the caller to report.
  return { text: out, masked };
}

/**
 * Rewrites a session file with every credential masked: streamed line by line into a temp file in
 * the same folder (same mode), then renamed over the original — atomic, and no unmasked copy is kept.
 * Refuses a file written to in the last minute (the agent may still be writing) unless `force`, and
 * gives up, keeping the original, when the file changes while it is read.
 */
export async function scrubSession(file: string, opts: { force?: boolean; now?: number } = {}): Promise<ScrubOutcome> {
  const st = await fs.stat(file).catch(() => null);
  if (!st || !st.isFile()) return { kind: 'refused', file, reason: 'not a regular file' };
  const age = (opts.now ?? Date.now()) - st.mtimeMs;
  if (age < SCRUB_QUIET_MS && !opts.force) {
    return { kind: 'refused', file, reason: `written to ${Math.max(0, Math.round(age / 1000))} s ago: the agent may still be using it (close the session, or pass --force)` };
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.scrub-${process.pid}.tmp`);
  const lines: number[] = [];
  let masked = 0;
  let broken = 0;
  const input = await fs.open(file, 'r');
  let output: fs.FileHandle | null = null;
  try {
    output = await fs.open(tmp, 'wx', st.mode & 0o777);
    let pending: Buffer[] = [];
    let lineNo = 0;
    // Written in batches: one write per line would make a big transcript slow.
    let batch: Buffer[] = [];
    let batchBytes = 0;
    const emit = async (b: Buffer, force = false): Promise<void> => {
      if (b.length) {
        batch.push(b);
        batchBytes += b.length;
      }
      if (batchBytes >= 1 << 20 || (force && batchBytes > 0)) {
        await output!.write(Buffer.concat(batch));
        batch = [];
        batchBytes = 0;
      }
    };
    const flushLine = async (bytes: Buffer, newline: boolean): Promise<void> => {
      lineNo++;
      let outBytes = bytes;
      if (mayHoldCredential(bytes)) {
        const text = bytes.toString('utf8');
        const r = maskJsonLine(text);
        if (r.masked > 0) {
          let ok = true;
          try {
            JSON.parse(text);
            JSON.parse(r.text);
          } catch {
            ok = false;
          }
          if (ok || !isJson(text)) {
            outBytes = Buffer.from(r.text, 'utf8');
            masked += r.masked;
            lines.push(lineNo);
          } else broken++;
        }
      }
      await emit(outBytes);
      if (newline) await emit(NL);
    };
    const stream = input.createReadStream({ highWaterMark: 1 << 20, autoClose: false });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, nl));
        const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        pending = [];
        await flushLine(bytes, true);
        start = nl + 1;
      }
      if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
    }
    if (pending.length) await flushLine(Buffer.concat(pending), false);
    await emit(Buffer.alloc(0), true);
    if (broken) throw new Error(`masking would break the JSON of ${broken} line${broken === 1 ? '' : 's'}; the file is left as it was`);
    if (masked === 0) {
      await output.close();
      output = null;
      await fs.rm(tmp, { force: true });
      return { kind: 'clean', file };
    }
    await output.sync();
    await output.close();
    output = null;
    if (!(await replaceIfUnchanged(file, tmp, st))) {
      return { kind: 'refused', file, reason: 'the file changed while it was scrubbed; it is left as it was (try again once the session is closed)' };
    }
    return { kind: 'scrubbed', file, masked, lines };
  } catch (err) {
    await output?.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    return { kind: 'refused', file, reason: (err as Error).message };
  } finally {
    await input.close().catch(() => undefined);
  }
}

const NL = Buffer.from('\n');

/**
 * Renames the scrubbed copy over the file, unless the file changed since `before` was taken (the agent
 * wrote to it meanwhile): then the copy is removed and the file left as it is. True when replaced.
 */
async function replaceIfUnchanged(file: string, tmp: string, before: Stats): Promise<boolean> {
  const now = await fs.stat(file);
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs || now.ino !== before.ino) {
    await fs.rm(tmp, { force: true });
    return false;
  }
  await fs.rename(tmp, file);
  return true;
}

/** Scrubs one entry of the report: a session log line by line, a task's JSON file whole. */
export function scrubEntry(entry: SessionFileEntry, opts: { force?: boolean; now?: number } = {}): Promise<ScrubOutcome> {
  return entry.task ? scrubTaskFile(entry.file, { ...opts, task: entry.task }) : scrubSession(entry.file, opts);
}

/**
 * Rewrites one JSON file of a Cline / Roo Code / Kilo Code task with every credential masked. The
 * file is one JSON document the agent rewrites whole on each save, so it is masked whole — exactly the
 * credentials' characters inside string values, keys never — checked to be valid JSON still, written
 * to a temp file beside it (same mode) and renamed over it: atomic, and no unmasked copy is kept.
 * Refuses a file written in the last minute (the agent may be running the task) unless `force`, a file
 * that is not valid JSON now (caught half-written), and one that changes while it is scrubbed. The
 * agent must not have the task open: it would write its own unmasked copy back on its next save.
 */
export async function scrubTaskFile(file: string, opts: { force?: boolean; now?: number; task?: string } = {}): Promise<ScrubOutcome> {
  const who = opts.task?.replace(/ task .*$/, '') ?? 'the agent';
  const st = await fs.stat(file).catch(() => null);
  if (!st || !st.isFile()) return { kind: 'refused', file, reason: 'not a regular file' };
  const age = (opts.now ?? Date.now()) - st.mtimeMs;
  if (age < SCRUB_QUIET_MS && !opts.force) {
    return { kind: 'refused', file, reason: `written to ${Math.max(0, Math.round(age / 1000))} s ago: ${who} may be running the task (close the task, or pass --force)` };
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.scrub-${process.pid}.tmp`);
  let output: fs.FileHandle | null = null;
  try {
    const raw = await fs.readFile(file, 'utf8');
    const bom = raw.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
    const text = bom ? raw.slice(1) : raw;
    let before: unknown;
    try {
      before = JSON.parse(text);
    } catch {
      return { kind: 'refused', file, reason: `not valid JSON right now (${who} may be writing it); it is left as it was` };
    }
    const r = maskJsonLine(text);
    if (r.masked === 0) return { kind: 'clean', file };
    let after: unknown;
    try {
      after = JSON.parse(r.text);
    } catch {
      return { kind: 'refused', file, reason: 'masking would break its JSON; it is left as it was' };
    }
    // Which messages changed, and the line each starts on, for the report.
    const messages: number[] = [];
    if (Array.isArray(before) && Array.isArray(after)) before.forEach((m, i) => JSON.stringify(m) !== JSON.stringify(after[i]) && messages.push(i));
    const starts = Array.isArray(after) ? elementLines(r.text) : [];
    const lines = [...new Set(messages.map((i) => starts[i] ?? 1))];
    output = await fs.open(tmp, 'wx', st.mode & 0o777);
    await output.write(bom + r.text);
    await output.sync();
    await output.close();
    output = null;
    if (!(await replaceIfUnchanged(file, tmp, st))) {
      return { kind: 'refused', file, reason: `the file changed while it was scrubbed (${who} saved the task); it is left as it was: close the task and try again` };
    }
    return { kind: 'scrubbed', file, masked: r.masked, lines, messages, ...(opts.task ? { task: opts.task } : {}) };
  } catch (err) {
    await output?.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    return { kind: 'refused', file, reason: (err as Error).message };
  }
}
