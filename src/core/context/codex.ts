import * as path from 'node:path';
import { round1 } from './claude';
import type { LineParser, TailReaderOptions } from './tailReader';
import { TailReader } from './tailReader';
import type { ContextResult } from './types';

/** Codex reserves this many tokens (system prompt, tools) and leaves them out of its footer's percentage. */
export const CODEX_BASELINE_TOKENS = 12_000;
/** Codex CLI auto-compacts at 90 % of its window. */
export const CODEX_COMPACT_AT_PERCENT = 90;

export interface CodexState {
  reading?: { used: number; window: number; at: string };
  sessionId?: string;
  model?: string;
}

interface CodexLine {
  timestamp?: unknown;
  type?: unknown;
  payload?: {
    type?: unknown;
    id?: unknown;
    model?: unknown;
    info?: { last_token_usage?: { total_tokens?: unknown }; model_context_window?: unknown } | null;
  };
}

/** A line as an object; undefined when it is not JSON. A null, a number or an array has none of the fields. */
function parse(line: string): CodexLine | undefined {
  try {
    return Object(JSON.parse(line)) as CodexLine;
  } catch {
    return undefined;
  }
}

/** The reading of a `token_count` event with usable `info`; heartbeats (`info: null`) give none. */
function tokenCount(l: CodexLine): { used: number; window: number } | undefined {
  if (l.type !== 'event_msg' || l.payload?.type !== 'token_count') return undefined;
  const info = l.payload.info;
  const used = info?.last_token_usage?.total_tokens;
  const window = info?.model_context_window;
  if (typeof used !== 'number' || used < 0 || typeof window !== 'number' || window <= 0) return undefined;
  return { used, window };
}

/** Codex's own footer percentage: the 12 000-token baseline is left out of both sides, clamped 0–100. */
export function codexPercent(used: number, window: number): number {
  if (window <= CODEX_BASELINE_TOKENS) return round1(Math.min(100, (used / window) * 100));
  const p = ((used - CODEX_BASELINE_TOKENS) / (window - CODEX_BASELINE_TOKENS)) * 100;
  return round1(Math.max(0, Math.min(100, p)));
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** `…-<thread uuid>` or, for a page Codex started on a revert or a fork, `…-<thread uuid>_<rollout uuid>`. */
const ROLLOUT_IDS = new RegExp(`(${UUID})(?:_(${UUID}))?$`, 'i');

/** A rollout's name without `.jsonl` / `.jsonl.zst`. */
function rolloutBase(file: string): string {
  return path.basename(file).replace(/\.zst$/, '').replace(/\.jsonl$/, '');
}

/**
 * The session (thread) id from a rollout file name (`rollout-<time>-<uuid>.jsonl`, also compressed
 * `.jsonl.zst` and a later page's `…-<uuid>_<rollout uuid>.jsonl`), else the base name.
 */
export function codexSessionIdFromFile(file: string): string {
  const base = rolloutBase(file);
  return ROLLOUT_IDS.exec(base)?.[1] ?? base;
}

/** The id of the rollout file itself: the `_` suffix of a later page, else the thread id (FORMATS.md Late 2026 L2.7). */
export function codexRolloutIdFromFile(file: string): string {
  const base = rolloutBase(file);
  const m = ROLLOUT_IDS.exec(base);
  return m?.[2] ?? m?.[1] ?? base;
}

/**
 * The Codex CLI rollout parser: the last `token_count` event with non-null `info` gives
 * `last_token_usage.total_tokens` (never the session total) against `model_context_window`.
 */
export function codexParser(): LineParser<CodexState> {
  return {
    initial: () => ({}),
    decisive(line) {
      // Stryker disable next-line ConditionalExpression,StringLiteral: a fast path before parsing; the full check follows, so letting more lines through only costs time
      if (!line.includes('"token_count"')) return false;
      const l = parse(line);
      return !!l && tokenCount(l) !== undefined;
    },
    head(state, head) {
      // The session id is the first field of session_meta, a line that may be megabytes long.
      const m = /^\{[^\n]*?"type":\s*"session_meta",\s*"payload":\s*\{\s*"id":\s*"([^"]+)"/.exec(head);
      return m?.[1] ? { ...state, sessionId: m[1] } : state;
    },
    apply(state, line) {
      const l = parse(line);
      if (!l) return state;
      const tc = tokenCount(l);
      if (tc) return { ...state, reading: { ...tc, at: typeof l.timestamp === 'string' ? l.timestamp : '' } };
      if (l.type === 'session_meta' && typeof l.payload?.id === 'string') return { ...state, sessionId: l.payload.id };
      if (l.type === 'turn_context' && typeof l.payload?.model === 'string') return { ...state, model: l.payload.model };
      return state;
    },
    result(state, file): ContextResult {
      const sessionId = state.sessionId ?? codexSessionIdFromFile(file);
      const r = state.reading;
      if (!r) return { known: false, source: 'codex', sessionId, reason: 'no token_count event with usage in the rollout yet', file };
      return {
        known: true,
        source: 'codex',
        sessionId,
        ...(state.model ? { model: state.model } : {}),
        usedTokens: r.used,
        windowTokens: r.window,
        percent: codexPercent(r.used, r.window),
        compactAtPercent: CODEX_COMPACT_AT_PERCENT,
        at: r.at,
        file,
      };
    },
  };
}

/** An incremental reader for one Codex CLI rollout. */
export function codexRolloutReader(file: string, options: TailReaderOptions = {}): TailReader<CodexState> {
  return new TailReader(file, codexParser(), options);
}
