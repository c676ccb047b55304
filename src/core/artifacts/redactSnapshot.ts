import { normalizeCommand } from './commands';
import type { IndexedRecord, SecretFinding, WorkbenchSnapshot } from './snapshot';
import { lineAt } from './readJson';
import { detectSecrets, redact, redactArgv, redactDeep } from '../redact';
import { fingerprintOf } from '../redact/scan';

/** At most this many findings are kept per file: the first ones are what the user must act on. */
const MAX_FINDINGS_PER_FILE = 20;

/**
 * Collects, while redacting, where each masked secret was: which file, which line, what kind. The
 * secret itself is never stored; the line is found through the raw text of the file when there is one
 * (JSON artifacts), or given (a JSONL record's line).
 */
class SecretCollector {
  readonly findings: SecretFinding[] = [];
  private readonly seen = new Set<string>();
  private readonly perFile = new Map<string, number>();

  /** Records the hits of `text` (found in `file`) and returns `text` masked. */
  string(text: string, file: string, where: { line?: number; raw?: string }): string {
    const hits = detectSecrets(text);
    // Stryker disable next-line ConditionalExpression: a text without hits comes back from redact unchanged; returning early only saves a second scan
    if (hits.length === 0) return text;
    for (const h of hits) if (!h.personal) this.add(file, where.line ?? locate(where.raw, text.slice(h.start, h.end)), h.rule, h.label, fingerprintOf(text.slice(h.start, h.end)), h.weak);
    return redact(text);
  }

  argv(argv: string[], file: string, where: { line?: number; raw?: string }): string[] {
    const line = argv.join(' ');
    const hits = detectSecrets(line);
    // Stryker disable next-line ConditionalExpression: an argv without hits comes back from redactArgv unchanged; returning early only saves a second scan
    if (hits.length === 0) return argv;
    for (const h of hits) if (!h.personal) this.add(file, where.line ?? locate(where.raw, line.slice(h.start, h.end)), h.rule, h.label, fingerprintOf(line.slice(h.start, h.end)), h.weak);
    return redactArgv(argv);
  }

  /** Every string (and object key) of a JSON value, masked; string arrays (argv-like) read as one line. */
  value<T>(v: T, file: string, where: { line?: number; raw?: string }): T {
    if (typeof v === 'string') return this.string(v, file, where) as T;
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x === 'string')) return this.argv(v as string[], file, where) as T;
      return v.map((x) => this.value(x, file, where)) as T;
    }
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.string(k, file, where)] = this.value(x, file, where);
      return out as T;
    }
    return v;
  }

  add(file: string, line: number | null, rule: string, label: string, fingerprint?: string, weak?: boolean): void {
    const key = `${file}\0${line}\0${label}`;
    if (this.seen.has(key)) return;
    const n = this.perFile.get(file) ?? 0;
    if (n >= MAX_FINDINGS_PER_FILE) return;
    this.seen.add(key);
    this.perFile.set(file, n + 1);
    this.findings.push({ file, line, rule, label, ...(fingerprint ? { fingerprint } : {}), ...(weak ? { weak: true } : {}) });
  }
}

/** The 1-based line of `secret` in the file's raw JSON text (where it appears JSON-escaped), or null. */
function locate(raw: string | undefined, secret: string): number | null {
  if (!raw) return null;
  const at = raw.indexOf(JSON.stringify(secret).slice(1, -1));
  return at === -1 ? null : lineAt(raw, at);
}

/**
 * The snapshot with every string redacted — artifacts, kept records, tracked commands, diagnostics —
 * plus `secrets`: where the masked credentials were. Past the loader, no raw secret is left to leak.
 * `rawText` holds the JSON artifacts' text by file name, to name the line of a secret; `scanned` the
 * credentials the feedback log's scan found in every record (kept or not).
 */
export function redactSnapshot(snapshot: WorkbenchSnapshot, rawText: Record<string, string>, scanned: readonly SecretFinding[] = []): WorkbenchSnapshot {
  const c = new SecretCollector();
  // What the scan of every feedback record found (records not kept included).
  for (const f of scanned) c.add(f.file, f.line, f.rule, f.label, f.fingerprint);
  const json = <T extends { file: string } | null>(v: T, file?: string): T => {
    if (!v) return v;
    const name = file ?? v.file;
    return { ...c.value(v, name, { raw: rawText[name] }), file: v.file };
  };
  const agentState = snapshot.agentState ? c.value(snapshot.agentState, 'agent_state.json', { raw: rawText['agent_state.json'] }) : null;
  const verification = json(snapshot.verification);
  const review = json(snapshot.review);
  const featureList = json(snapshot.featureList);

  let feedback = snapshot.feedback;
  if (feedback) {
    const file = 'feedback_record.jsonl';
    const done = new Map<number, IndexedRecord>();
    const rec = (r: IndexedRecord): IndexedRecord => {
      let out = done.get(r.index);
      // Stryker disable next-line ConditionalExpression: redoing a record gives an equal copy and the same (deduplicated) findings; the cache only saves the work
      if (!out) {
        out = { index: r.index, record: c.value(r.record, file, { line: r.index + 1 }) };
        done.set(r.index, out);
      }
      return out;
    };
    const kept = feedback.kept.map(rec);
    const lastRunOf: Record<string, IndexedRecord> = {};
    for (const [key, r] of Object.entries(feedback.lastRunOf)) lastRunOf[normalizeCommand(redact(key))] = rec(r);
    feedback = { ...feedback, kept, lastRunOf, lastTestRun: feedback.lastTestRun ? rec(feedback.lastTestRun) : null };
  }

  const secrets = c.findings.sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0) || a.label.localeCompare(b.label));
  return {
    ...snapshot,
    agentState,
    verification,
    review,
    featureList,
    feedback,
    diagnostics: redactDeep(snapshot.diagnostics),
    secrets,
  };
}
