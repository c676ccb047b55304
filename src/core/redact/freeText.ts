/**
 * Credentials in free text, where no `key = value` names them: a push service's key in its URL's path
 * (`https://api.day.app/<key>/…`, `ntfy.sh/<topic>`), a password given in a message (`my sudo password
 * is …`, `密码 …`, `パスワードは …`, `비밀번호 …`), piped to `sudo -S` or `chpasswd`, written into an
 * askpass or expect script, or a Wi-Fi passphrase on a command line (`nmcli … password …`,
 * `wpa_passphrase <ssid> …`, `iwconfig <if> key …`). The syntax says the value is a password; its shape
 * still has to be one (a reference such as `$PW` or a stand-in is not).
 */
import type { RawHit } from './rules';
import { literalShape, randomLooking } from './shape';

interface FreeRule {
  id: string;
  label: string;
  /** Lower-case text that must occur before the regex runs. */
  pre: RegExp;
  re: RegExp;
  group: number;
  /** Extra check on the value (beyond {@link literalShape}). */
  valid?: (v: string) => boolean;
  /** Values that fail `valid` are still masked, as a possible credential. */
  weakOtherwise?: boolean;
  /** Taken whatever its shape (a number too): the words before it say what it is. */
  anyShape?: boolean;
  /** Values that are no finding at all (prose the rule's syntax also matches). */
  prose?: (v: string) => boolean;
}

/**
 * A value of a message's prose: letters with digits or symbols. A word alone is a word (at most a weak
 * password: see the single-word rule), and so are words joined by hyphens (`case-sensitive`) and a word
 * a sentence's `!` or `?` ends; a number is a count.
 */
const proseValue = (v: string): boolean => v.length >= 4 && !/^-|[()[\]{}<>;&]/.test(v) && !/^[A-Za-z]+(?:-[A-Za-z]+)*[.,!?]?$/.test(v) && /[A-Za-z]/.test(v) && /[\d!@#$%^&*_+=?~-]/.test(v) && !/^[\w.-]*\/[\w./-]*$/.test(v) && !/^v?\d+(?:\.\d+)+$/.test(v);

/**
 * A password given in words, in the languages agents' users write to them: `password is …` (a `key =
 * value` is the key-value rule's), `密码 …`, `パスワードは …`, `비밀번호는 …`.
 */
const PASSWORD_WORD = String.raw`(?:(?:(?:sudo|root|admin|login|user|wifi|wi-fi|ssh)\s+)?(?:password|passwd|passphrase|passcode|pass|pw)\s+(?:is|was|wa)\s+|(?:密码|密碼|口令|パスワード|暗証番号|비밀번호|암호)\s*(?:[:：=]|は|是|为|為|는|은|가|이|就是)?\s*)`;

/**
 * {@link PASSWORD_WORD} for a single word: the same phrases, but a bare `pass` only with a prefix
 * (`sudo pass is …`) — `the first pass was clean` is about a pass, not a password.
 */
const PASSWORD_WORD_PHRASE = String.raw`(?:(?:(?:sudo|root|admin|login|user|wifi|wi-fi|ssh)\s+)?(?:password|passwd|passphrase|passcode|pw)\s+(?:is|was|wa)\s+|(?:sudo|root|admin|login|user|wifi|wi-fi|ssh)\s+pass\s+(?:is|was)\s+|(?:密码|密碼|口令|パスワード|暗証番号|비밀번호|암호)\s*(?:[:：=]|は|是|为|為|는|은|가|이|就是)?\s*)`;

/**
 * What ends the clause a single word ends: the line's end, a sentence's punctuation (followed by a space
 * or the end: `bluebird.com` is a host, not a word and a period), a closing bracket, or a Japanese or
 * Korean copula. A word with more words after it is part of a sentence (`the password is in the vault`).
 */
const CLAUSE_END = String.raw`(?=["'」』”\`]?(?:[ \t]*$|[.,;:!?](?=\s|$)|[ \t]*[，。、！？)）]|[ \t]*(?:です|だ|입니다|이에요|예요)))`;

/**
 * The words that follow `password is` in English prose about a password rather than giving one: its
 * state (`required`, `wrong`, `hashed`, `case-sensitive`), and function words. Words ending in -ed,
 * -ing, -ly, -able or -ible are left out by their ending ({@link PROSE_ENDING}).
 */
const PROSE_WORDS = new Set(
  (
    'required wrong right correct incorrect invalid valid empty blank missing set unset not the a an it this that ' +
    'still now also too same different here there fine ok okay good bad stored hashed weak strong short long ' +
    'case-sensitive mandatory optional needed unknown known new old expired gone reset mine yours ours theirs his hers ' +
    'plaintext cleartext secure insecure safe unsafe unique random temporary visible invisible null nil none true false ' +
    'what which who below above inside elsewhere enough complex simple'
  ).split(' '),
);
const PROSE_ENDING = /(?:ed|ing|ly|able|ible)$/i;

const RULES: FreeRule[] = [
  {
    id: 'push-url-key',
    label: 'a push notification key in a URL',
    pre: /day\.app/,
    re: /\bapi\.day\.app\/([A-Za-z0-9]{8,64})(?![A-Za-z0-9])/dg,
    group: 1,
  },
  {
    id: 'push-url-key',
    label: 'a push notification topic in a URL',
    pre: /ntfy/,
    re: /\bntfy\.sh\/([A-Za-z0-9_-]{6,64})(?![A-Za-z0-9_-])/dg,
    group: 1,
    // A topic is its only secret: a random one is a key, a word (`alerts`) only maybe one.
    valid: randomLooking,
    weakOtherwise: true,
  },
  {
    id: 'sudo-password',
    label: 'a sudo password',
    pre: /sudo/,
    re: /\b(?:echo|printf)\s+(?:-[neE]+\s+)?(["']?)([^\s"'|;&\\]+)(?:\\n)?\1\s*\|\s*sudo\b[^\n|;&]*?\s-[A-Za-z]*S\b/dg,
    group: 2,
  },
  { id: 'sudo-password', label: 'a sudo password', pre: /sudo/, re: /\bsudo\b[^\n|;&]*?\s-[A-Za-z]*S\b[^\n|;&]*?<<<\s*(["']?)([^\s"']+)\1/dg, group: 2 },
  {
    id: 'chpasswd-password',
    label: 'a password piped to chpasswd',
    pre: /chpasswd/,
    re: /\b(?:echo|printf)\s+(?:-[neE]+\s+)?(["']?)[\w.-]+:([^\s"'|;&\\]+)\1\s*\|\s*(?:sudo\s+)?chpasswd\b/dg,
    group: 2,
  },
  {
    id: 'passwd-password',
    label: 'a password piped to passwd',
    pre: /passwd/,
    re: /\b(?:echo|printf)\s+(?:-[neE]+\s+)?(["'])([^\s"'\\]+)\\n\2?[^\s"']*\1\s*\|\s*(?:sudo\s+)?passwd\b/dg,
    group: 2,
  },
  {
    id: 'wifi-passphrase',
    label: 'a Wi-Fi passphrase',
    pre: /nmcli/,
    re: /\bnmcli\b[^\n|;&]*?\s(?:password|wifi-sec\.psk|802-11-wireless-security\.psk)\s+(["']?)([^\s"']+)\1/dg,
    group: 2,
  },
  { id: 'wifi-passphrase', label: 'a Wi-Fi passphrase', pre: /wpa_passphrase/, re: /\bwpa_passphrase\s+(?:"[^"\n]*"|'[^'\n]*'|\S+)\s+(["']?)([^\s"'|;&<>]+)\1/dg, group: 2 },
  {
    id: 'wifi-passphrase',
    label: 'a Wi-Fi key',
    pre: /iwconfig/,
    re: /\biwconfig\s+\S+\s+(?:essid\s+\S+\s+)?key\s+(?:s:)?(["']?)([^\s"']+)\1/dg,
    group: 2,
    valid: (v) => !/^(?:off|on|open|restricted|\[\d\])$/i.test(v),
  },
  {
    id: 'askpass-password',
    label: 'a password in an askpass script',
    pre: /askpass/,
    // The script's body: a line that only prints one word.
    re: /^[ \t]*(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(["']?)([^\s"'\\;|&]+)(?:\\n)?\1[ \t]*$/dgm,
    group: 2,
  },
  {
    id: 'expect-password',
    label: 'a password in an expect script',
    pre: /assword|passphrase/,
    re: /\bexpect\s+[^\n]*(?:assword|assphrase)[^\n]*\n[ \t]*send\s+(?:--\s+)?"([^"\\\n]+)(?:\\[rn])?"/dg,
    group: 1,
  },
  {
    id: 'prose-password',
    label: 'a password in a message',
    pre: /pass|pw|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호/,
    re: new RegExp(String.raw`(?<![A-Za-z0-9_.-])${PASSWORD_WORD}["'「『“\`]?([\x21-\x7e]{4,64}?)(?=["'」』”\`]|[\s,，。、)]|です|だ|입니다|이에요|예요|$)`, 'dgi'),
    group: 1,
    valid: proseValue,
  },
  {
    // A number given as a password or PIN (`my sudo password is 482913`, `暗証番号は 4829`): masked, and a
    // warning rather than a credential to rotate — a number after these words is mostly, not always, one.
    id: 'prose-password',
    label: 'a password in a message',
    pre: /pass|pw|pin|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호/,
    re: new RegExp(String.raw`(?<![A-Za-z0-9_.-])(?:${PASSWORD_WORD}|(?:pin|pin code)\s+(?:is|was)\s+)["'「『“\`]?(\d{4,12})(?=["'」』”\`]|[\s,，。、)]|です|だ|입니다|이에요|예요|$)`, 'dgi'),
    group: 1,
    valid: () => false,
    weakOtherwise: true,
    anyShape: true,
  },
  {
    // A single word given as a password (`the root password is sunshine`, `my wifi password was
    // bluebird.`): masked, and a warning only — a word ending the clause after these words is mostly,
    // not always, the password. A word that is prose (`required`, `wrong`, `hashed`) is no finding.
    id: 'prose-password',
    label: 'a password in a message',
    pre: /pass|pw|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호/,
    re: new RegExp(String.raw`(?<![A-Za-z0-9_.-])${PASSWORD_WORD_PHRASE}["'「『“\`]?([A-Za-z][A-Za-z-]{2,31})(?![A-Za-z0-9_-])${CLAUSE_END}`, 'dgim'),
    group: 1,
    valid: () => false,
    weakOtherwise: true,
    prose: (v) => PROSE_WORDS.has(v.toLowerCase()) || PROSE_ENDING.test(v) || v.endsWith('-'),
  },
];

const PRE = /day\.app|ntfy|sudo|chpasswd|passwd|nmcli|wpa_passphrase|iwconfig|askpass|assword|assphrase|pass|pw|pin|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호/;

/** Every free-text credential of `text` (see the module's comment). */
export function freeTextHits(text: string, lower: string, out: RawHit[]): void {
  if (!PRE.test(lower)) return;
  for (const r of RULES) {
    if (!r.pre.test(lower)) continue;
    r.re.lastIndex = 0;
    for (let m = r.re.exec(text); m; m = r.re.exec(text)) {
      const span = m.indices?.[r.group];
      if (!span) continue;
      const value = text.slice(span[0], span[1]);
      if (!r.anyShape && literalShape(value) === 'none') continue;
      if (r.prose?.(value)) continue;
      const ok = !r.valid || r.valid(value);
      if (!ok && !r.weakOtherwise) continue;
      out.push({ rule: r.id, label: r.label, start: span[0], end: span[1], ...(ok ? {} : { weak: true }) });
    }
  }
}

/** The rules of this module: personal data is masked on the lines where they found a credential. */
const FREE_RULES = new Set(RULES.map((r) => r.id));

/** Phone numbers and e-mail addresses: masked on a line that holds a free-text credential, never flagged themselves. */
const PERSONAL = /(?<![\w+@.-])(?:\+\d{1,3}[ -]?)?(?:1[3-9]\d{9}|\(?\d{3}\)?[ -]\d{3,4}[ -]\d{4})(?![\w@])|[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

/** The personal data on the lines of `text` that hold one of `hits` (a credential to rotate). */
export function personalHits(text: string, hits: readonly RawHit[]): RawHit[] {
  const out: RawHit[] = [];
  const lines = new Set<number>();
  for (const h of hits) {
    if (h.weak || !FREE_RULES.has(h.rule)) continue;
    const start = text.lastIndexOf('\n', h.start - 1) + 1;
    if (lines.has(start)) continue;
    lines.add(start);
    const end = text.indexOf('\n', h.end);
    const line = text.slice(start, end === -1 ? text.length : end);
    PERSONAL.lastIndex = 0;
    for (let m = PERSONAL.exec(line); m; m = PERSONAL.exec(line)) {
      const s = start + m.index;
      // A URL's user (`https://user:pw@host`) is the credential's own context, not an address.
      if (hits.some((x) => s < x.end && s + m![0].length > x.start)) continue;
      out.push({ rule: 'personal-data', label: 'personal data', start: s, end: s + m[0].length, personal: true });
    }
  }
  return out;
}
