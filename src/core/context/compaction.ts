import type { ContextResult } from './types';

/** A packet written this long before a compaction (or any time after it) counts as "a handoff for it". */
export const COMPACTION_GRACE_MS = 10 * 60_000;

export interface UncoveredCompaction {
  at: string;
  /** 0–100 just before compacting, when the agent's log says. */
  percent?: number;
  /** `compacted at 84 % without a handoff`. */
  text: string;
}

/**
 * The session's last auto-compaction when no packet was written from a few minutes before it on —
 * the moment most work is lost. Null when there was none, or a handoff covers it.
 */
export function uncoveredCompaction(reading: ContextResult, packetWrites: readonly number[]): UncoveredCompaction | null {
  const c = reading.compaction;
  if (!c) return null;
  const at = Date.parse(c.at);
  if (!Number.isFinite(at)) return null;
  if (packetWrites.some((w) => w >= at - COMPACTION_GRACE_MS)) return null;
  const pct = c.percent === undefined ? '' : ` at ${Math.round(c.percent)} %`;
  return { at: c.at, ...(c.percent === undefined ? {} : { percent: c.percent }), text: `compacted${pct} without a handoff` };
}
