import type { Severity } from './schema';

/**
 * Maps the severities agents and reviewers write onto the packet scale `block > high > warn > info`.
 * Anything unrecognised is a warning: unknown risk is still risk.
 */
export function mapSeverity(input: string | null | undefined): Severity {
  const s = (input ?? '').trim().toLowerCase();
  if (['block', 'blocker', 'blocking', 'critical', 'fatal', 'error'].includes(s)) return 'block';
  if (['high', 'major', 'severe'].includes(s)) return 'high';
  if (['info', 'low', 'minor', 'note', 'notice'].includes(s)) return 'info';
  return 'warn';
}
