import * as path from 'node:path';
import { normalizeModelId } from './models';
import type { LineParser, TailReaderOptions } from './tailReader';
import { TailReader } from './tailReader';

/** Claude Code auto-compacts about this many tokens before the end of its window. */
export const CLAUDE_COMPACT_MARGIN = 33_000;
export const CLAUDE_WINDOW = 200_000;
export const CLAUDE_WINDOW_1M = 1_000_000;

/**
 * The window Claude Code gives each model, as of Claude Code 2.1.328. Keep it current: a model that is
 * not listed reads as an unknown window (never a guessed percentage), and a wrong entry is worse than none.
 * Matched against the whole id without provider prefix, date or version suffix (`normalizeModelId`).
 */
export const CLAUDE_MODEL_WINDOWS: Readonly<Record<string, number>> = {
  'claude-opus-5-5': CLAUDE_WINDOW_1M,
  'claude-opus-5': CLAUDE_WINDOW_1M,
  'claude-sonnet-5-5': CLAUDE_WINDOW_1M,
  'claude-sonnet-5': CLAUDE_WINDOW_1M,
  'claude-haiku-5-5': CLAUDE_WINDOW_1M,
  'claude-fable-5': CLAUDE_WINDOW_1M,
  'claude-mythos-5': CLAUDE_WINDOW_1M,
  'claude-opus-4-8': CLAUDE_WINDOW_1M,
  'claude-opus-4-7': CLAUDE_WINDOW_1M,
  'claude-opus-4-6': CLAUDE_WINDOW,
  'claude-opus-4-5': CLAUDE_WINDOW,
  'claude-sonnet-4-6': CLAUDE_WINDOW,
  'claude-sonnet-4-5': CLAUDE_WINDOW,
  'claude-haiku-4-5': CLAUDE_WINDOW,
  'claude-opus-4-1': CLAUDE_WINDOW,
  'claude-opus-4': CLAUDE_WINDOW,
  'claude-sonnet-4': CLAUDE_WINDOW,
  'claude-3-7-sonnet': CLAUDE_WINDOW,
  'claude-3-5-sonnet': CLAUDE_WINDOW,
  'claude-3-5-haiku': CLAUDE_WINDOW,
  'claude-3-opus': CLAUDE_WINDOW,
  'claude-3-sonnet': CLAUDE_WINDOW,
  'claude-3-haiku': CLAUDE_WINDOW,
  'claude-2.1': CLAUDE_WINDOW,
  'claude-2.0': CLAUDE_WINDOW,
  'claude-2': CLAUDE_WINDOW,
  'claude-instant-1.2': CLAUDE_WINDOW,
  'claude-instant-1': CLAUDE_WINDOW,
};

/** How to give the meter a window it does not know, for the reason of an unknown reading. */
export const CLAUDE_WINDOW_HOW_TO_FIX =
  'set sessionHandoff.context.windowOverride (or --window) to its window in tokens, or connect the statusLine (handoff setup claude) so Claude Code reports it';

interface ClaudeReading {
  kind: 'call' | 'compact';
  /** Undefined for a compact boundary without `postTokens`. */
  used?: number;
  model?: string;
  at: string;
}

export interface ClaudeState {
  reading?: ClaudeReading;
  sessionId?: string;
  model?: string;
  /** Once a call used more than 200 000 tokens the window is 1M for the rest of the session. */
  proven1m: boolean;
  /** The session's last compact boundary: when, and the prompt size before it (`preTokens`). */
  compacted?: { at: string; preTokens?: number };
}

export interface ClaudeParserOptions {
  /** A context-window size that beats the detection (0 or undefined: detect). */
  windowOverride?: number;
}

interface Usage {
  input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
  cache_read_input_tokens?: unknown;
}

interface ClaudeLine {
  type?: unknown;
  subtype?: unknown;
  isSidechain?: unknown;
  isApiErrorMessage?: unknown;
  sessionId?: unknown;
  timestamp?: unknown;
  compactMetadata?: { postTokens?: unknown; preTokens?: unknown };
  message?: { model?: unknown; usage?: Usage };
}

/** A line as an object; undefined when it is not JSON. A null, a number or an array has none of the fields. */
function parse(line: string): ClaudeLine | undefined {
  try {
    return Object(JSON.parse(line)) as ClaudeLine;
  } catch {
    return undefined;
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : 0);

/** The prompt size of a main-chain call, or undefined when the line is not one. */
function callTokens(l: ClaudeLine): number | undefined {
  if (l.type !== 'assistant' || l.isSidechain === true || l.isApiErrorMessage === true) return undefined;
  const usage = l.message?.usage;
  if (!usage || typeof usage !== 'object') return undefined;
  if (l.message?.model === '<synthetic>') return undefined;
  return num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens);
}

function isCompactBoundary(l: ClaudeLine): boolean {
  return l.type === 'system' && l.subtype === 'compact_boundary' && l.isSidechain !== true;
}

/** When a compact boundary happened and how big the prompt was just before it. */
function compactedOf(l: ClaudeLine): NonNullable<ClaudeState['compacted']> {
  const pre = l.compactMetadata?.preTokens;
  return { at: typeof l.timestamp === 'string' ? l.timestamp : '', ...(typeof pre === 'number' && pre > 0 ? { preTokens: pre } : {}) };
}

/**
 * The window for a model id and a prompt size: 1M for a `[1m]` id or when the usage proves it, else the
 * model's window from `CLAUDE_MODEL_WINDOWS`; 200 000 when the log names no model (what Claude Code used
 * before it recorded one); undefined for a model the table does not know.
 */
export function claudeWindow(model: string | undefined, used: number, proven1m = false): number | undefined {
  if (proven1m || used > CLAUDE_WINDOW || (model !== undefined && /\[1m\]$/i.test(model.trim()))) return CLAUDE_WINDOW_1M;
  if (model === undefined || !model.trim()) return CLAUDE_WINDOW;
  // A `-thinking` variant (as some proxies name it) has its model's window.
  return CLAUDE_MODEL_WINDOWS[normalizeModelId(model).replace(/-thinking$/, '')];
}

/** The reason of a reading whose model's window is not known. */
export function unknownWindowReason(model: string): string {
  return `the context window of model "${model}" is not known to this version; ${CLAUDE_WINDOW_HOW_TO_FIX}`;
}

/** Where Claude Code auto-compacts, in percent of the window. */
export function claudeCompactAtPercent(window: number): number {
  return round1(((window - CLAUDE_COMPACT_MARGIN) / window) * 100);
}

export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/**
 * The Claude Code transcript parser: the last main-chain assistant line with usage (not a sidechain,
 * not an API error, not `<synthetic>`) gives `input + cache_creation + cache_read`; a `compact_boundary`
 * gives its `postTokens` until the next call. Streaming duplicates of one message carry the same prompt
 * size, so taking the last line counts them once.
 */
export function claudeParser(options: ClaudeParserOptions = {}): LineParser<ClaudeState> {
  return {
    initial: () => ({ proven1m: false }),
    decisive(line) {
      // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: a fast path before parsing; the full check follows, so letting more lines through only costs time
      if (!line.includes('compact_boundary') && !(line.includes('"assistant"') && line.includes('"usage"'))) return false;
      const l = parse(line);
      return !!l && (callTokens(l) !== undefined || isCompactBoundary(l));
    },
    skipped(state, line) {
      // A compaction followed by a call in the same read: the call settles the reading, the boundary
      // is still the session's last compaction.
      // Stryker disable next-line ConditionalExpression,StringLiteral: a fast path before parsing; the full check follows, so letting more lines through only costs time
      if (!line.includes('compact_boundary')) return state;
      const l = parse(line);
      return l && isCompactBoundary(l) ? { ...state, compacted: compactedOf(l) } : state;
    },
    apply(state, line) {
      const l = parse(line);
      if (!l) return state;
      const next: ClaudeState = { ...state };
      if (typeof l.sessionId === 'string' && l.isSidechain !== true) next.sessionId = l.sessionId;
      const at = typeof l.timestamp === 'string' ? l.timestamp : '';
      const used = callTokens(l);
      if (used !== undefined) {
        const model = typeof l.message?.model === 'string' ? l.message.model : undefined;
        next.model = model ?? state.model;
        next.proven1m = state.proven1m || used > CLAUDE_WINDOW;
        next.reading = { kind: 'call', used, model: next.model, at };
      } else if (isCompactBoundary(l)) {
        const post = l.compactMetadata?.postTokens;
        next.reading = { kind: 'compact', used: typeof post === 'number' && post >= 0 ? post : undefined, model: state.model, at };
        next.compacted = compactedOf(l);
      }
      return next;
    },
    result(state, file) {
      const sessionId = state.sessionId ?? path.basename(file, '.jsonl');
      const r = state.reading;
      const override = (options.windowOverride ?? 0) > 0 ? options.windowOverride : undefined;
      const c = state.compacted;
      const preWindow = c?.preTokens !== undefined ? (override ?? claudeWindow(state.model, c.preTokens, state.proven1m)) : undefined;
      const compaction = c?.at
        ? { compaction: { at: c.at, ...(c.preTokens !== undefined && preWindow !== undefined ? { percent: round1((c.preTokens / preWindow) * 100) } : {}) } }
        : {};
      if (!r) return { known: false, source: 'claude', sessionId, reason: 'no main-chain assistant call with usage in the transcript yet', file };
      if (r.used === undefined) {
        return { known: false, source: 'claude', sessionId, reason: `compacted at ${r.at || 'an unknown time'} without postTokens; waiting for the next call`, file, ...compaction };
      }
      const window = override ?? claudeWindow(r.model, r.used, state.proven1m);
      if (window === undefined) {
        // The prompt size and model are kept so a statusLine reading of the same session can supply the window.
        return { known: false, source: 'claude', sessionId, reason: unknownWindowReason(r.model ?? ''), file, model: r.model, usedTokens: r.used, at: r.at, ...compaction };
      }
      return {
        known: true,
        source: 'claude',
        sessionId,
        ...(r.model ? { model: r.model } : {}),
        usedTokens: r.used,
        windowTokens: window,
        percent: round1((r.used / window) * 100),
        compactAtPercent: claudeCompactAtPercent(window),
        at: r.at,
        file,
        ...compaction,
      };
    },
  };
}

/** An incremental reader for one Claude Code transcript. */
export function claudeTranscriptReader(
  file: string,
  options: ClaudeParserOptions & TailReaderOptions = {},
): TailReader<ClaudeState> {
  return new TailReader(file, claudeParser(options), options);
}
