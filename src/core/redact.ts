/**
 * Masks secrets in text before it enters a packet or a prompt. Agent logs routinely carry tokens in
 * commands (`curl -H 'Authorization: Bearer …'`), env dumps and error output; none of it may survive.
 * The mask keeps at most a short, non-secret hint of what kind of secret it was.
 */

const MASK = '[REDACTED]';
// `tokens` (plural) counts things — max_tokens=100 — and is not a credential.
const KEY_WORDS = String.raw`(?:password|passwd|pwd|passphrase|token(?!s)|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)`;

interface Rule {
  re: RegExp;
  replace: string | ((...m: string[]) => string);
}

const RULES: Rule[] = [
  // PEM private key blocks, also when cut off by an output tail.
  {
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?! \[REDACTED)[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replace: `-----BEGIN PRIVATE KEY----- ${MASK}`,
  },
  // JSON pairs: "password": "x", "api_key": "x" (also with escaped quotes inside a JSON string).
  {
    re: new RegExp(String.raw`((\\?")[\w.-]*${KEY_WORDS}[\w.-]*\2\s*:\s*)(\\?")(?!\[REDACTED)(?:\\\\|\\[^"]|[^"\\])*?\3`, 'gi'),
    replace: (_m: string, head: string, _q: string, q2: string) => `${head}${q2}${MASK}${q2}`,
  },
  // CLI flags: --password x, --token=x, -p is too ambiguous to touch.
  {
    re: new RegExp(String.raw`(--?[\w-]*${KEY_WORDS}[\w-]*(?:=|\s+))(?!\[REDACTED)("[^"]*"|'[^']*'|[^\s'"]+)`, 'gi'),
    replace: `$1${MASK}`,
  },
  // key=value / key: value in env dumps, config lines, URLs (aws_secret_access_key=…, token=…).
  {
    re: new RegExp(String.raw`(\b[\w.-]*${KEY_WORDS}[\w.-]*\s*[=:]\s*)(?!\[REDACTED)("[^"]*"|'[^']*'|[^\s&,;'"]+)`, 'gi'),
    replace: `$1${MASK}`,
  },
  // Authorization headers: whatever follows `Authorization:` and its scheme.
  { re: /\b(authorization\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token)\s+)?)(?!\[REDACTED|(?:Bearer|Basic|Token)\s)[^\s"']+/gi, replace: `$1${MASK}` },
  // A bare scheme + credential (`Bearer eyJ…`): case-sensitive, and only a credential-like value
  // (a digit in it, or long), so prose such as "the token refresh bug" is left alone.
  {
    re: /\b(Bearer|Basic|Token)\s+(?!\[REDACTED)(?=[A-Za-z0-9._~+/=-]{20,}|[A-Za-z._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}/g,
    replace: `$1 ${MASK}`,
  },
  // Credentials in URLs: scheme://user:pass@host
  { re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, replace: `$1${MASK}@` },
  // Provider key formats.
  { re: /\bsk-(?:live-|test-|proj-|ant-|svcacct-)?[A-Za-z0-9_-]{8,}/g, replace: `sk-…${MASK}` },
  { re: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{8,}/g, replace: `sk_…${MASK}` },
  { re: /\b(gh[pousr])_[A-Za-z0-9]{16,}/g, replace: `$1_…${MASK}` },
  { re: /\bgithub_pat_[A-Za-z0-9_]{16,}/g, replace: `github_pat_…${MASK}` },
  { re: /\bglpat-[A-Za-z0-9_-]{16,}/g, replace: `glpat-…${MASK}` },
  { re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, replace: `xox…${MASK}` },
  { re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: `AKIA…${MASK}` },
  { re: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: `AIza…${MASK}` },
];

/** Returns `text` with every secret it recognises replaced by `[REDACTED]`. Idempotent. */
export function redact(text: string): string {
  let out = text;
  for (const rule of RULES) {
    out = typeof rule.replace === 'string' ? out.replace(rule.re, rule.replace) : out.replace(rule.re, rule.replace as (...a: string[]) => string);
  }
  return out;
}

/** Redacts every string inside a JSON-like value (objects, arrays), returning a new value. */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v);
    return out as T;
  }
  return value;
}
