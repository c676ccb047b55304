import type { Risk, Severity } from './schema';
import { severityRank } from './schema';

/**
 * Maps the severities agents and reviewers write onto the packet scale `block > high > warn > info`.
 * Anything unrecognised is a warning: unknown risk is still risk.
 */
export function mapSeverity(input: string | null | undefined): Severity {
  if (!input) return 'warn';
  const s = input.trim().toLowerCase();
  if (['block', 'blocker', 'blocking', 'critical', 'fatal', 'error'].includes(s)) return 'block';
  if (['high', 'major', 'severe'].includes(s)) return 'high';
  if (['info', 'low', 'minor', 'note', 'notice'].includes(s)) return 'info';
  return 'warn';
}

/**
 * The one risk order, used by the packet, the renderers and the views: most severe first; risks of
 * equal severity keep the order they were collected in, so a list never jumps between refreshes.
 */
export function orderBySeverity<T>(items: readonly T[], severityOf: (item: T) => Severity): T[] {
  // Array sort is stable, so equal severities keep their order without a tie-break.
  return [...items].sort((a, b) => severityRank(severityOf(a)) - severityRank(severityOf(b)));
}

/** {@link orderBySeverity} for packet risks. */
export function orderRisks(risks: readonly Risk[]): Risk[] {
  return orderBySeverity(risks, (r) => r.severity);
}
