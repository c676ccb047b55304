/**
 * The rules the upstream preset does not have: provider formats it lacks, and the shapes that prose in
 * logs, commands and config dumps needs (key = value in its many spellings, credentials in URLs, PEM
 * blocks also when cut off, JWTs, `Authorization` headers, a high-entropy value right after a keyword).
 * Every rule names the keywords that must occur (lower case) before its regex runs — the same
 * pre-filter gitleaks uses — so ordinary text costs a few `indexOf`s.
 */

/** One detected secret: `start`/`end` delimit the secret itself, never its key or label. */
export interface RawHit {
  rule: string;
  label: string;
  start: number;
  end: number;
  /** A possible credential only (a key name with a value of unknown shape): masked, never "rotate now". */
  weak?: boolean;
  /** Personal data (a phone number, an e-mail address) printed with a credential: masked, never flagged. */
  personal?: boolean;
}

interface PatternRule {
  id: string;
  label: string | ((match: string) => string);
  /** Must match the lower-cased text before the regex runs (a pre-filter: it only spares the run). */
  keywords: RegExp;
  /** Global, with the `d` flag when `group` is set. */
  re: RegExp;
  /** The capture group holding the secret; the whole match otherwise. */
  group?: number;
  /** Extra check on the secret text (entropy, digits). */
  valid?: (secret: string) => boolean;
}

import { freeTextHits } from './freeText';
import { literalShape, shannon, shownCut, valueShape } from './shape';
import type { ValueShape } from './shape';

/** A hit, marked weak when its value's shape says only "maybe". */
const hit = (rule: string, label: string, start: number, end: number, shape: ValueShape = 'secret'): RawHit =>
  shape === 'weak' ? { rule, label, start, end, weak: true } : { rule, label, start, end };

const hasDigit = (s: string): boolean => /\d/.test(s);
const hasLetter = (s: string): boolean => /[A-Za-z]/.test(s);

/** The span of capture group `group` (each group read here takes part in every match). */
const groupSpan = (m: RegExpExecArray, group: number): [number, number] => m.indices![group]!;

/** Shannon entropy in bits per character (the value-shape detector's own measure). */
export const entropy = shannon;

/** Provider formats: the whole token is the secret. */
const PROVIDERS: PatternRule[] = [
  {
    id: 'stripe',
    label: (m) => (/_live_/.test(m) ? 'a Stripe live key' : 'a Stripe test key'),
    keywords: /_live_|_test_/,
    re: /(?<![A-Za-z0-9])[spr]k_(?:live|test)_[A-Za-z0-9]{10,}(?![A-Za-z0-9])/g,
  },
  { id: 'stripe-webhook', label: 'a Stripe webhook secret', keywords: /whsec_/, re: /(?<![A-Za-z0-9])whsec_[A-Za-z0-9]{24,}(?![A-Za-z0-9])/g },
  {
    id: 'openai',
    label: (m) => (m.startsWith('sk-ant-') ? 'an Anthropic API key' : m.startsWith('sk-or-') ? 'an OpenRouter API key' : 'an OpenAI API key'),
    keywords: /sk-/,
    // Project, service-account, admin, Anthropic (`sk-ant-api03-`) and OpenRouter (`sk-or-v1-`) keys are all
    // `sk-` and a run of these characters; a short run needs a digit (`sk-learn-models` is a word).
    re: /(?<![A-Za-z0-9-])sk-(?:(?=[\w-]{0,80}\d)[A-Za-z0-9_-]{8,}|[A-Za-z0-9_-]{20,})/g,
  },
  { id: 'github', label: 'a GitHub token', keywords: /ghp_|gho_|ghu_|ghs_|ghr_/, re: /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}(?![A-Za-z0-9])/g },
  { id: 'github-pat', label: 'a GitHub token', keywords: /github_pat_/, re: /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{22,}/g },
  { id: 'gitlab', label: 'a GitLab token', keywords: /glpat-|glptt-|gldt-/, re: /(?<![A-Za-z0-9])gl(?:pat|ptt|dt)-[A-Za-z0-9_-]{20,}/g },
  { id: 'slack-token', label: 'a Slack token', keywords: /xox|xapp-/, re: /(?<![A-Za-z0-9])(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/g },
  {
    id: 'slack-webhook',
    label: 'a Slack webhook URL',
    keywords: /hooks\.slack\.com/,
    re: /hooks\.slack\.com\/((?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,})/dg,
    group: 1,
  },
  {
    id: 'discord-webhook',
    label: 'a Discord webhook URL',
    keywords: /discord/,
    re: /discord(?:app)?\.com\/api\/webhooks\/(\d{5,}\/[A-Za-z0-9_-]{30,})/dg,
    group: 1,
  },
  {
    id: 'discord-bot',
    label: 'a Discord bot token',
    keywords: /\./,
    re: /(?<![A-Za-z0-9-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9-])/g,
    valid: (s) => hasDigit(s) && entropy(s) > 4,
  },
  { id: 'telegram-bot', label: 'a Telegram bot token', keywords: /:aa/, re: /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{32,34}(?![A-Za-z0-9-])/g },
  {
    id: 'aws-access-key',
    label: 'an AWS access key id',
    keywords: /akia|asia|abia|acca|a3t/,
    re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  },
  { id: 'google-api-key', label: 'a Google API key', keywords: /aiza/, re: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9-])/g },
  { id: 'huggingface', label: 'a Hugging Face token', keywords: /hf_|api_org_/, re: /(?<![A-Za-z0-9])(?:hf_|api_org_)[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g },
  { id: 'npm', label: 'an npm access token', keywords: /npm_/, re: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  { id: 'pypi', label: 'a PyPI upload token', keywords: /pypi-/, re: /(?<![A-Za-z0-9])pypi-AgE[A-Za-z0-9_-]{40,}/g },
  {
    id: 'sendgrid',
    label: 'a SendGrid API key',
    keywords: /sg\./,
    re: /(?<![A-Za-z0-9])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}/g,
  },
  {
    id: 'twilio',
    label: 'a Twilio API key',
    keywords: /sk/,
    re: /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g,
    // Digits and hex letters both (`SK` itself is no hex letter).
    valid: (s) => hasDigit(s) && /[a-fA-F]/.test(s),
  },
  {
    id: 'jwt',
    label: 'a JSON Web Token',
    keywords: /eyj/,
    // The signature may be missing: a JWT cut after its payload (an excerpt's cap) is still its start.
    re: /(?<![A-Za-z0-9])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/g,
  },
  {
    id: 'azure-storage-key',
    label: 'an Azure storage account key',
    keywords: /accountkey=|sharedaccesskey=|sharedaccesssignature/,
    re: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{30,}={0,2})/dgi,
    group: 1,
  },
  { id: 'azure-sas', label: 'an Azure SAS signature', keywords: /sig=/, re: /[?&;]sig=([A-Za-z0-9%+/_-]{30,}={0,2}(?:%3D){0,2})/dg, group: 1 },
  { id: 'digitalocean', label: 'a DigitalOcean token', keywords: /do/, re: /(?<![A-Za-z0-9])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/g },
  { id: 'shopify', label: 'a Shopify access token', keywords: /shp/, re: /(?<![A-Za-z0-9])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9])/g },
  { id: 'mailgun', label: 'a Mailgun API key', keywords: /key-/, re: /(?<![A-Za-z0-9])key-[0-9a-f]{32}(?![A-Za-z0-9])/g },
  { id: 'mailchimp', label: 'a Mailchimp API key', keywords: /-us/, re: /(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])/g },
  { id: 'square', label: 'a Square access token', keywords: /sq0/, re: /(?<![A-Za-z0-9])sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,60}/g },
  { id: 'newrelic', label: 'a New Relic key', keywords: /nrak-|nrjs-|nrii-/, re: /(?<![A-Za-z0-9])NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}(?![A-Za-z0-9])/g },
  { id: 'postman', label: 'a Postman API key', keywords: /pmak-/, re: /(?<![A-Za-z0-9])PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])/g },
  { id: 'databricks', label: 'a Databricks token', keywords: /dapi/, re: /(?<![A-Za-z0-9])dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])/g },
  { id: 'vault', label: 'a HashiCorp Vault token', keywords: /hvs\.|hvb\.|s\./, re: /(?<![A-Za-z0-9])(?:hv[sb]\.[A-Za-z0-9_-]{24,}|s\.[A-Za-z0-9]{24}\b)/g, valid: hasDigit },
  { id: 'linear', label: 'a Linear API key', keywords: /lin_api_/, re: /(?<![A-Za-z0-9])lin_api_[A-Za-z0-9]{40}(?![A-Za-z0-9])/g },
  { id: 'doppler', label: 'a Doppler token', keywords: /dp\./, re: /(?<![A-Za-z0-9])dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}(?![A-Za-z0-9])/g },
  { id: 'age', label: 'an age secret key', keywords: /age-secret-key-/, re: /(?<![A-Za-z0-9])AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Za-z0-9])/g },
  { id: 'grafana', label: 'a Grafana token', keywords: /glsa_|glc_/, re: /(?<![A-Za-z0-9])(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})/g },
  { id: 'sentry', label: 'a Sentry token', keywords: /sntrys_|sntryu_/, re: /(?<![A-Za-z0-9])sntry[su]_[A-Za-z0-9+/=_]{40,}/g },
  { id: 'gcp-oauth', label: 'a Google OAuth client secret', keywords: /gocspx-/, re: /(?<![A-Za-z0-9])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9])/g },
  {
    id: 'firebase',
    label: 'a Firebase Cloud Messaging server key',
    keywords: /aaaa/,
    re: /(?<![A-Za-z0-9_-])AAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{100,}(?![A-Za-z0-9_-])/g,
    valid: hasDigit,
  },
  {
    id: 'teams-webhook',
    label: 'a Microsoft Teams webhook URL',
    keywords: /webhook\.office|outlook\.office/,
    re: /(?:webhook\.office\.com|outlook\.office(?:365)?\.com)\/webhook(?:b2)?\/([A-Za-z0-9@/._-]{40,})/dg,
    group: 1,
  },
  { id: 'atlassian', label: 'an Atlassian API token', keywords: /atatt/, re: /(?<![A-Za-z0-9])ATATT3[A-Za-z0-9_=-]{180,}/g },
];

const MASK = '[REDACTED]';

/** Text that is already a mask or a placeholder is not a secret (keeps redaction idempotent). */
function isPlaceholder(v: string): boolean {
  const s = v.replace(/^["'`]|["'`]$/g, '');
  return (
    s === MASK ||
    s === '' ||
    /^(?:\*+|x{3,}|X{3,}|\.{3}|…|<[^>]*>|\$\{?[A-Za-z_][\w.]*\}?|%\(?\w+\)?s?|\{\{.*\}\}|null|none|nil|true|false|undefined|new|expected|actual|self|this|await|yes|no|on|off|required|optional|string|str|int|bool|redacted|hidden|secret|password|changeme|return|raise|continue|break|print|yield|import|from|def|class|lambda|assert|with|for|while|try|except|finally|elif|else|if|not|and|or|in|is|pass)$/i.test(s) ||
    looksLikePlaceholder(s)
  );
}

/** An ellipsis at either end of a value: where a cap cut it. */
const CUT_ENDS = /^(?:…|\.{3})|(?:…|\.{3})$/g;

/**
 * A value an excerpt's cap cut: an ellipsis at its end (or start) after at least six characters of its
 * own beyond a provider prefix (`sk-…` and `ghp_...` stay the stand-ins of docs), and none inside.
 */
function isCutValue(v: string): boolean {
  const core = v.replace(CUT_ENDS, '');
  if (core === v || core.includes('…') || core.includes('...')) return false;
  return core.replace(/^(?:[A-Za-z]{1,10}[-_])+/, '').length >= 6;
}

/**
 * The obvious stand-ins of docs and examples, wherever they sit in a value: `your-key-here`, a run of
 * `x`, an ellipsis (`sk-...`), a mask, or one character repeated (a
 * random credential never is any of these). Neither masked nor flagged. (A whole value of `<token>`,
 * `${VAR}` or `{{var}}` is a placeholder too: see {@link isPlaceholder}.)
 */
export function looksLikePlaceholder(v: string): boolean {
  if (v.includes(MASK)) return true;
  // A value cut by a length cap (`hunter2hun…`, `…3f9a2c`) is what is left of a secret, not a stand-in.
  if (isCutValue(v)) return looksLikePlaceholder(v.replace(CUT_ENDS, ''));
  if (/your[-_ ]?(?:own[-_ ]?)?(?:[a-z]+[-_ ])?(?:key|token|secret|password|pass|pat|api)|[-_](?:goes[-_])?here$|\.{3}|…|x{4,}|X{4,}|placeholder|changeme|replace[-_]?me/i.test(v)) return true;
  if (v.length < 8) return false;
  // One character for three quarters of the value (`sk_live_0000…`, `aaaaaaaa`).
  const counts = new Map<string, number>();
  let most = 0;
  for (const ch of v) {
    const n = (counts.get(ch) ?? 0) + 1;
    counts.set(ch, n);
    if (n > most) most = n;
  }
  return most * 4 >= v.length * 3;
}

// A credential key: the keyword at the end of the name (optionally with a short suffix such as `_key`),
// so `tokenizer`, `max_tokens`, `token_count` and `test_password_reset` are not keys.
const KEYWORD = String.raw`(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|credentials?|client[_-]?secret|session[_-]?(?:key|secret)|auth)`;
const SUFFIX = String.raw`(?:[_.-](?:key|base|value|b64|base64|hex|str|string|text|plain|raw|id))*`;
// The look-behind makes a key start at the start of a word only: without it a long token-like run
// would be re-scanned from every position (quadratic).
const KEY_RE = new RegExp(String.raw`(\\?["'\`]?)(--?)?(?<![A-Za-z0-9_.])([A-Za-z0-9_.-]*?${KEYWORD}${SUFFIX})(?![A-Za-z0-9_])(\\?["'\`]?)`, 'gi');
const KEY_WORDS = /pass|pwd|secret|token|key|credential|auth/;

function keyLabel(key: string): string {
  const k = key.toLowerCase();
  if (/pass|pwd/.test(k)) return 'a password';
  if (/private[_-]?key/.test(k)) return 'a private key';
  if (/api[_-]?key/.test(k)) return 'an API key';
  if (/access[_-]?key/.test(k)) return 'an access key';
  if (/token/.test(k)) return 'a token';
  if (/secret/.test(k)) return 'a secret';
  if (/credential/.test(k)) return 'a credential';
  return 'a key';
}

/** Where the line holding `i` ends: no value, quoted or not, runs past it. */
function lineEnd(text: string, i: number): number {
  const n = text.indexOf('\n', i);
  return n === -1 ? text.length : n;
}

/** An unquoted value from `i`: up to whitespace, a quote, a backtick or a delimiter, within `end`. */
function bareValue(text: string, i: number, end: number): { start: number; end: number } | null {
  // A literal `\n` (a text encoded twice, as JSON inside JSON) ends the line the value is on.
  const m = /^(?:\$\{[^}\s]*\}|\\(?![nrt])|[^\s&,;'"`<>()[\]{}|\\])+/.exec(text.slice(i, Math.min(end, i + 4096)));
  if (!m) return null;
  // A trailing period ends a sentence, not the secret.
  const v = m[0].replace(/[.:]+$/, '');
  return v ? { start: i, end: i + v.length } : null;
}

/**
 * Reads the value that starts at `i`: a quoted string (also a JSON-escaped `\"…\"` one and a shell
 * `'…'\''…'` one), or, inside a quoted argv element such as `'--password=a'`, up to that quote or a
 * space, or an unquoted run. Returns the secret's span without its quotes. A value never runs past the
 * end of its line: a quote left open on the line is read as an unquoted value after it.
 */
function valueAt(text: string, i: number, enclosingQuote: string): { start: number; end: number } | null {
  const c = text[i];
  if (c === enclosingQuote) return null;
  const eol = lineEnd(text, i);
  if (c === '\\' && text[i + 1] === '"') {
    const close = text.indexOf('\\"', i + 2);
    if (close !== -1 && close <= eol) return { start: i + 2, end: close };
    // Left open (cut): up to the next escape (`\n` of the escaped text), where its line ends.
    const open = bareValue(text, i + 2, eol) ?? { start: i + 2, end: i + 2 };
    const esc = text.indexOf('\\', open.start);
    return esc !== -1 && esc < open.end ? { start: open.start, end: esc } : open;
  }
  if (c === '"' || c === "'" || c === '`') {
    let j = i + 1;
    for (; j < eol; j++) {
      if (text[j] === '\\' && c !== "'") {
        j++;
        continue;
      }
      if (text[j] === c) {
        if (c === "'" && text.startsWith("\\''", j + 1)) {
          j += 3;
          continue;
        }
        break;
      }
    }
    if (j < eol) return { start: i + 1, end: j };
    // Left open on this line: the cut-off value up to the line's end or the first space.
    const open = /^[^\s]*/.exec(text.slice(i + 1, eol))![0];
    return { start: i + 1, end: i + 1 + open.length };
  }
  if (enclosingQuote) {
    // Inside a quoted argv element the value ends at its quote, or at a space (`'KEY=v NEXT=w'`).
    let end = i;
    while (end < eol && !text.startsWith(enclosingQuote, end) && !/\s/.test(text[end]!)) end++;
    return { start: i, end };
  }
  return bareValue(text, i, eol);
}

/**
 * What may come before a shell or env-file assignment on its line: indentation, a file listing's line
 * number (`12→`, `cat -n`), grep's `file:12:`, a diff's `+`/`-` or a YAML list's dash (`- DB_PASSWORD=…`
 * of a compose file); or a command separator or a prompt, `-e`/`--env`/`--build-arg`; then
 * `export`/`env`/`declare`/… and other assignments (`A=1 B=2 cmd`). A call's argument
 * (`connect(password=PW)`) or a member (`cfg.password=PW`) has other text before it.
 */
const SHELL_BEFORE =
  /^(?:[^\n]*?(?:&&|\|\||[;|]|\$|[ \t]-e|[ \t]--env|[ \t]--build-arg)[ \t]+|[ \t]*(?:\d+(?:→|\t)[ \t]*)?(?:[^\s:()]+:\d+:)?(?:[-+][ \t]*)?)(?:(?:export|env|set|declare|local|readonly|typeset)[ \t]+(?:-\w+[ \t]+)*)?(?:[A-Za-z_]\w*=[^\s'"`]*[ \t]+)*$/;

/** Whether the unspaced `key=value` at `keyStart`…`valueEnd` is a shell or env-file assignment (see {@link SHELL_BEFORE}). */
function shellAssignment(text: string, keyStart: number, valueEnd: number, quoted: boolean): boolean {
  // Only the last 200 characters before the key (a search back to the line's start would make a long
  // line of assignments quadratic). When they do not reach the line's start, a NUL stands for the text
  // cut off: only a separator in the window can start the assignment then.
  const from = Math.max(0, keyStart - 200);
  const window = text.slice(from, keyStart);
  const nl = window.lastIndexOf('\n');
  const before = nl !== -1 ? window.slice(nl + 1) : from > 0 ? `\0${window}` : window;
  if (!SHELL_BEFORE.test(before)) return false;
  // It ends where a shell word ends: a space, the line's end, a separator or a comment.
  const after = text.charAt(valueEnd + (quoted ? 1 : 0));
  return after === '' || /[\s;&|#]/.test(after);
}

/** `password=…`, `"api_key": "…"`, `{'secret': '…'}`, `--token …`, `token: …`, `TOKEN := …`. */
function keyValueHits(text: string, out: RawHit[]): void {
  KEY_RE.lastIndex = 0;
  for (let m = KEY_RE.exec(text); m; m = KEY_RE.exec(text)) {
    // Groups 1, 3 and 4 take part in every match (possibly empty); the dash is optional.
    const [whole, open, dash = '', key, close] = m as unknown as [string, string, string | undefined, string, string];
    const keyEnd = m.index + whole.length;
    // `a::b` (test ids, scopes) and `a/token` paths are not assignments; an .npmrc's `/:_authToken=` is.
    if (open === '' && !dash && text.startsWith('::', m.index - 2)) continue;
    if (open && close && open !== close) continue;
    // A closing quote without an opening one is a key cut at its start (`b_password": "x"` from an output
    // tail) only at the start of the text or of a line; after a word it is prose in a string table
    // (`"Reset password": "click here"`).
    if (!open && close && m.index > 0 && text[m.index - 1] !== '\n') continue;
    // What follows the key: long enough for the padding of an aligned config file (`password      = x`).
    const rest = text.slice(keyEnd, keyEnd + 64);
    const sep = /^\s*(?::=|=>|=(?![=~>])|:(?!:)|\?=)\s*/.exec(rest);
    let at: number;
    // A bare `key:value` (no space, no quote) is a label or an id (`secret:foo`), unless the key itself
    // is quoted as in JSON.
    const bareColon = sep !== null && sep[0] === ':' && !/["'\\`]/.test(text.charAt(keyEnd + 1));
    if (sep && !(bareColon && !(open && open === close))) {
      at = keyEnd + sep[0].length;
    } else if (dash === '--' && /^\s+[^\s-]/.test(rest)) {
      at = keyEnd + rest.length - rest.trimStart().length;
    } else if (/^\s*,\s*["']/.test(rest) && open) {
      // ("password", "hunter2") tuples and argv arrays: ["--password", "hunter2"]
      at = keyEnd + rest.search(/["']/);
    } else {
      continue;
    }
    // A mask with text glued to it (`password=[REDACTED]tail`) still hides a value after it; a mask
    // followed by a quote, a space or the end is a value already masked (idempotent).
    const masked = at;
    while (text.startsWith(MASK, at)) at += MASK.length;
    if (at > masked && (at >= text.length || /[\s"'`\\]/.test(text[at]!))) continue;
    // Inside a quoted argv element ('--password=a b', also JSON-escaped), the value ends at that element's quote.
    const enclosing = open && !close && /["']/.test(open) ? open : '';
    const v = valueAt(text, at, enclosing);
    if (!v) continue;
    const value = text.slice(v.start, v.end);
    if (isPlaceholder(value) || value.startsWith('-') || /^(?:old)?pwd$/i.test(key)) continue;
    // A quoted word followed by a colon is the next JSON key (`{"id": "secrets", "detail": …}`), never a value.
    if (/^["'`]?\\?["']?\s*:/.test(text.slice(v.end)) && /["']/.test(text.charAt(v.start - 1))) continue;
    // Prose after a label (`Token: missing path untested`): one plain word and more words after it.
    if (!open && sep && sep[0].includes(':') && /^[A-Za-z]+$/.test(value) && /^ [A-Za-z]/.test(text.slice(v.end))) continue;
    // A call (`password = get_password()`), an index (`os.environ["TOKEN"]`) or a plain member path
    // (`token = settings.api.token`) is code, not a value.
    if (/^[([]/.test(text.slice(v.end))) continue;
    if (/^(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*$/.test(value) && !/\d/.test(value)) continue;
    // The value decides, never the key: a reference, an identifier, a number, a switch, a path or prose is
    // no finding; a word is a possible password only; a value cut on purpose (`tok_12...`) too.
    const quoted = /["'`]/.test(text.charAt(v.start - 1));
    const unspaced = sep?.[0] === '=';
    // A variable's name (`cfg.password=…` is a member of code).
    const shell = unspaced && !open && !dash && !close && /^[A-Za-z_]\w*$/.test(key) && shellAssignment(text, m.index, v.end, quoted);
    const shape = valueShape(value, { quoted, assigned: unspaced && !quoted, shell });
    if (shape === 'none') continue;
    out.push(hit('key-value', keyLabel(key), v.start, v.end, shownCut(text, v.start, v.end) ? 'weak' : shape));
  }
}

/** `scheme://user:` (the user may be empty: `redis://:pass@host`), also after path normalisation collapsed the slashes. */
const URL_USER = /\b[a-z][a-z0-9+.-]{1,20}:\/{1,3}[^\s:/@'"`]*:/gi;
/** What follows a URL's credentials: a host (and port) that ends the authority. */
const URL_HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[\w-][\w.-]*)(?::\d+)?(?=$|[/?#\s"'`)\]},;<>])/;
/** How far after `user:` a password may run: the scan stays linear on a long run of URL-ish text. */
const URL_PASSWORD_MAX = 256;

/**
 * `scheme://user:pass@host`: the password runs to the last `@` before a host, so a password holding
 * an unencoded `@` or `/` (`p@ss/w0rd`) is masked whole, not cut at its first `@`.
 */
function urlCredentialHits(text: string, out: RawHit[]): void {
  URL_USER.lastIndex = 0;
  for (let m = URL_USER.exec(text); m; m = URL_USER.exec(text)) {
    const start = m.index + m[0].length;
    const run = /^[^\s'"`<>]*/.exec(text.slice(start, start + URL_PASSWORD_MAX))![0];
    let end = -1;
    for (let at = run.lastIndexOf('@'); at > 0; at = run.lastIndexOf('@', at - 1)) {
      // Not a path's `/@scope`, nor past another URL's start.
      // A password never holds a query or fragment start: an `@` after one is in the query (`?mail=a@b`).
      if (run[at - 1] === '/' || /:\/\/|[?#]/.test(run.slice(0, at))) continue;
      if (URL_HOST.test(run.slice(at + 1))) {
        end = at;
        break;
      }
    }
    if (end <= 0) continue;
    const value = run.slice(0, end);
    if (isPlaceholder(value) || literalShape(value) === 'none') continue;
    out.push({ rule: 'url-credentials', label: 'a password in a URL', start, end: start + end });
  }
}

/** `https://<token>@host`: a token given as the URL's user name (git remotes with a PAT). */
const URL_TOKEN_USER = /\b[a-z][a-z0-9+.-]{1,20}:\/{1,3}([A-Za-z0-9_.~%+-]{16,})@(?=[\w[.-])/dgi;
/** A user name that is a token: a part of it at least 12 characters long mixing letters and digits. */
const tokenUser = (s: string): boolean => s.split(/[._~%+-]/).some((p) => p.length >= 12 && hasDigit(p) && hasLetter(p)) && entropy(s) >= 3;

/**
 * `Authorization: <value>` in a header, config or JSON. With a scheme word first (`Bearer`, `SSWS`,
 * `DeepL-Auth-Key`, any other), the token after it is the secret; a lone value is one itself.
 */
const AUTH_HEADER = /\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?([^\s"'`]+)(?:[ \t]+([^\s"'`]+))?/dgi;
/** A scheme word: letters first, then letter/digit parts joined by `-` (`Bearer`, `DeepL-Auth-Key`). */
const SCHEME_WORD = /^[A-Za-z]+(?:-[A-Za-z0-9]+)*$/;
/** The token after a scheme word: not a plain word of prose. */
const schemeToken = (s: string): boolean => s.length >= 8 && (hasDigit(s) || s.length >= 16 || /[._~+/=:-]/.test(s));

function authorizationHits(text: string, out: RawHit[]): void {
  AUTH_HEADER.lastIndex = 0;
  for (let m = AUTH_HEADER.exec(text); m; m = AUTH_HEADER.exec(text)) {
    const [, first, second] = m as unknown as [string, string, string | undefined];
    const span = second !== undefined && SCHEME_WORD.test(first) ? (schemeToken(second) ? groupSpan(m, 2) : null) : groupSpan(m, 1);
    if (!span) continue;
    const value = text.slice(span[0], span[1]).replace(/\\+$/, '');
    if (isPlaceholder(value)) continue;
    const shape = valueShape(value);
    if (shape === 'none') continue;
    out.push(hit('authorization-header', 'an Authorization header credential', span[0], span[1], shape));
  }
}

const SCHEME = /\b(?:Bearer|Basic|Token|Bot|SSWS|DeepL-Auth-Key)\s+((?=[A-Za-z0-9._~+/=:-]{20,}|[A-Za-z._~+/=:-]*\d)[A-Za-z0-9._~+/=:-]{8,})/dg;

/** A PuTTY key file's private part: the base64 lines after `Private-Lines: N` (real or `\\n`-escaped breaks). */
const PUTTY = /Private-Lines:[ \t]*\d+[ \t]*(?:\r?\n|\\n)([A-Za-z0-9+/=]{4,}(?:…|\.{3})?(?:(?:\r?\n|\\n)[A-Za-z0-9+/=]{4,}(?:…|\.{3})?(?=\r?\n|\\n|$))*)(?=\r?\n|\\n|$)/dg;

/**
 * Passwords given on a command line, by the flag each client takes one with: `curl -u user:pw`
 * (also `--user`, `--proxy-user`, httpie's `-a`), `mysql -ppw` / `-p pw` (mysqldump, mariadb, …),
 * `sshpass -p pw`, `docker login -p pw`, `redis-cli -a pw`, `mongosh -p pw`, `ldapsearch -w pw`,
 * `smbclient -U user%pw`, `openssl … -passin pass:pw`. A flag without a value (`mysql -p`, which
 * prompts) or followed by another flag is not one.
 */
const COMMAND_PASSWORDS: { re: RegExp; group: number; alt?: number }[] = [
  // user:password, the password after the first colon
  { re: /\b(?:curl|https?|httpie)\b[^\n|;&]{0,400}?[ \t](?:-u|-U|--user|--proxy-user|-a|--auth)(?:[ \t]+|=)?["']?[^\s:"'@]*:([^\s"']+)/dg, group: 1 },
  { re: /\bsmbclient\b[^\n|;&]{0,400}?[ \t](?:-U|--user)(?:[ \t]+|=)["']?[^\s%"']*%([^\s"']+)/dg, group: 1 },
  // a password flag, its value glued (`-ppw`) or after a space
  {
    re: /\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump|sshpass|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|docker[ \t]+login|podman[ \t]+login|nerdctl[ \t]+login)\b[^\n|;&]{0,400}?[ \t](?:\\?["'])?-p(?:(?:\\?["'])?([^\s"'<>|&;,\\-][^\s"'\\]*)|(?:\\?["'])?(?:[ \t]+|,[ \t]*)(?:\\?["'])?([^\s"'<>|&;,\\-][^\s"'\\]*))/dg,
    group: 1,
    alt: 2,
  },
  { re: /\bredis-cli\b[^\n|;&]{0,400}?[ \t](?:-a|--pass)[ \t]+["']?([^\s"'-][^\s"']*)/dg, group: 1 },
  { re: /\bldap(?:search|add|modify|delete|passwd|whoami)\b[^\n|;&]{0,400}?[ \t]-w[ \t]+["']?([^\s"'-][^\s"']*)/dg, group: 1 },
  { re: /(?<![\w-])-pass(?:in|out)?[ \t]+["']?pass:([^\s"']+)/dg, group: 1 },
];
const COMMAND_WORDS = /curl|http|mysql|mariadb|sshpass|mongo|login|redis-cli|ldap|smbclient|-pass/;

function commandPasswordHits(text: string, out: RawHit[]): void {
  for (const { re, group, alt } of COMMAND_PASSWORDS) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const span = m.indices![group] ?? (alt !== undefined ? m.indices![alt] : undefined);
      if (!span) continue;
      const value = text.slice(span[0], span[1]);
      if (isPlaceholder(value) || literalShape(value) === 'none') continue;
      out.push({ rule: 'command-line-password', label: 'a password on a command line', start: span[0], end: span[1] });
    }
  }
}

/** Private key blocks, PGP too, also when an output tail cut off their end (then to the end of the text). */
// A block cut off before its END line (or inside it) ends where the next one begins, or with the text.
const PEM = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----((?:(?!-----END|-----BEGIN)[\s\S])*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|(?=-----BEGIN|-----END)|$))/dg;

/** A keyword in prose followed by a long, random-looking value: "using token 3f9a…", "api key is AbC…". */
const PROSE = /\b(?:token|secret|password|passphrase|api[ _-]?key|access[ _-]?key|credential)s?\s+(?:is\s+|was\s+|of\s+|=\s*)?["'`]?([A-Za-z0-9_+/=.-]{20,})/dgi;

function regexHits(re: RegExp, text: string, rule: string, label: string, out: RawHit[], valid?: (s: string) => boolean, group = 1): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const idx = groupSpan(m, group);
    const value = text.slice(idx[0], idx[1]);
    if (isPlaceholder(value) || (valid && !valid(value))) continue;
    out.push({ rule, label, start: idx[0], end: idx[1] });
  }
}

function privateKeyHits(text: string, out: RawHit[]): void {
  PEM.lastIndex = 0;
  for (let m = PEM.exec(text); m; m = PEM.exec(text)) {
    const [, kind, body] = m as unknown as [string, string, string];
    // Only a body with key material: a mask, or nothing but the END line, is not one.
    if (!/[A-Za-z0-9+/=]{8,}/.test(body.replace(/-----END[^-]*-----|\[REDACTED\]/g, ''))) continue;
    const start = groupSpan(m, 2)[0];
    // Cut off before its END line: the key is the lines of key material only (headers such as
    // `Proc-Type: 4,ENCRYPTED` too), never the text after them.
    const end = body.includes('-----END') ? groupSpan(m, 2)[1] : start + pemMaterialLength(body);
    // A cap's `…` at the end of a line of material marks a cut, not a stand-in.
    if (looksLikePlaceholder(text.slice(start, end).replace(/-----END[^-]*-----/, '').replace(/(?:…|\.{3})(?=\r?\n|\\n|$)/g, ''))) continue;
    out.push({ rule: 'private-key', label: /PGP/.test(kind) ? 'a PGP private key' : 'a private key', start, end });
  }
}

/** How much of a cut-off PEM body is key material: its base64 lines (real or `\\n`-escaped line breaks). */
function pemMaterialLength(body: string): number {
  // A key pasted on one line has its material after spaces; a cap's `…` may end the last piece.
  const re = /(?:(?:\r?\n|\\n)?[A-Za-z-]+: [^\n\\]*(?=\r?\n|\\n|$)|(?:\r?\n|\\n|[ \t]+)?(?:[A-Za-z0-9+/=]{8,}(?:…|\.{3})|[A-Za-z0-9+/=]{16,}(?![A-Za-z0-9+/=])|[A-Za-z0-9+/=]*[0-9+/=][A-Za-z0-9+/=]*(?:…|\.{3})?(?=[ \t]|\r?\n|\\n|$)))/y;
  let at = 0;
  for (let m = re.exec(body); m && m[0].length > 0; m = re.exec(body)) at = re.lastIndex;
  return at;
}

/** Random-looking, and not a lower-case path or file name. */
function proseSecret(v: string): boolean {
  if (/\.[A-Za-z]{1,5}$/.test(v) || (/\//.test(v) && /^[a-z0-9_./-]+$/.test(v))) return false;
  return hasDigit(v) && hasLetter(v) && entropy(v) >= 3.5;
}

/** Every hit of the rules in this file, unmerged. */
export function ruleHits(text: string): RawHit[] {
  const out: RawHit[] = [];
  const lower = text.toLowerCase();
  for (const rule of PROVIDERS) {
    // Stryker disable next-line ConditionalExpression: a pre-filter; running the regex anyway finds the same
    if (!rule.keywords.test(lower)) continue;
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      const span: [number, number] = rule.group !== undefined ? groupSpan(m, rule.group) : [m.index, m.index + m[0].length];
      const secret = text.slice(span[0], span[1]);
      if ((rule.valid && !rule.valid(secret)) || looksLikePlaceholder(secret)) continue;
      // A provider prefix and a few characters before `...`: an example in docs, or a value shown cut on purpose.
      const label = typeof rule.label === 'string' ? rule.label : rule.label(m[0]);
      out.push(hit(rule.id, label, span[0], span[1], shownCut(text, span[0], span[1]) ? 'weak' : 'secret'));
    }
  }
  // Pre-filters: no context rule can match without what its flag asks for, so the flags only spare
  // regex runs (a looser flag finds the same). The context rules need a keyword and, after it, a
  // separator (`=`, `:`, `,` or a space): a single word such as a JSON key (`used_tokens`) cannot hold
  // a value, and skips their large expressions.
  // Stryker disable ConditionalExpression,LogicalOperator,StringLiteral,Regex: pre-filters only (see above)
  const spaced = /\s/.test(text);
  const mayKeyValue = KEY_WORDS.test(lower) && (spaced || /[=:,]/.test(text));
  const mayUrl = lower.includes(':/');
  const mayHeader = lower.includes('authorization');
  const mayScheme = spaced && /bearer|basic|token|bot|ssws|deepl-auth-key/.test(lower);
  const mayPem = lower.includes('private key');
  const mayPutty = lower.includes('private-lines:');
  const mayCommand = spaced && COMMAND_WORDS.test(lower);
  const mayProse = spaced && /token|secret|pass|key|credential/.test(lower);
  // Stryker restore LogicalOperator,StringLiteral,Regex
  if (mayKeyValue) keyValueHits(text, out);
  if (mayUrl) {
    urlCredentialHits(text, out);
    regexHits(URL_TOKEN_USER, text, 'url-token', 'a token in a URL', out, tokenUser);
  }
  if (mayHeader) authorizationHits(text, out);
  if (mayScheme) regexHits(SCHEME, text, 'auth-scheme', 'a bearer token', out, hasLetter);
  if (mayPem) privateKeyHits(text, out);
  if (mayPutty) regexHits(PUTTY, text, 'putty-private-key', 'a PuTTY private key', out);
  if (mayCommand) commandPasswordHits(text, out);
  if (mayProse) regexHits(PROSE, text, 'keyword-entropy', 'a high-entropy secret', out, proseSecret);
  freeTextHits(text, lower, out);
  // Stryker restore ConditionalExpression
  return out;
}

/** The ids of the rules in this file, for the benchmark and the tests. */
export const OWN_RULE_IDS = [
  ...PROVIDERS.map((r) => r.id),
  'key-value',
  'url-credentials',
  'url-token',
  'authorization-header',
  'auth-scheme',
  'private-key',
  'putty-private-key',
  'command-line-password',
  'keyword-entropy',
  'push-url-key',
  'sudo-password',
  'chpasswd-password',
  'passwd-password',
  'wifi-passphrase',
  'askpass-password',
  'expect-password',
  'prose-password',
];
