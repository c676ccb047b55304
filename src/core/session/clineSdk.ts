/**
 * Cline's SDK bundle (the A/B cohort of Cline 4, FORMATS: vscode-agents "Cline SDK bundle"): a task
 * is a session folder `~/.cline/data/sessions/<id>/` with a manifest `<id>.json` (`session_id`,
 * `started_at`, `cwd`, `workspace_root`, `model`, `prompt`, …) and `<id>.messages.json`
 * (`MessageWithMetadata[]`: role and content with `modelInfo{id}`, `metrics` and `ts`). Read where
 * present: the request, the commands and the assistant's words come from the messages. How the SDK
 * webview computes its context bar was not read, so its meter says so instead of guessing.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { ContextResult } from '../context/types';
import { parseClineResult } from './cline';
import type { SessionFacts } from './model';
import { taskCredentials } from './taskCredentials';
import { JsonDocFile, notReadOf } from './taskJson';
import type { ApiMessage, TaskEvent, TaskSnapshot } from './vscodeTask';
import { apiCommandEvents, apiMessages, factsOfEvents, obj, resultText, str, tsOf } from './vscodeTask';

/** The SDK's sessions folder: `$CLINE_SESSION_DATA_DIR`, `$CLINE_DATA_DIR/sessions`, `$CLINE_DIR/data/sessions`, else `~/.cline/data/sessions`. */
export function defaultClineSessionsDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  if (env['CLINE_SESSION_DATA_DIR']) return env['CLINE_SESSION_DATA_DIR'];
  if (env['CLINE_DATA_DIR']) return path.join(env['CLINE_DATA_DIR'], 'sessions');
  if (env['CLINE_DIR']) return path.join(env['CLINE_DIR'], 'data', 'sessions');
  return path.join(home, '.cline', 'data', 'sessions');
}

/** The manifest fields the reader uses. */
export interface SdkManifest {
  sessionId: string;
  startedAt: number;
  endedAt: number;
  cwd: string | null;
  model: string | null;
  prompt: string | null;
  /** Absolute path of the messages file. */
  messagesFile: string;
}

/** A manifest's fields, or null when the value is not one. `dir` is the session folder. */
export function sdkManifest(value: unknown, dir: string): SdkManifest | null {
  const m = obj(value);
  const id = str(m?.['session_id']);
  if (!m || !id) return null;
  const time = (v: unknown): number => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? Date.parse(v) : tsOf(v));
  const messages = str(m['messages_path']);
  return {
    sessionId: id,
    startedAt: time(m['started_at']),
    endedAt: time(m['ended_at']),
    cwd: str(m['workspace_root']) ?? str(m['cwd']) ?? null,
    model: str(m['model']) ?? str(obj(m['metadata'])?.['modelId']) ?? null,
    prompt: str(m['prompt']) ?? null,
    messagesFile: messages ? path.resolve(dir, messages) : path.join(dir, `${id}.messages.json`),
  };
}

/** A user message that only carries text (not tool results): what the human typed. */
function humanText(m: ApiMessage): string | null {
  if (m.role !== 'user' || m.content.some((b) => b['type'] !== 'text')) return null;
  const t = resultText(m.content).trim();
  return t || null;
}

/** The facts of one SDK session. `file` is its messages file. */
export function clineSdkFacts(manifest: SdkManifest, messages: unknown, lines: readonly number[], file: string): SessionFacts {
  const api = apiMessages(messages, lines);
  const events: TaskEvent[] = [];
  const start = manifest.startedAt;
  if (manifest.prompt?.trim()) events.push({ k: 'request', text: manifest.prompt, line: 1, ts: start });
  let first = true;
  let lastTs = start;
  for (const m of api) {
    const ts = m.ts ?? lastTs;
    lastTs = ts;
    if (m.role === 'assistant') {
      const text = m.content
        .filter((b) => b['type'] === 'text' && typeof b['text'] === 'string')
        .map((b) => b['text'] as string)
        .join('\n\n');
      if (text.trim()) events.push({ k: 'assistant', text, line: m.line, ts, closing: false });
      continue;
    }
    const human = humanText(m);
    // The first user message repeats the manifest's prompt.
    if (human && !(first && manifest.prompt && human.includes(manifest.prompt.trim()))) events.push({ k: 'request', text: human, line: m.line, ts });
    first = false;
  }
  events.push(...apiCommandEvents(api, parseClineResult));
  const model = [...api].reverse().map((m) => str(obj(m.raw['modelInfo'])?.['id']) ?? m.modelId).find(Boolean) ?? manifest.model;
  const snap: TaskSnapshot = { taskId: manifest.sessionId, dir: path.dirname(file), ui: [], uiLines: [], api: messages, apiLines: [...lines], metadata: undefined, cwd: manifest.cwd };
  return factsOfEvents('cline', snap, file, events, { cwd: manifest.cwd, files: [], model: model ?? null });
}

/** True when a candidate file is an SDK session's messages file (not a legacy `ui_messages.json`). */
export function isSdkMessagesFile(file: string): boolean {
  return file.endsWith('.messages.json');
}

/** One SDK session, read again when its files change. */
export class ClineSdkReader {
  private readonly manifest: JsonDocFile;
  private readonly messages: JsonDocFile;
  private cached: { key: string; facts: SessionFacts | null } | null = null;

  constructor(readonly file: string) {
    const dir = path.dirname(file);
    this.manifest = new JsonDocFile(path.join(dir, `${path.basename(dir)}.json`));
    this.messages = new JsonDocFile(file, { arrayLines: true, tail: {} });
  }

  async facts(): Promise<SessionFacts | null> {
    const [man, msgs] = await Promise.all([this.manifest.read(), this.messages.read()]);
    const key = `${man.version}:${msgs.version}`;
    if (this.cached?.key === key) return this.cached.facts;
    const manifest = sdkManifest(man.value, path.dirname(this.file));
    let facts = manifest ? clineSdkFacts(manifest, msgs.value ?? [], msgs.lines, this.file) : null;
    // The messages are Anthropic-format, like a legacy task's api history: scanned the same way.
    const credentials = facts && msgs.value !== undefined ? taskCredentials({ api: { file: this.file, value: msgs.value, lines: msgs.lines } }, 'cline') : [];
    if (facts && credentials.length) facts = { ...facts, credentials };
    const notRead = notReadOf([[this.file, msgs]]);
    if (facts && notRead.length) facts = { ...facts, notRead };
    this.cached = { key, facts };
    return facts;
  }

  async reading(): Promise<ContextResult> {
    const man = await this.manifest.read();
    const id = sdkManifest(man.value, path.dirname(this.file))?.sessionId ?? path.basename(path.dirname(this.file));
    return { known: false, source: 'cline', sessionId: id, reason: "a task of Cline's SDK bundle: how it computes its context bar is not known, so there is no reading (its commands and requests are read)", file: this.file };
  }
}
