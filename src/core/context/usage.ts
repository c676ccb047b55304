import { startedAtIso } from '../artifacts/commands';
import type { Redacted } from '../redact';
import { redactedJson } from '../redact';
import { CLAUDE_COMPACT_MARGIN, round1 } from './claude';
import { CODEX_COMPACT_AT_PERCENT } from './codex';
import type { ContextResult } from './types';

// No schema library here: the statusline reaches this on every message of the agent.

/** The generic file any agent (or `handoff statusline`) writes into the workbench. */
export const GENERIC_USAGE_FILE = 'context_usage.json';

/** One `context_usage.json` record (extra fields are kept when read). */
export interface GenericUsage {
  source: string;
  session_id: string;
  used_tokens: number;
  context_window: number;
  /** ISO time or epoch seconds. */
  updated_at: string | number;
  model?: string | undefined;
  [extra: string]: unknown;
}

/** Where the agent named in `source` auto-compacts, in percent; 100 when it is not known to. */
export function compactAtPercentFor(agent: string, window: number): number {
  const a = agent.toLowerCase();
  if (a.startsWith('claude')) return round1(((window - CLAUDE_COMPACT_MARGIN) / window) * 100);
  if (a.startsWith('codex')) return CODEX_COMPACT_AT_PERCENT;
  return 100;
}

/** The reading a valid usage record gives; an unreadable time is an unknown reading. */
export function usageReading(u: GenericUsage, file: string): ContextResult {
  const at = startedAtIso(u.updated_at);
  if (!at) return { known: false, source: 'generic', reason: `${file}: field "updated_at": not a valid time`, file };
  return {
    known: true,
    source: 'generic',
    agent: u.source,
    sessionId: u.session_id,
    ...(u.model ? { model: u.model } : {}),
    usedTokens: u.used_tokens,
    windowTokens: u.context_window,
    percent: round1((u.used_tokens / u.context_window) * 100),
    compactAtPercent: compactAtPercentFor(u.source, u.context_window),
    at,
    file,
  };
}

/**
 * Builds the content of a `context_usage.json` (stable key order, trailing newline). The session id
 * and model come from the agent: every string is redacted, value by value.
 */
export function formatGenericUsage(u: GenericUsage): Redacted {
  return redactedJson(u, 2, '\n');
}
