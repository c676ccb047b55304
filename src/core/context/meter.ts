import { claudeCompactAtPercent, claudeTranscriptReader, round1 } from './claude';
import { codexParser, codexRolloutReader } from './codex';
import type { DiscoveryOptions, SessionCandidate } from './discovery';
import { SessionDiscovery } from './discovery';
import { readGenericUsage } from './generic';
import type { TailReader, TailReadStats } from './tailReader';
import type { ContextResult } from './types';
import { isSdkMessagesFile } from '../session/clineSdk';
import type { AnyTaskReader } from '../session/taskReader';
import { taskReaderFor } from '../session/taskReader';
import { codexPredecessors, readPage } from '../session/codexPages';
import { statOrNull } from '../fsx';
import type { VscodeAgent } from './vscodeAgents';
import { isVscodeAgent } from './vscodeAgents';

export interface ContextMeterOptions extends DiscoveryOptions {
  /** A Claude context-window size that beats the detection (0 or undefined: detect); for Cline / Roo Code, beats the model table. */
  windowOverride?: number;
  /** One-shot reads (the CLI): wait a moment for a task file caught half-written. */
  settle?: boolean;
}

/** One candidate session with its current reading. */
export interface CandidateReading extends SessionCandidate {
  result: ContextResult;
}

/** What the meter shows: the winning reading and every session found. */
export interface MeterReading {
  /** The most recently updated candidate's reading, or unknown with a reason when none was found. */
  current: ContextResult;
  /** Newest first; `current` comes from the first one. */
  candidates: CandidateReading[];
}

/**
 * The context meter of one workspace folder: discovery plus one incremental reader per log, kept across
 * calls so each `read()` costs only what the agents appended since the last one. Pure Node (no vscode);
 * the extension calls it on a timer or a file-watch event, the CLI once.
 */
export class ContextMeter {
  private readonly discovery: SessionDiscovery;
  private readonly readers = new Map<string, TailReader<unknown>>();
  private readonly generic = new Map<string, { mtimeMs: number; size: number; result: ContextResult }>();
  /** Cline / Roo Code / Kilo Code tasks: JSON files rewritten whole, read again when they change. */
  private readonly tasks = new Map<string, AnyTaskReader>();

  constructor(private readonly options: ContextMeterOptions) {
    this.discovery = new SessionDiscovery(options);
  }

  /** Finds the sessions and brings every reading up to date. Never throws for missing or bad files. */
  async read(): Promise<MeterReading> {
    // A session of Cline's SDK bundle has facts but no known meter rule: it never hides another reading.
    const found = (await this.discovery.find()).filter((c) => !isSdkMessagesFile(c.file));
    const candidates = withKnownWindow(await Promise.all(found.map(async (c) => ({ ...c, result: await this.readOne(c) }))), this.options.windowOverride);
    // Readers of logs that are no longer candidates hold offsets and state for nothing.
    const live = new Set(found.map((c) => c.file));
    for (const file of [...this.readers.keys()]) if (!live.has(file)) this.readers.delete(file);
    for (const file of [...this.tasks.keys()]) if (!live.has(file)) this.tasks.delete(file);
    const first = candidates[0];
    // A store that is there but could not be read is named, never taken for "no session".
    const problems = this.discovery.tasks.problems();
    let current: ContextResult = first
      ? first.result
      : { known: false, reason: `no agent session found for ${this.options.folder}${problems.length ? `; ${problems.join('; ')}` : ''}` };
    if (first && problems.length) current = { ...current, warnings: [...(current.warnings ?? []), ...problems] };
    return { current, candidates };
  }

  /** The Cline / Roo Code / Kilo Code storage folders that exist, to watch for task changes. */
  taskDirs(agents: readonly VscodeAgent[]): Promise<string[]> {
    return this.discovery.tasks.watchDirs(agents);
  }

  /** Where the meter looks for sessions, for the log when none is found. */
  places(): string[] {
    return this.discovery.places();
  }

  /** What the last read of one log cost (for diagnostics and tests). */
  statsFor(file: string): TailReadStats | undefined {
    return this.readers.get(file)?.stats;
  }

  private async readOne(c: SessionCandidate): Promise<ContextResult> {
    if (c.source === 'generic') {
      const cached = this.generic.get(c.file);
      if (cached && cached.mtimeMs === c.mtimeMs && cached.size === c.size) return cached.result;
      const result = await readGenericUsage(c.file, this.options.folder);
      this.generic.set(c.file, { mtimeMs: c.mtimeMs, size: c.size, result });
      return result;
    }
    if (isVscodeAgent(c.source)) {
      const task = taskReaderFor({ ...c, source: c.source }, this.tasks.get(c.file));
      this.tasks.set(c.file, task);
      return task.reading({ windowOverride: this.options.windowOverride, rooModel: this.options.rooModel }, this.options.settle === true);
    }
    let reader = this.readers.get(c.file);
    if (!reader) {
      reader = (c.source === 'claude'
        ? claudeTranscriptReader(c.file, { windowOverride: this.options.windowOverride })
        : codexRolloutReader(c.file)) as TailReader<unknown>;
      this.readers.set(c.file, reader);
    }
    let result = await reader.read();
    // A page Codex just started (after a revert or a fork) has no usage yet: the thread's is on the page before, up to its cut.
    if (c.source === 'codex' && !result.known) {
      const earlier = await this.earlierPage(c.file);
      if (earlier?.known) result = { ...earlier, sessionId: result.sessionId ?? earlier.sessionId };
    }
    return result.known || !c.sessionId || result.sessionId ? result : { ...result, sessionId: c.sessionId };
  }

  /** Earlier readings of paginated Codex threads, by predecessor file, kept while the file stays as it was. */
  private readonly pages = new Map<string, { mtimeMs: number; size: number; endOrdinal: number; result: ContextResult }>();

  /** The last usage of a paginated Codex thread before `file`'s page: the newest earlier page that has one, up to its cut. */
  private async earlierPage(file: string): Promise<ContextResult | undefined> {
    const { pages } = await codexPredecessors(file).catch(() => ({ pages: [] }));
    for (const page of [...pages].reverse()) {
      const st = await statOrNull(page.file);
      if (!st) continue;
      let cached = this.pages.get(page.file);
      if (!cached || cached.mtimeMs !== st.mtimeMs || cached.size !== st.size || cached.endOrdinal !== page.endOrdinal) {
        const parser = codexParser();
        let state = parser.initial();
        // Only the lines the reading depends on are parsed: usage and the model.
        await readPage(page, {
          line: (bytes) => {
            const text = bytes.toString('utf8');
            if (parser.decisive(text) || text.includes('"turn_context"')) state = parser.apply(state, text);
          },
          oversized: () => undefined,
        });
        cached = { mtimeMs: st.mtimeMs, size: st.size, endOrdinal: page.endOrdinal, result: parser.result(state, page.file) };
        this.pages.set(page.file, cached);
        if (this.pages.size > 16) this.pages.delete(this.pages.keys().next().value as string);
      }
      if (cached.result.known) return cached.result;
    }
    return undefined;
  }
}

/**
 * A Claude transcript does not say how large the window is (a 1M-context session looks like a 200k one
 * until it passes 200k); the statusLine bridge does. When `context_usage.json` comes from the same
 * Claude session, its window is used for the transcript's reading too, unless the user set one; it also
 * completes a reading whose model the window table does not know.
 */
function withKnownWindow(candidates: CandidateReading[], windowOverride: number | undefined): CandidateReading[] {
  if (windowOverride) return candidates;
  // Only a context_usage.json reading names the agent that wrote it.
  const bridge = candidates.find((c) => c.result.known && c.result.agent === 'claude');
  if (!bridge?.result.known) return candidates;
  const { sessionId, windowTokens } = bridge.result;
  return candidates.map((c) => {
    const r = c.result;
    if (c.source !== 'claude' || r.sessionId !== sessionId) return c;
    if (r.known) {
      return {
        ...c,
        result: { ...r, windowTokens, percent: round1((r.usedTokens / windowTokens) * 100), compactAtPercent: claudeCompactAtPercent(windowTokens) },
      };
    }
    // A model the table does not know: the statusLine's window makes the transcript's reading whole.
    if (r.usedTokens === undefined || !r.sessionId) return c;
    const { reason: _reason, usedTokens, model, at, known: _known, ...rest } = r;
    return {
      ...c,
      result: {
        ...rest,
        known: true,
        source: 'claude',
        sessionId: r.sessionId,
        ...(model ? { model } : {}),
        usedTokens,
        windowTokens,
        percent: round1((usedTokens / windowTokens) * 100),
        compactAtPercent: claudeCompactAtPercent(windowTokens),
        at: at ?? '',
      },
    };
  });
}
