import { agentLabel } from '../../core/context/format';
import type { ContextResult } from '../../core/context/types';

/**
 * How soon an unknown reading is looked at again: quickly at first (a session that is starting, a
 * setting that arrives after activation, a transcript caught half-written), then no faster than the
 * slow fallback. A known reading needs no retry: the transcript watcher follows it.
 */
export const UNKNOWN_RETRY_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000] as const;

/** What to do after one reading. */
export interface ReadingStep {
  /** A line for the log when the reading changed in a way a person would want to know, else null. */
  log: string | null;
  /** Read again after this many ms (unknown reading), or null (known). */
  retryInMs: number | null;
}

/**
 * Follows the meter's readings of one folder: says when a reading was found or lost (once per
 * change, not on every refresh) and how long to wait before looking again while it is unknown.
 * Pure (no vscode), so its rules are unit-tested.
 */
export class ReadingWatch {
  private attempts = 0;
  private logged: string | undefined;

  /** Feeds the reading just taken; `places` says where the meter looked (for an unknown one). */
  next(result: ContextResult, places: readonly string[]): ReadingStep {
    if (result.known) {
      const key = `known:${result.source}:${result.file ?? ''}:${result.sessionId}`;
      const after = this.attempts > 0 ? ` after ${this.attempts} ${this.attempts === 1 ? 'retry' : 'retries'}` : '';
      this.attempts = 0;
      if (key === this.logged) return { log: null, retryInMs: null };
      this.logged = key;
      const where = result.file ? ` (${result.file})` : '';
      return { log: `reading ${Math.round(result.percent)}% from ${agentLabel(result)}, session ${result.sessionId}${where}${after}`, retryInMs: null };
    }
    const retryInMs = UNKNOWN_RETRY_MS[Math.min(this.attempts, UNKNOWN_RETRY_MS.length - 1)] as number;
    this.attempts++;
    const key = `unknown:${result.reason}`;
    if (key === this.logged) return { log: null, retryInMs };
    this.logged = key;
    const looked = places.length ? ` Looked in: ${places.join('; ')}.` : '';
    return { log: `no reading: ${result.reason}.${looked} Looking again in ${retryInMs / 1000} s, then less often.`, retryInMs };
  }

  /** Forgets the retry count (the meter was rebuilt, e.g. after a settings change). */
  reset(): void {
    this.attempts = 0;
  }
}
