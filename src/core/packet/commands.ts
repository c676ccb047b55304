import { isReadOnlyCommand, programFiles } from '../artifacts/readOnly';
import { displayCommand, notAFailure, outcomeOf, startedAtIso } from '../artifacts/commands';
import type { IndexedRecord } from '../artifacts/snapshot';
import type { Source } from '../source';
import { EXCERPT_MAX, salientExcerpt, tailExcerpt } from './excerpt';
import { manifestsWritten } from './manifests';
import type { ChangedFile, CommandRun, FailedAttempt } from './schema';

/** Exit codes of a process stopped by a signal (SIGINT, SIGKILL, SIGTERM): it may have partly applied. */
const KILLED_EXITS = new Set([130, 137, 143]);
const MAY_HAVE_CHANGED_MAX = 8;

/** Where a record came from: its own source (a session line), else its line in feedback_record.jsonl. */
export function recordSource(r: IndexedRecord): Source {
  return r.source ?? { file: 'feedback_record.jsonl', line: r.index + 1 };
}

/** The trimmed feedback records as packet entries, in original order. */
export function commandsRun(kept: IndexedRecord[]): CommandRun[] {
  return kept.map((r) => {
    const { index, record } = r;
    const harmless = notAFailure(record);
    return {
      index,
      command: displayCommand(record.command),
      exit_code: typeof record.exit_code === 'number' ? record.exit_code : null,
      outcome: harmless ? 'ok' : outcomeOf(record),
      started_at: startedAtIso(record.started_at),
      duration_ms: typeof record.duration_ms === 'number' ? record.duration_ms : null,
      note: record.agent_note?.trim() ? record.agent_note.trim() : null,
      source: recordSource(r),
      ...(harmless ? { not_a_failure: harmless } : {}),
    };
  });
}

const text = (s: string | null | undefined): string => (s ?? '').trim();

/** A failed command's excerpt: the lines of its output that carry the cause (error, stderr, stdout). */
function failureExcerpt(record: IndexedRecord['record']): string {
  // As written: the excerpt reads line by line and drops blank ones (a missing stream joins as one),
  // and a stream's indentation is what tells a stack frame's source line.
  const all = [record.error, record.stderr_tail, record.stdout_tail].join('\n');
  return salientExcerpt(all) || `exit ${record.exit_code} with no output recorded`;
}

/**
 * A timed-out, killed or unfinished command's excerpt: the reason on the first line, then the tail of
 * the partial output it left — the evidence of how far it got (what it wrote, the prompt it hung on).
 */
function uncertainExcerpt(record: IndexedRecord['record'], outcome: FailedAttempt['outcome']): string {
  // A timeout is recognised by its error text, so it always has a reason of its own here.
  const reason = text(record.error).split('\n')[0] || (outcome === 'failed' ? `stopped by a signal (exit ${record.exit_code})` : 'did not complete');
  const streams = [record.stdout_tail, record.stderr_tail].map(text).filter(Boolean);
  const budget = Math.floor((EXCERPT_MAX - reason.length - 20) / streams.length);
  const tail = streams.map((s) => tailExcerpt(s, budget)).filter(Boolean).join('\n');
  return tail ? `${reason}\npartial output:\n${tail}` : `${reason}; no partial output recorded`;
}

/**
 * Every kept record that did not succeed. Timeouts, spawn errors and killed commands are `uncertain`:
 * the command may have partly applied, so the next session must check before doing anything else.
 */
export function failedAttempts(kept: IndexedRecord[], resolvedBy: Record<number, number> = {}): FailedAttempt[] {
  const out: FailedAttempt[] = [];
  for (const r of kept) {
    const { index, record } = r;
    const outcome = outcomeOf(record);
    // A search that found nothing or a probe is kept among the commands, never among the failures.
    if (outcome === 'ok' || notAFailure(record)) continue;
    const by = resolvedBy[index];
    const exit = typeof record.exit_code === 'number' ? record.exit_code : null;
    const uncertain = outcome !== 'failed' || (exit !== null && KILLED_EXITS.has(exit));
    out.push({
      index,
      command: displayCommand(record.command),
      outcome,
      exit_code: exit,
      note: record.agent_note?.trim() ? record.agent_note.trim() : null,
      excerpt: uncertain ? uncertainExcerpt(record, outcome) : failureExcerpt(record),
      uncertain,
      source: recordSource(r),
      ...(by !== undefined ? { resolved_by: by } : {}),
    });
  }
  return out;
}

const base = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** True when `said` names the file by its name, or by its stem when that is distinctive (4+ chars). */
function namesFile(said: string, p: string): boolean {
  const name = base(p);
  const stem = name.replace(/\.[^.]+$/, '');
  // A line break is whitespace, so the bounds hold at every line of `said` without the multiline flag.
  const word = (w: string): RegExp => new RegExp(`(^|[\\s/'"=:])${escapeRe(w)}($|[\\s'".,:;)])`);
  return word(name).test(said) || (stem.length >= 4 && word(stem).test(said));
}

/**
 * For each uncertain attempt, the changed files it plausibly touched: those its command or partial
 * output names (by path or file name); for a package-manager install, the manifest and lock files it
 * writes that exist (among the changed and the `knownFiles` of the repository); then the files edited
 * after it and before the next command (`editedAfter`, when the session says) — never every file the
 * session edited. Deterministic.
 */
export function withMayHaveChanged(failed: FailedAttempt[], changed: readonly ChangedFile[], editedAfter: Record<number, string[]> = {}, knownFiles: readonly string[] = []): FailedAttempt[] {
  const candidates = changed.map((c) => c.path);
  const existing = new Set([...candidates, ...knownFiles]);
  return failed.map((f) => {
    if (!f.uncertain) return f;
    // A read-only command changed nothing; the script a command runs is what it ran, not what it wrote.
    if (isReadOnlyCommand(f.command)) return { ...f, may_have_changed: [] };
    const ran = programFiles(f.command).map(base);
    const said = `${f.command}\n${f.excerpt}`;
    const named = candidates.filter((p) => (said.includes(p) || namesFile(said, p)) && !ran.includes(base(p)));
    const manifests = manifestsWritten(f.command, existing).filter((p) => !named.includes(p));
    const first = [...named, ...manifests];
    const after = (editedAfter[f.index] ?? []).filter((p) => !first.includes(p));
    return { ...f, may_have_changed: [...first, ...after].slice(0, MAY_HAVE_CHANGED_MAX) };
  });
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
