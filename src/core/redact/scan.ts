/**
 * The cheap way to find credentials in big inputs (session files, feedback logs): a byte-level
 * pre-filter — provider-style token runs, `key=value` keywords, PEM headers, URLs with a password —
 * and, only where it fires, the full detector over each JSON string value of the line (so a span is
 * exact inside the value, and a JSON key is never read as a value).
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { detectSecrets } from './index';

/** A run of token characters this long, with a part that mixes letters and digits, may be a credential. */
const MIN_RUN = 16;
/** A part this long mixing upper and lower case letters may be one too (letters-only tokens). */
const MIN_CASE_RUN = 30;
/**
 * A part mixing letters and digits must be this long: every credential's random part is, while the
 * agents' own keys have short ones on every line (`ephemeral_5m_input_tokens`, `dop_v1_`'s `v1`).
 */
const MIN_MIXED_PART = 6;

/** The first 16 hex digits of the value's sha256: the same credential is one finding, the value never kept. */
export function fingerprintOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

// Byte classes: 1 digit, 2 upper, 4 lower, 8 `_` or `-` (token characters split into parts).
const CLASS = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = 2;
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = 4;
CLASS[0x5f] = 8;
CLASS[0x2d] = 8;

// `@` (a URL's credentials end there) and `+`, `/` (an opaque base64 value may start with them).
const SPECIAL = new Uint8Array(256);
SPECIAL[0x40] = 1;
SPECIAL[0x2b] = 1;
SPECIAL[0x2f] = 1;

// 1: may follow a key directly (`=`, `:`, a quote, a backslash); 2: may follow it after one space.
const SEPARATOR = new Uint8Array(256);
for (const c of '=:"\'\\') SEPARATOR[c.charCodeAt(0)] = 1;
SEPARATOR[0x3d] = 2;
SEPARATOR[0x3a] = 2;

const KEYWORDS = ['password', 'passwd', 'passphrase', 'pass', 'pwd', 'secret', 'token', 'key', 'credential', 'credentials', 'auth', 'apikey', 'authorization'].map((k) => Buffer.from(k));
/**
 * Commands that take a password on their command line (`curl -u user:pw`, `mysql -ppw`, `sshpass -p pw`,
 * `docker login -p pw`, `openssl … -passin pass:pw`): a line running one is read whole, whatever the password looks like.
 */
const COMMANDS = ['curl', 'http', 'httpie', 'mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlcheck', 'mysqlsh', 'mariadb', 'mariadb-dump', 'sshpass', 'mongo', 'mongosh', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport', 'login', 'redis-cli', 'ldapsearch', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldappasswd', 'ldapwhoami', 'smbclient', '-pass', '-passin', '-passout'].map((k) => Buffer.from(k));
/** Length and first byte of the command names: most words are passed over after one lookup. */
const COMMAND_START = new Uint8Array(32 * 256);
for (const k of COMMANDS) COMMAND_START[k.length * 256 + k[0]!] = 1;

/** Whether the run `b[start, end)` is one of {@link COMMANDS} (lower case as written). */
function isCommand(b: Buffer, start: number, end: number): boolean {
  const len = end - start;
  if (len >= 32 || COMMAND_START[len * 256 + b[start]!] === 0) return false;
  // A byte loop: a native compare costs more than these few bytes.
  for (const k of COMMANDS) {
    if (k.length !== len) continue;
    let i = 0;
    while (i < len && b[start + i] === k[i]) i++;
    if (i === len) return true;
  }
  return false;
}
/** Ids the agents write on every line: never credentials, and too common to send to the detector. */
const ID_PREFIXES = ['toolu_', 'srvtoolu_', 'msg_', 'req_', 'call_', 'fc_', 'resp_', 'rs_', 'ws_', 'ctc_', 'chatcmpl-', 'msg-', 'item_'].map((k) => Buffer.from(k));
const PEM = Buffer.from('-----BEGIN');

/** The last two letters of the keywords (lower case): a run ending otherwise needs no keyword comparison. */
const KEYWORD_END = new Uint8Array(65536);
for (const k of KEYWORDS) KEYWORD_END[(k[k.length - 2]! << 8) | k[k.length - 1]!] = 1;

const lower = (c: number): number => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

/** Whether the run `b[start, end)` ends with a credential keyword (`DB_PASSWORD`, `api-key`, `authToken`). */
function endsWithKeyword(b: Buffer, start: number, end: number): boolean {
  for (const k of KEYWORDS) {
    if (end - start < k.length) continue;
    let ok = true;
    for (let i = 0; i < k.length; i++) {
      if (lower(b[end - k.length + i]!) !== k[i]) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

function startsWithId(b: Buffer, start: number, end: number): boolean {
  // A canonical UUID (session, message and turn ids).
  if (end - start === 36 && b[start + 8] === 0x2d && b[start + 13] === 0x2d && b[start + 18] === 0x2d && b[start + 23] === 0x2d) return true;
  for (const p of ID_PREFIXES) if (end - start > p.length && b.compare(p, 0, p.length, start, start + p.length) === 0) return true;
  return false;
}

/** The next byte after `i` that is not a quote, a backslash or a space (at most a few looked at). */
function nextSeparator(b: Buffer, i: number): number {
  for (let j = i, n = Math.min(b.length, i + 6); j < n; j++) {
    const c = b[j]!;
    if (c !== 0x22 && c !== 0x27 && c !== 0x5c && c !== 0x20) return c;
  }
  return -1;
}

/** `scheme://user:pass@`: from an `@`, back over the password and the user to `//`. */
function urlCredentialBefore(b: Buffer, at: number): boolean {
  let colon = false;
  for (let j = at - 1, stop = Math.max(0, at - 256); j >= stop; j--) {
    const c = b[j]!;
    if (c === 0x3a) colon = true;
    // `//` after the scheme, or one `/` where a path normalisation collapsed them (`https:/user:pw@`);
    // another `/` or `@` may be part of the password (`p@ss/w0rd`).
    else if (c === 0x2f && j > 0 && (b[j - 1] === 0x2f || b[j - 1] === 0x3a)) return colon;
    else if (c === 0x20 || c === 0x22 || c === 0x27 || c === 0x0a) return false;
  }
  return false;
}

/**
 * The byte-level pre-filter: true when the line may hold a credential. One pass over the bytes
 * (a table lookup per byte; the checks run only where a run of token characters ends).
 */
export function mayHoldCredential(b: Buffer, freeText?: boolean): boolean {
  const dup = duplicateSpan(b);
  if (!dup) return mayHoldIn(b, 0, b.length) || (freeText ?? mayHoldFreeTextIn(b));
  return mayHoldIn(b, 0, dup.start) || mayHoldIn(b, dup.end, b.length) || (freeText ?? mayHoldFreeTextIn(b));
}

/**
 * Where the free-text words start in a decoded block of many lines, ascending (offsets in the text):
 * a reader of a million short lines looks for them once per block instead of two dozen native searches
 * per line, and tells `mayHoldCredential` whether one of them starts inside the line. No word holds a
 * newline, so a word found in the block lies inside one line.
 */
export function freeTextOffsets(block: string): number[] {
  const at: number[] = [];
  FREE_TEXT_SEARCH.lastIndex = 0;
  for (let m = FREE_TEXT_SEARCH.exec(block); m; m = FREE_TEXT_SEARCH.exec(block)) {
    at.push(m.index);
    // Words may overlap (`askpass` holds `ass…`): the next search starts one past this one.
    FREE_TEXT_SEARCH.lastIndex = m.index + 1;
  }
  return at;
}

/**
 * The words a free-text credential comes after (./freeText): a password given in a message (`the root
 * password is sunshine`, `密码是 …`), `sudo -S`, `nmcli … password`, an askpass script, a push URL. Such a
 * line has no token run nor `key=` in it (a Codex or Cline message has no id on the line to pass the
 * filter with), so these are looked for on their own: native searches, a few per line.
 */
const FREE_TEXT_WORDS = ['assword', 'ASSWORD', 'asswd', 'ASSWD', 'assphrase', 'ASSPHRASE', 'asscode', 'sudo', 'nmcli', 'askpass', 'iwconfig', 'day.app', 'ntfy', ' pw ', ' PW ', 'pin ', 'PIN ', '密码', '密碼', '口令', 'パスワード', '暗証番号', '비밀번호', '암호'].map((k) => Buffer.from(k));

/** The free-text words as one search over a decoded block (a regular expression runs as native code). */
const FREE_TEXT_SEARCH = new RegExp(FREE_TEXT_WORDS.map((k) => k.toString('utf8').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');

/**
 * The same words as their UTF-8 bytes read one per character, searched over a buffer read as latin1 in
 * a few searches of a few first letters each: one search for all the words tried them at nearly every
 * position ("a", "s", "p", a space…) and ran at a third of the speed of these together. The words
 * holding `ass`/`ASS`, those with a space, the other ASCII ones, and the CJK ones (only where a byte is
 * not ASCII).
 */
const escapeWord = (k: Buffer): string => k.toString('latin1').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isAsciiWord = (k: Buffer): boolean => k.every((c) => c < 0x80);
const wordSearch = (ks: Buffer[]): RegExp => new RegExp(ks.map(escapeWord).join('|'));
const FREE_TEXT_ASCII = [
  FREE_TEXT_WORDS.filter((k) => isAsciiWord(k) && /ass/i.test(k.toString('latin1'))),
  FREE_TEXT_WORDS.filter((k) => isAsciiWord(k) && !/ass/i.test(k.toString('latin1')) && k.includes(0x20)),
  FREE_TEXT_WORDS.filter((k) => isAsciiWord(k) && !/ass/i.test(k.toString('latin1')) && !k.includes(0x20)),
].map(wordSearch);
const FREE_TEXT_OTHER = wordSearch(FREE_TEXT_WORDS.filter((k) => !isAsciiWord(k)));

/** True when one of the free-text words is in the bytes. */
function mayHoldFreeTextIn(b: Buffer): boolean {
  const s = b.toString('latin1');
  for (const re of FREE_TEXT_ASCII) if (re.test(s)) return true;
  return !isAscii(b) && FREE_TEXT_OTHER.test(s);
}

/** Lines this long are looked at for a second copy of their tool output (Claude Code writes two). */
const DUP_MIN = 4096;
const RESULT_CONTENT = Buffer.from('"type":"tool_result","content":"');

/**
 * Claude Code writes a tool's output twice on its result line (the `tool_result` content and the
 * `toolUseResult` copy): where the second copy is byte for byte the first, it needs no second look.
 * Found with native searches only. Returns the second copy's span, or null.
 */
function duplicateSpan(b: Buffer): { start: number; end: number } | null {
  if (b.length < DUP_MIN) return null;
  const at = b.indexOf(RESULT_CONTENT);
  if (at === -1) return null;
  const start = at + RESULT_CONTENT.length;
  const end = stringEnd(b, start);
  if (end - start < DUP_MIN / 2) return null;
  const copy = b.indexOf(b.subarray(start, start + 64), end);
  if (copy === -1 || copy + (end - start) > b.length || b.compare(b, start, end, copy, copy + (end - start)) !== 0) return null;
  return { start: copy, end: copy + (end - start) };
}

/** The offset of the quote closing the JSON string that starts at `start` (native search for quotes). */
function stringEnd(b: Buffer, start: number): number {
  for (let q = b.indexOf(0x22, start); q !== -1; q = b.indexOf(0x22, q + 1)) {
    let k = q - 1;
    while (k >= start && b[k] === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
  return b.length;
}

function mayHoldIn(b: Buffer, from: number, n: number): boolean {
  let i = from;
  while (i < n) {
    const c0 = b[i]!;
    if (CLASS[c0] === 0) {
      if (SPECIAL[c0] !== 0) {
        if (c0 === 0x40 && urlCredentialBefore(b, i)) return true;
        // Base64 may start with `+` or `/`: an opaque value is skipped from its first byte too.
        if (c0 !== 0x40 && i >= 2 && b[i - 1] === 0x22 && b[i - 2] === 0x3a && afterOpaqueKey(b, i)) {
          i = stringEnd(b, i) + 1;
          continue;
        }
      }
      i++;
      continue;
    }
    // A run of token characters: skipped in a tight loop, looked at only where it ends.
    const start = i;
    // An opaque value (a signature, an image's data) is skipped to its closing quote.
    if (start >= 2 && b[start - 1] === 0x22 && b[start - 2] === 0x3a && afterOpaqueKey(b, start)) {
      i = stringEnd(b, start) + 1;
      continue;
    }
    // The classes met on the way: a run with no digit beside a letter, nor both cases, is no token.
    let met = CLASS[c0]!;
    i++;
    while (i < n) {
      const k = CLASS[b[i]!]!;
      if (k === 0) break;
      met |= k;
      i++;
    }
    const len = i - start;
    if (len >= MIN_RUN) {
      if (runEnds(b, start, i, ((met & 1) !== 0 && (met & 6) !== 0) || (met & 6) === 6)) return true;
      continue;
    }
    if (i >= n || len < 3) continue;
    const c = b[i]!;
    if ((c === 0x20 || c === 0x22 || c === 0x27 || c === 0x5c) && isCommand(b, start, i)) return true;
    // Most runs are short words ending in a space: passed over after a look at the next byte.
    // A keyword is looked for only where the run's last two letters end one.
    const sep = SEPARATOR[c] !== 0 || (c === 0x20 && (c0 === 0x2d || (i + 1 < n && SEPARATOR[b[i + 1]!] === 2)));
    if (sep && (c0 === 0x2d || KEYWORD_END[((b[i - 2]! | 0x20) << 8) | (b[i - 1]! | 0x20)] === 1) && runEnds(b, start, i)) return true;
  }
  return false;
}

/** At the end of a run of token characters: a credential-like run, or a keyword before a separator. */
function runEnds(b: Buffer, start: number, end: number, mixed = true): boolean {
  const len = end - start;
  // A PEM header: `-----BEGIN …`, a run of its own before a space.
  if (len === PEM.length && b[start] === 0x2d && b.compare(PEM, 0, PEM.length, start, end) === 0) return true;
  // `mixed` false: the caller met neither a digit beside a letter nor both cases in the run.
  if (len >= MIN_RUN && mixed && tokenLike(b, start, end)) return true;
  if (len < 3 || end >= b.length) return false;
  // A keyword followed by a separator: `KEY=`, `"password": `, `--token value`, `TOKEN := `.
  const c = b[end]!;
  const sep = c === 0x3d || c === 0x3a ? c : c === 0x22 || c === 0x27 || c === 0x5c || c === 0x20 ? nextSeparator(b, end) : -1;
  // A flag (`--token value`, `'--api-key' 'value'`) needs no separator.
  const flag = b[start] === 0x2d && (c === 0x20 || c === 0x22 || c === 0x27 || c === 0x5c);
  return (sep === 0x3d || sep === 0x3a || flag) && endsWithKeyword(b, start, end);
}

/**
 * A run one of whose parts (between `_` and `-`) mixes letters and digits, or is a long mix of upper
 * and lower case — and that is not an id the agents write on every line.
 */
function tokenLike(b: Buffer, start: number, end: number): boolean {
  let mixed = false;
  let part = 0;
  let len = 0;
  for (let i = start; i <= end; i++) {
    const t = i < end ? CLASS[b[i]!]! : 8;
    if (t === 8) {
      if (((part & 1) !== 0 && (part & 6) !== 0 && len >= MIN_MIXED_PART) || (len >= MIN_CASE_RUN && (part & 6) === 6)) {
        mixed = true;
        break;
      }
      part = 0;
      len = 0;
    } else {
      part |= t;
      len++;
    }
  }
  return mixed && !startsWithId(b, start, end);
}

const OPAQUE_KEYS = ['"signature":"', '"encrypted_content":"'].map((k) => Buffer.from(k));
const DATA_KEY = Buffer.from('"data":"');
const IMAGE_TYPE = Buffer.from('"media_type":"image/');

/** Whether `b` holds `k` just before `end` (a byte loop: no native call for a few bytes). */
function endsWith(b: Buffer, end: number, k: Buffer): boolean {
  if (end < k.length) return false;
  for (let i = 0, at = end - k.length; i < k.length; i++) if (b[at + i] !== k[i]) return false;
  return true;
}

/**
 * A thinking block's signature, an encrypted reasoning blob, or a pasted image's data: base64 the
 * agent writes, never a credential (and an image can be megabytes). `start` is just after the `":"`.
 */
function afterOpaqueKey(b: Buffer, start: number): boolean {
  // The key's last letter first: most values follow other keys.
  const last = start >= 4 ? b[start - 4] : 0;
  if (last !== 0x65 && last !== 0x74 && last !== 0x61) return false;
  for (const k of OPAQUE_KEYS) if (endsWith(b, start, k)) return true;
  return endsWith(b, start, DATA_KEY) && b.subarray(Math.max(0, start - 80), start).indexOf(IMAGE_TYPE) !== -1;
}

/** One JSON string token of a line: its raw span (quotes excluded) and whether an object key. */
interface JsonString {
  start: number;
  end: number;
  key: boolean;
}

/** Every string token of a JSON text, in order (a torn or broken line yields what it can). */
export function jsonStrings(text: string): JsonString[] {
  const out: JsonString[] = [];
  let i = text.indexOf('"');
  while (i !== -1 && i < text.length) {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) break;
    let k = j + 1;
    while (k < text.length && (text[k] === ' ' || text[k] === '\t')) k++;
    out.push({ start: i + 1, end: j, key: text[k] === ':' });
    i = text.indexOf('"', j + 1);
  }
  return out;
}

/**
 * A JSON string token decoded, with where each decoded character came from in the raw text, so a
 * span found in the value maps back to the bytes to mask (for scrubbing).
 */
export function decodeJsonString(text: string, start: number, end: number): { value: string; at: number[] } {
  let value = '';
  const at: number[] = [];
  for (let i = start; i < end; ) {
    if (text[i] !== '\\') {
      value += text[i];
      at.push(i);
      i++;
      continue;
    }
    const e = text[i + 1];
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };
    if (e === 'u') {
      value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      at.push(i);
      i += 6;
    } else {
      value += simple[e ?? ''] ?? e ?? '';
      at.push(i);
      i += 2;
    }
  }
  at.push(end);
  return { value, at };
}

/** A credential found in a text: its kind and value (the value never leaves this module's callers). */
export interface Found {
  rule: string;
  kind: string;
  value: string;
  /** What the text calls it (`HELIUS_RPC_URL`, `api.example.com`): a name, never part of the value. */
  name?: string;
  /** A possible credential only (see `SecretHit.weak`). */
  weak?: boolean;
}

/**
 * The name a text gives the credential at `start`: the variable or key its line assigns
 * (`NAME=…`, `"name": …`, `name: …`), else the key just before it, and the host of a URL holding it.
 */
export function credentialName(text: string, start: number, end = start): string | undefined {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const before = text.slice(Math.max(lineStart, start - 200), start);
  const names: string[] = [];
  // A name is shown: never one that is (or looks like) a credential itself, such as a key id before a secret.
  const usable = (n: string | undefined): n is string =>
    !!n && /[A-Za-z]/.test(n) && !SCHEMES.test(n) && !(/[a-z]/.test(n) && /[A-Z]/.test(n) && /\d/.test(n)) && detectSecrets(n).length === 0;
  const assign = /^\s*(?:export\s+|set\s+|\$env:)?["']?([A-Za-z_][A-Za-z0-9_.-]{2,60})["']?\s*[=:]/.exec(text.slice(lineStart, start));
  const near = /["']?([A-Za-z_][A-Za-z0-9_.-]{2,60})["']?\s*[=:]\s*["']?[^\s"'=:]*$/.exec(before);
  const name = usable(assign?.[1]) ? assign?.[1] : usable(near?.[1]) ? near?.[1] : undefined;
  if (name) names.push(name);
  // The host of a URL that holds it: before it (`https://host/?key=…`) or after it (`https://user:…@host`).
  const host = /https?:\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,})[^\s"'<>@]*$/.exec(before)?.[1] ?? (/^[^\s"'<>/]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/.exec(text.slice(end, end + 200))?.[1]);
  if (host && !names.includes(host)) names.push(host);
  return names.length ? names.join(', ') : undefined;
}

/** URL schemes and user names are no names for a credential. */
const SCHEMES = /^(https?|s?ftp|ssh|git|wss?|postgres(ql)?|mysql|mariadb|redis|rediss|mongodb(\+srv)?|amqps?|x-access-token|oauth2|user(name)?|token|bearer|basic)$/i;

/** Every credential in the string values of one JSON line (keys are never read as values). */
export function credentialsInJsonLine(text: string): Found[] {
  const out: Found[] = [];
  for (const s of jsonStrings(text)) {
    if (s.key || s.end - s.start < 6) continue;
    const raw = text.slice(s.start, s.end);
    const value = raw.includes('\\') ? decodeJsonString(text, s.start, s.end).value : raw;
    let prev: { end: number; found: Found } | null = null;
    for (const h of detectSecrets(value)) {
      if (h.personal) continue;
      // One credential masked in two pieces (wrapped by the terminal, a base64 block's lines) is one.
      const gap = prev ? value.slice(prev.end, h.start) : '';
      if (prev && prev.found.kind === h.label && /^\r?\n$/.test(gap)) {
        prev.found.value += value.slice(h.start, h.end);
        prev.end = h.end;
        continue;
      }
      const name = credentialName(value, h.start, h.end);
      const found: Found = { rule: h.rule, kind: h.label, value: value.slice(h.start, h.end), ...(name ? { name } : {}), ...(h.weak ? { weak: true } : {}) };
      out.push(found);
      prev = { end: h.end, found };
    }
  }
  return out;
}

