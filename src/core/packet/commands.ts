import { displayCommand, outcomeOf, startedAtIso } from '../artifacts/commands';
import type { IndexedRecord } from '../artifacts/snapshot';
import type { CommandRun, FailedAttempt } from './schema';
import { redact } from '../redact';

const EXCERPT_CHARS = 300;

/** The trimmed feedback records as packet entries, in original order. */
export function commandsRun(kept: IndexedRecord[]): CommandRun[] {
  return kept.map(({ index, record }) => ({
    index,
    command: displayCommand(record.command),
    exit_code: typeof record.exit_code === 'number' ? record.exit_code : null,
    outcome: outcomeOf(record),
    started_at: startedAtIso(record.started_at),
    duration_ms: typeof record.duration_ms === 'number' ? record.duration_ms : null,
    note: record.agent_note?.trim() ? record.agent_note.trim() : null,
  }));
}

/** The tail of the output that shows why it failed: the error, else stderr, else stdout. */
function excerptOf(record: IndexedRecord['record'], outcome: FailedAttempt['outcome']): string {
  const parts = [record.error, record.stderr_tail, record.stdout_tail].map((s) => (s ?? '').trim()).filter(Boolean);
  // Redacted whole before the cut: a key's label must not fall off while its value stays.
  const text = redact(parts[0] ?? '');
  if (!text) {
    if (outcome === 'failed') return `exit ${record.exit_code} with no output recorded`;
    return outcome === 'timeout' ? 'timed out with no output recorded' : 'did not complete; no output recorded';
  }
  return text.length > EXCERPT_CHARS ? `…${text.slice(-EXCERPT_CHARS)}` : text;
}

/**
 * Every kept record that did not succeed. Timeouts and spawn errors are `uncertain`: the command may
 * have partly applied, so the next session must check before re-running it.
 */
export function failedAttempts(kept: IndexedRecord[]): FailedAttempt[] {
  const out: FailedAttempt[] = [];
  for (const { index, record } of kept) {
    const outcome = outcomeOf(record);
    if (outcome === 'ok') continue;
    out.push({
      index,
      command: displayCommand(record.command),
      outcome,
      exit_code: typeof record.exit_code === 'number' ? record.exit_code : null,
      note: record.agent_note?.trim() ? record.agent_note.trim() : null,
      excerpt: excerptOf(record, outcome),
      uncertain: outcome !== 'failed',
    });
  }
  return out;
}
