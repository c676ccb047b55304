import * as path from 'node:path';
import { clineReading } from '../context/cline';
import { rooReading } from '../context/roo';
import type { ContextResult } from '../context/types';
import type { VscodeAgent } from '../context/vscodeAgents';
import { isLogAgent } from '../context/vscodeAgents';
import type { LogAgent } from './agentLog';
import { AgentLogReader } from './agentLog';
import type { LogFormat } from './agentLog';
import { GEMINI_FORMAT } from './gemini';
import { QWEN_FORMAT } from './qwen';
import { COPILOT_CLI_FORMAT } from './copilotCli';

const LOG_FORMATS: Record<LogAgent, LogFormat> = { gemini: GEMINI_FORMAT, qwen: QWEN_FORMAT, 'copilot-cli': COPILOT_CLI_FORMAT };
import { clineTaskFacts } from './cline';
import { ClineSdkReader, isSdkMessagesFile } from './clineSdk';
import { isKiloDbFile, KiloDbReader } from './kiloDb';
import type { CopilotChatGeneration } from './copilotChat';
import { CopilotChatReader } from './copilotChat';
import type { SessionFacts } from './model';
import { rooTaskFacts } from './roo';
import { taskCredentials } from './taskCredentials';
import type { JsonDocState } from './taskJson';
import { JsonDocFile, notReadOf } from './taskJson';
import type { TaskSnapshot } from './vscodeTask';
import { apiMessages, uiMessages } from './vscodeTask';

/** How long a one-shot read (the CLI) waits for a half-written task file before using what it has. */
const SETTLE_WAITS_MS = [150, 300, 600];

export interface TaskReaderOptions {
  /** The workspace folder the agent's index records for the task. */
  cwd?: string | null;
  /** The clock, for tests. */
  now?: () => number;
}

export interface TaskMeterOptions {
  windowOverride?: number;
  /** The model Roo Code / Kilo Code use (they do not store it in the task). */
  rooModel?: string;
}

/**
 * One Cline / Roo Code / Kilo Code task folder, kept up to date: its JSON files are read again only
 * when they change, a half-written one keeps its last valid version (and is read again on the next
 * change), and facts and the meter reading are rebuilt only when a file moved.
 */
export class VscodeTaskReader {
  readonly file: string;
  private readonly ui: JsonDocFile;
  private readonly api: JsonDocFile;
  private readonly meta: JsonDocFile;
  private cached: { key: string; facts: SessionFacts | null } | null = null;

  constructor(
    readonly dir: string,
    readonly agent: Exclude<VscodeAgent, 'opencode' | 'copilot-chat' | LogAgent>,
    private readonly opts: TaskReaderOptions = {},
  ) {
    this.file = path.join(dir, 'ui_messages.json');
    // Big task files are read from their end (their last messages), never parsed whole.
    const o = { arrayLines: true, tail: {}, ...(opts.now ? { now: opts.now } : {}) };
    this.ui = new JsonDocFile(this.file, o);
    this.api = new JsonDocFile(path.join(dir, 'api_conversation_history.json'), o);
    this.meta = new JsonDocFile(path.join(dir, 'task_metadata.json'), opts.now ? { now: opts.now } : {});
  }

  get taskId(): string {
    return path.basename(this.dir);
  }

  private async docs(settle: boolean): Promise<[JsonDocState, JsonDocState, JsonDocState]> {
    let docs = await Promise.all([this.ui.read(), this.api.read(), this.meta.read()]);
    if (!settle) return docs;
    for (const ms of SETTLE_WAITS_MS) {
      if (!docs.some((d) => d.pending)) break;
      await new Promise((r) => setTimeout(r, ms));
      docs = await Promise.all([this.ui.read(), this.api.read(), this.meta.read()]);
    }
    return docs;
  }

  /** The task's facts; null while no valid `ui_messages.json` has been read. `settle` waits a little for a half-written file. */
  async facts(settle = false): Promise<SessionFacts | null> {
    const [ui, api, meta] = await this.docs(settle);
    const key = `${ui.version}:${api.version}:${meta.version}`;
    if (this.cached?.key === key) return this.cached.facts;
    let facts: SessionFacts | null = null;
    if (ui.value !== undefined) {
      const snap: TaskSnapshot = { taskId: this.taskId, dir: this.dir, ui: ui.value, uiLines: ui.lines, api: api.value, apiLines: api.lines, metadata: meta.value, cwd: this.opts.cwd ?? null };
      facts = this.agent === 'cline' ? clineTaskFacts(snap, this.file) : rooTaskFacts(snap, this.file, this.agent);
      // Every message of both files goes through the credential scan (flagged, never only masked).
      const credentials = taskCredentials({ ui: { file: this.file, value: ui.value, lines: ui.lines }, ...(api.value !== undefined ? { api: { file: this.api.file, value: api.value, lines: api.lines } } : {}) }, this.agent);
      if (credentials.length) facts = { ...facts, credentials };
      const notRead = notReadOf([[this.file, ui], [this.api.file, api]]);
      if (notRead.length) facts = { ...facts, notRead };
    }
    this.cached = { key, facts };
    return facts;
  }

  /** The context reading as the agent itself shows it. */
  async reading(o: TaskMeterOptions = {}, settle = false): Promise<ContextResult> {
    const [ui, api] = await this.docs(settle);
    const base = { source: this.agent, sessionId: this.taskId, file: this.file } as const;
    if (ui.value === undefined) {
      if (ui.problem) return { known: false, ...base, reason: ui.problem };
      return { known: false, ...base, reason: ui.pending ? `${this.file} is being written; reading it again on its next change` : `${this.file} is missing` };
    }
    const messages = uiMessages(ui.value, ui.lines);
    const warnings = [ui.problem, api.problem, ...notReadOf([[this.file, ui], [this.api.file, api]]).map((n) => `${n.file} ${n.message}`)].filter((w): w is string => !!w);
    let r: ContextResult;
    if (this.agent === 'cline') {
      const model = [...apiMessages(api.value, [])].reverse().find((m) => m.modelId)?.modelId ?? null;
      r = clineReading(messages, { taskId: this.taskId, file: this.file, model, windowOverride: o.windowOverride });
    } else {
      r = rooReading(messages, Array.isArray(ui.value) ? ui.value : [], { agent: this.agent, taskId: this.taskId, file: this.file, model: o.rooModel?.trim() || null, windowOverride: o.windowOverride });
    }
    return warnings.length ? { ...r, warnings: [...(r.warnings ?? []), ...warnings] } : r;
  }
}

/** The reader of any VS Code agent's task: a task folder, a Cline SDK session, a session of Kilo Code's database. */
export type AnyTaskReader = VscodeTaskReader | ClineSdkReader | KiloDbReader | CopilotChatReader | AgentLogReader;

/** A found task, as far as choosing its reader goes. */
export interface TaskRef {
  source: VscodeAgent;
  file: string;
  sessionId?: string;
  cwd?: string | null;
  generation?: CopilotChatGeneration;
}

/**
 * The reader of a found task: `current` when it already reads that task (one database holds many
 * sessions, so for Kilo Code's the session must match too), else a new one.
 */
export function taskReaderFor(c: TaskRef, current?: AnyTaskReader): AnyTaskReader {
  if (c.source === 'copilot-chat') {
    const id = c.sessionId ?? '';
    return current instanceof CopilotChatReader && current.sessionId === id && current.file === c.file ? current : new CopilotChatReader({ file: c.file, sessionId: id, generation: c.generation ?? 3, cwd: c.cwd ?? '' });
  }
  if (isLogAgent(c.source)) {
    const id = c.sessionId ?? '';
    return current instanceof AgentLogReader && current.sessionId === id && current.file === c.file && current.agent === c.source ? current : new AgentLogReader({ agent: c.source, file: c.file, sessionId: id, cwd: c.cwd ?? '' }, LOG_FORMATS[c.source]);
  }
  if (isKiloDbFile(c.file)) {
    const id = c.sessionId ?? '';
    const agent = c.source === 'opencode' ? 'opencode' : 'kilo';
    return current instanceof KiloDbReader && current.sessionId === id && current.agent === agent ? current : new KiloDbReader(c.file, id, agent);
  }
  if (current && !(current instanceof KiloDbReader) && !(current instanceof CopilotChatReader) && !(current instanceof AgentLogReader)) return current;
  // OpenCode keeps no task folders: only its database gets here.
  return isSdkMessagesFile(c.file) ? new ClineSdkReader(c.file) : new VscodeTaskReader(path.dirname(c.file), c.source === 'opencode' ? 'kilo' : c.source, { cwd: c.cwd ?? null });
}
