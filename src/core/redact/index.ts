/**
 * The one redaction. Agent logs routinely carry tokens in commands (`curl -H 'Authorization: Bearer …'`),
 * env dumps, config prints and error output; none of it may leave. Detection combines secretlint's
 * maintained provider rules (./library) with the rules prose in logs needs (./rules); redaction masks
 * every detected span with `[REDACTED]`, keeping keys and labels so the text still reads.
 *
 * Every string that leaves the core is a {@link Redacted}: the brand can only be had from this module,
 * so an output function typed to take it cannot be handed raw text.
 */
import type * as Library from './library';
import type { RawHit } from './rules';
import { looksLikePlaceholder, ruleHits } from './rules';
import { personalHits } from './freeText';
import { literalShape, shownCut } from './shape';

/** One secret found in a text: which rule, what kind ("a Stripe live key"), and its span. */
export interface SecretHit {
  rule: string;
  label: string;
  start: number;
  end: number;
  /**
   * A possible credential only: a key name with a value whose shape does not say "secret" (a word, a
   * value shown cut). Masked like any other; reported as a warning, never as one to rotate now.
   */
  weak?: boolean;
  /** Personal data printed with a credential (a phone number, an e-mail address): masked, never a finding. */
  personal?: boolean;
}

declare const redactedBrand: unique symbol;
/** Text that has been through {@link redact}: the only kind the output functions accept. */
export type Redacted = string & { readonly [redactedBrand]: true };

export const MASK = '[REDACTED]';

/** Generic rules lose to a provider rule on the same span: the provider names the kind better. */
const GENERIC = new Set(['prose-password', 'base64', 'key-value', 'keyword-entropy', 'auth-scheme', 'authorization-header', 'url-credentials', 'url-token', 'command-line-password']);
/** The rules whose secret spans lines: key blocks. */
const MULTILINE = new Set(['private-key', 'secretlint/privatekey', 'putty-private-key']);

const URL_WIDE = new Set(['secretlint/database-connection-string', 'secretlint/basicauth']);
const LIBRARY_URL_LABEL: Record<string, string> = { 'secretlint/database-connection-string': 'a database password' };

// Anything the upstream rules can report contains one of these: a URL, a PEM header, or a long run of
// token characters in which some part (between `-`, `_` and `.`) mixes letters and digits — every
// provider token has such a random part. Ordinary text skips them: commands, paths, labels, model ids
// (`claude-sonnet-4-5-20250929`: every part is a word or a number) and canonical UUIDs (session ids,
// which no upstream rule reports).
const RUN = /[A-Za-z0-9_+/=.-]{16,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The runs of token characters of `text` (one pass), shared by the checks that need them. */
function tokenRuns(text: string): { start: number; text: string }[] {
  const out: { start: number; text: string }[] = [];
  RUN.lastIndex = 0;
  for (let m = RUN.exec(text); m; m = RUN.exec(text)) out.push({ start: m.index, text: m[0] });
  return out;
}

/** Whether the upstream rules could find anything in `text` (linear: one pass over its runs). */
function libraryMayMatch(text: string, runs: readonly { text: string }[]): boolean {
  if (text.includes('://') || text.includes('-----BEGIN')) return true;
  for (const { text: run } of runs) {
    if (UUID.test(run)) continue;
    if (run.split(/[-_.]/).some((part) => /\d/.test(part) && /[A-Za-z]/.test(part))) return true;
  }
  return false;
}

// The upstream preset is loaded on the first text that needs it: most texts never do, and the
// statusline (which runs after every message) keeps it out of its bundle and its start-up.
let library: typeof Library | undefined;
function libraryHits(text: string): RawHit[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  library ??= require('./library') as typeof Library;
  return library.libraryHits(text);
}

/**
 * Every secret in `text`, in order, overlapping detections merged into one span (the more specific
 * rule names it). Spans cover the secret only, never its key (`password=` stays readable).
 */
export function detectSecrets(text: string): SecretHit[] {
  if (text.length < 6) return [];
  const runs = tokenRuns(text);
  const raw: RawHit[] = rawHits(text, runs);
  raw.push(...wrappedHits(text), ...base64Hits(text, runs));
  raw.push(...personalHits(text, raw));
  // Stryker disable next-line ArithmeticOperator: the longer of two detections starting together comes first; it only picks which of two equally specific rules names the merged span
  raw.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretHit[] = [];
  for (const h of raw) {
    const last = out[out.length - 1];
    if (last && h.start < last.end) {
      if (GENERIC.has(last.rule) && !GENERIC.has(h.rule)) {
        last.rule = h.rule;
        last.label = h.label;
      }
      last.end = Math.max(last.end, h.end);
      // One rule sure of the value makes the merged span a credential.
      if (!h.weak) delete last.weak;
      if (!h.personal) delete last.personal;
      continue;
    }
    out.push({ rule: h.rule, label: h.label, start: h.start, end: h.end, ...(h.weak ? { weak: true } : {}), ...(h.personal ? { personal: true } : {}) });
  }
  return out;
}

/** The hits of both rule sets, each within its line (a private key block excepted), placeholders left out. */
function rawHits(text: string, runs: readonly { text: string }[] = tokenRuns(text)): RawHit[] {
  const raw: RawHit[] = ruleHits(text);
  if (libraryMayMatch(text, runs)) {
    for (const h of libraryHits(text)) {
      if (looksLikePlaceholder(text.slice(h.start, h.end))) continue;
      // A connection string whose password is a stand-in (`postgres://u:[PASSWORD]@host`) holds none.
      const pw = URL_WIDE.has(h.rule) ? /^[a-z][\w+.-]*:\/\/[^\s:/@]*:([^\s@]*)@/i.exec(text.slice(h.start, h.end))?.[1] : undefined;
      if (pw !== undefined && literalShape(pw) === 'none') continue;
      if (shownCut(text, h.start, h.end)) h.weak = true;
      // A whole connection string reported upstream is narrowed to its password when the URL rule
      // found it, so the host and database stay readable; the upstream label is kept.
      // Stryker disable next-line EqualityOperator: a password in a URL never starts or ends the connection string (the scheme is before it, the host after)
      const inner = URL_WIDE.has(h.rule) ? raw.find((r) => r.rule === 'url-credentials' && r.start >= h.start && r.end <= h.end) : undefined;
      if (inner) inner.label = LIBRARY_URL_LABEL[h.rule] ?? inner.label;
      // …and once masked, the connection string is not reported again (redaction stays idempotent).
      else if (!(URL_WIDE.has(h.rule) && text.slice(h.start, h.end).includes(MASK))) raw.push(h);
    }
  }
  // A mask never runs past the end of a line: only a private key block spans lines.
  for (const h of raw) {
    if (MULTILINE.has(h.rule)) continue;
    const nl = text.indexOf('\n', h.start);
    if (nl !== -1 && nl < h.end) h.end = nl > h.start && text[nl - 1] === '\r' ? nl - 1 : nl;
  }
  return raw.filter((h) => h.end > h.start);
}

// A terminal wraps a long value at its width: the line break then falls inside a token-like run.
const WRAP_LEFT = /[A-Za-z0-9_+=-]{8,}$/;
const WRAP_RIGHT = /^[A-Za-z0-9_+-]{4,}={0,2}(?=$|[\s"'`,;)\]}])/;
const WRAP_MIN_LINE = 40;

/**
 * A credential the terminal wrapped across two lines: where a long line ends inside a token-like run
 * and the next line goes on with one (no `=` or `:` of its own: not the next setting), the two runs are
 * read joined, and a credential across the break is masked in both pieces.
 */
function wrappedHits(text: string): RawHit[] {
  const out: RawHit[] = [];
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    const lineStart = text.lastIndexOf('\n', nl - 1) + 1;
    const leftEnd = text[nl - 1] === '\r' ? nl - 1 : nl;
    if (leftEnd - lineStart < WRAP_MIN_LINE) continue;
    const left = WRAP_LEFT.exec(text.slice(Math.max(lineStart, leftEnd - 200), leftEnd))?.[0];
    if (!left || !(/\d/.test(left) || left.includes('=')) || !/[A-Za-z]/.test(left)) continue;
    const right = WRAP_RIGHT.exec(text.slice(nl + 1, nl + 201))?.[0];
    if (!right || !(/\d/.test(right) && /[A-Za-z]/.test(right))) continue;
    const joined = left + right;
    const leftStart = leftEnd - left.length;
    for (const h of rawHits(joined)) {
      if (h.start >= left.length || h.end <= left.length) continue;
      out.push({ rule: h.rule, label: h.label, start: leftStart + h.start, end: leftEnd });
      out.push({ rule: h.rule, label: h.label, start: nl + 1, end: nl + 1 + (h.end - left.length) });
    }
  }
  return out;
}

// Base64 output (`base64 .env`, wrapped at 76 columns by default): runs of its alphabet, one per line.
const B64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=_-])/g;
/** Decoded text must be this printable to be read as text. */
const PRINTABLE = /^[\x20-\x7e\t\r\n]*$/;

/**
 * Base64 runs that decode to text holding a credential: every run of the encoded block is masked
 * whole (and flagged). Consecutive runs on consecutive lines are one block, decoded together.
 */
function base64Hits(text: string, tokens: readonly { start: number; text: string }[]): RawHit[] {
  const runs: { start: number; end: number }[] = [];
  // Base64 runs lie inside the token runs (whose alphabet is wider): only those are searched.
  for (const t of tokens) {
    if (t.text.length < 20) continue;
    B64_RUN.lastIndex = 0;
    for (let m = B64_RUN.exec(t.text); m; m = B64_RUN.exec(t.text)) runs.push({ start: t.start + m.index, end: t.start + m.index + m[0].length });
  }
  if (!runs.length) return [];
  const out: RawHit[] = [];
  for (let i = 0; i < runs.length; ) {
    let j = i;
    // The next run continues the block when only a line break separates them and this one is whole quads.
    while (j + 1 < runs.length && /^(?:\r?\n|\\n)$/.test(text.slice(runs[j]!.end, runs[j + 1]!.start)) && (runs[j]!.end - runs[j]!.start) % 4 === 0) j++;
    const block = runs.slice(i, j + 1);
    i = j + 1;
    // The block's last line may be short (the rest of the data): too short to be a run of its own. A
    // word that only looks like one (`error` of the next line's `error: …`) is tried both ways.
    const candidates = [block];
    const last = block[block.length - 1]!;
    if ((last.end - last.start) % 4 === 0) {
      const rest = /^(\r?\n|\\n)([A-Za-z0-9+/]{2,19}={0,2})(?![A-Za-z0-9+/=_-])/.exec(text.slice(last.end, last.end + 32));
      if (rest) candidates.unshift([...block, { start: last.end + rest[1]!.length, end: last.end + rest[0].length }]);
    }
    const hit = candidates.map((b) => ({ b, label: base64Credential(b.map((r) => text.slice(r.start, r.end)).join('')) })).find((x) => x.label);
    if (!hit) continue;
    for (const r of hit.b) out.push({ rule: 'base64', label: `${hit.label!} (base64-encoded)`, start: r.start, end: r.end });
  }
  return out;
}

/** The kind of the first credential in what a base64 text decodes to, if it decodes to text holding one. */
function base64Credential(encoded: string): string | undefined {
  if (encoded.length < 24 || !/[A-Z]/.test(encoded) || !/[a-z]/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded.slice(0, 64 * 1024), 'base64').toString('latin1');
  if (decoded.length < 12 || !PRINTABLE.test(decoded)) return undefined;
  return rawHits(decoded)[0]?.label;
}

// The same strings are redacted again and again (a packet is serialized several times per run, the
// views redraw the same labels): remember recent short results. Bounded in count and size.
const CACHE_MAX_ENTRIES = 4096;
const CACHE_MAX_CHARS = 2048;
const cache = new Map<string, Redacted>();

/** Returns `text` with every secret it recognises replaced by `[REDACTED]`. Idempotent. */
export function redact(text: string): Redacted {
  const known = cache.get(text);
  // Stryker disable next-line ConditionalExpression: without the cache the text is masked again, to the same result
  if (known !== undefined) return known;
  const out = mask(text);
  // Stryker disable all: which results the cache keeps, and how many, changes its speed and memory, never a result
  if (text.length <= CACHE_MAX_CHARS) {
    if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(text, out);
  }
  // Stryker restore all
  return out;
}

function mask(text: string): Redacted {
  let out = '';
  let at = 0;
  for (const h of detectSecrets(text)) {
    out += text.slice(at, h.start) + MASK;
    at = h.end;
  }
  return (out + text.slice(at)) as Redacted;
}

/**
 * Redacts every string inside a JSON-like value (object keys too), returning a new value. An array of
 * strings (an argv) is also read as one command line, so `["--password", "x"]` is caught as well.
 */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return redactArgv(value as string[]) as T;
    return value.map((v) => redactDeep(v)) as T;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k)] = redactDeep(v);
    return out as T;
  }
  return value;
}

/**
 * Redacts an argv element by element, detecting on the whole command line: a secret that a flag in
 * the previous element announces (`--password`, `hunter2`) is masked in its own element.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const line = argv.join(' ');
  const hits = detectSecrets(line);
  const out: string[] = [];
  let offset = 0;
  for (const arg of argv) {
    const start = offset;
    const end = offset + arg.length;
    offset = end + 1;
    let text = '';
    let at = start;
    for (const h of hits) {
      if (h.end <= start || h.start >= end) continue;
      const s = Math.max(h.start, start);
      text += line.slice(at, s) + MASK;
      at = Math.min(h.end, end);
    }
    out.push(text + line.slice(at, end));
  }
  return out;
}

/**
 * A value as JSON text, every string in it redacted first: the form `--json` output and JSON files
 * take. Redacting value by value (not the text) keeps the JSON valid.
 */
export function redactedJson(value: unknown, indent?: number | string, suffix = ''): Redacted {
  return `${JSON.stringify(redactDeep(value), null, indent)}${redact(suffix)}` as Redacted;
}

/**
 * A whole document for output: a JSON document is redacted value by value and printed again in the
 * same layout (so it stays valid JSON, and an already-redacted one comes back byte for byte); any
 * other text is redacted as a whole. The layout is compact, or indented as its second line is.
 */
export function redactDocument(text: string): Redacted {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(text);
      const indent = /^[[{]\n([ \t]+)/.exec(t)?.[1];
      const tail = /\n$/.test(text) ? '\n' : '';
      return redactedJson(value, indent, tail);
    } catch {
      // not one JSON document: plain text
    }
  }
  return redact(text);
}

/** Joins redacted parts: the result is redacted again as a whole (a secret may straddle two parts). */
export function joinRedacted(parts: readonly string[], sep = ''): Redacted {
  return redact(parts.join(sep));
}
