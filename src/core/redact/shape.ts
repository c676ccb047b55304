/**
 * What a value after a credential's key name is, judged by the value's own shape, never by the name:
 * `api_key = os.environ.get('API_KEY')`, `errs.password = 'Minimum 8 characters'`,
 * `"password": "test-key"`, a line number, `BR2_PACKAGE_X_API_KEY=y` or `hasAuth = isConnected` hold no
 * secret, however the key is spelled. Three answers:
 *
 * - `secret`: random-looking (letters and digits or symbols mixed, enough of them, varied), a UUID, a
 *   key-length hex run: masked and flagged as a credential to rotate.
 * - `weak`: could be a password (`hunter`, `first_name`, `guest-access`): masked, and reported only as a
 *   possible one (a warning, never "rotate now").
 * - `none`: not a value at all: empty, a placeholder, a reference (`process.env.X`, `${X}`, `$X`), a
 *   code identifier or expression, a number, a version pin, a switch, a path, prose. Left as it is.
 */

export type ValueShape = 'secret' | 'weak' | 'none';

/** Shannon entropy in bits per character. */
export function shannon(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Words and literals of code and config that are never a value of their own. */
const KEYWORDS = new Set(
  (
    'null none nil true false undefined nan yes no y n on off enabled disabled enable disable required optional ' +
    'string str int bool boolean number bytes object any void new async await function const let var typeof static ' +
    'public private protected fn mut impl struct enum return raise self this super default empty unset ' +
    'test tests testing example sample demo dummy fake mock todo tbd fixme changeme redacted hidden ' +
    'secret secrets password passwd pass pwd token key apikey credential credentials auth'
  ).split(' '),
);

/** A reference to a value held elsewhere: an environment variable, a template, a config lookup. */
const REFERENCE =
  /^(?:\$[{(A-Za-z_]|%[A-Za-z_]\w+%|\$env:|\{\{[^}]*\}\}|<%.*%>|process\.env\b|import\.meta\.env\b|os\.(?:environ|getenv)\b|Deno\.env\b|ENV\[|env\(|getenv\(|System\.getenv|Environment\.GetEnvironmentVariable|secrets\.|vars\.|config\.|settings\.|ctx\.|context\.)/;

/** The stand-ins of docs and examples, wherever they sit in a value. */
const PLACEHOLDER =
  /your[-_ ]?(?:own[-_ ]?)?(?:[a-z]+[-_ ])?(?:key|token|secret|password|pass|pat|api)|[-_](?:goes[-_])?here$|\.{3}|…|x{4,}|X{4,}|\*{3,}|placeholder|change[-_ ]?me|replace[-_ ]?(?:me|with|this|for)|^(?:<[^>]*>|\[[^\]]*\]|\{[^}]*\})$|^(?:test|fake|dummy|sample|example|demo|mock)(?:[-_.]|$)|[-_](?:test|fake|dummy|sample|example|demo|mock)$/i;

/** A credential word inside a value: a value that names a credential (`new_api_key`, `test-key`) is not one. */
const NAMES_CREDENTIAL = /(?:^|[-_.]|[a-z](?=[A-Z]))(?:api[-_]?key|apikey|key|token|secret|password|passwd|pass|pwd|credentials?|auth)(?:$|[-_.]|[A-Z])/i;

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** Code identifiers in the casings code uses: camelCase, PascalCase (`code`), SCREAMING_SNAKE (`name`). */
function codeIdentifier(v: string): 'code' | 'name' | null {
  if (!IDENT.test(v) || /\d{3,}/.test(v)) return null;
  // Each word two letters or more, a number only at the end: a random mix of cases is no identifier.
  if (/^[a-z]+(?:[A-Z][a-z]+)+\d*$/.test(v)) return 'code'; // camelCase
  if (/^(?:[A-Z][a-z]+)+\d*$/.test(v)) return 'code'; // PascalCase, `Lazy`, `Arc`
  if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v)) return 'name'; // SCREAMING_SNAKE: an environment variable's name
  return null;
}

/** A value made of lower-case words (and at most a trailing digit or two): a password only if a weak one. */
function wordShaped(v: string): boolean {
  return /^[A-Za-z]+(?:[-_.][A-Za-z]+)*\d{0,2}$/.test(v);
}

/**
 * A value a length cap cut (`hunter2hun…`): judged by what is left of it, when that is six characters
 * or more and holds no other ellipsis (`sk-...` stays the stand-in of docs).
 */
function uncut(v: string): string {
  const core = v.replace(/^(?:…|\.{3})|(?:…|\.{3})$/g, '');
  return core !== v && core.length >= 6 && !/…|\.{3}/.test(core) ? core : v;
}

/** Where a value was read: quoted (a string literal), or in a shell or env assignment (`NAME=value`). */
export interface ValueContext {
  quoted?: boolean;
  assigned?: boolean;
  /**
   * A line of an env file or a shell assignment (`DB_PASSWORD=HUNTER_TWO`, `export X=Y`, `X=Y cmd`):
   * the value is a literal string there, never a reference (that would be `$Y`), so even an
   * upper-snake word is one.
   */
  shell?: boolean;
}

/** What the value is: see {@link ValueShape}. `value` is the raw text a rule read after the key. */
export function valueShape(value: string, ctx: ValueContext = {}): ValueShape {
  // Literal escapes at its end (`\\n` of a text encoded twice) are the line's end, not the value.
  const whole = value.replace(/(?:\\+[nrt])+$/, '').trim();
  const v = uncut(whole);
  if (/^\s/.test(value)) return 'none';
  // Only symbols: a fragment of syntax (`+`, `#`, `$`), unless a string literal holds it.
  if (!/[A-Za-z0-9]/.test(v)) return ctx.quoted && v ? 'weak' : 'none';
  // Syntax after an empty value: a closing bracket, a separator, a comment, the next assignment.
  if (/^[)\]},;#|&]/.test(v) || /^[A-Za-z_][\w.-]*=[^=]/.test(v)) return 'none';
  if (REFERENCE.test(v)) return 'none';
  if (KEYWORDS.has(v.toLowerCase())) return 'none';
  if (PLACEHOLDER.test(v)) return 'none';
  // A number: a line number, a count, a line-number marker of a file listing (`138→`), a version pin.
  if (/^\d{1,7}$/.test(v) && (ctx.assigned || ctx.quoted)) return 'weak';
  if (/^[-+]?\d{1,7}(?:[.,]\d+)?[→:]?$/.test(v) || /^[\^~<>=v]*\d+(?:\.\d+)+(?:[-+][\w.]+)?$/.test(v)) return 'none';
  // An expression: a call, a negation, a member path, an index.
  if (/^!?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v) && !/\d/.test(v)) return 'none';
  if (/^!/.test(v) && IDENT.test(v.slice(1))) return 'none';
  // An identifier: code, unless a string literal holds it or a cap cut it (then a word of unknown sense).
  // An upper-snake name is an environment variable's name in code (`password = DEFAULT_PASSWORD`), but
  // in a shell or env-file assignment the literal text — a possible password, unless it names one.
  const ident = codeIdentifier(v);
  if (ident === 'name' && ctx.shell && !NAMES_CREDENTIAL.test(v)) return 'weak';
  if (ident === 'name' || (ident === 'code' && !ctx.quoted && v === whole)) return 'none';
  if (ident === 'code') return 'weak';
  // A path (`~/.config/app/credentials.json`, `./secrets/db`), never a secret's own text.
  if (/^(?:~|\.{1,2})?\/[\w.@~-]+(?:\/[\w.@~-]*)*$/.test(v) && (/\/.*\//.test(v) || /\.[a-z]{1,5}$/.test(v))) return 'none';
  // A public address (an Ethereum contract or wallet: 20 bytes in hex) is published, not held.
  if (/^0x[0-9a-fA-F]{40}$/.test(v)) return 'none';
  // A pattern repeated (a published test vector's `0808…`, `abababab…`): no randomness at all.
  if (v.length >= 16 && shannon(v) < 2) return 'none';
  // Prose: a sentence (a capitalised word and more words), or words with no digit or symbol in them.
  if (/\s/.test(v)) return /^[A-Z][a-z]+(?:\s+\S+)+$/.test(v) ? 'none' : 'weak';
  if (wordShaped(v)) return !/\d/.test(v) && NAMES_CREDENTIAL.test(v) ? 'none' : 'weak';
  return randomLooking(v) ? 'secret' : 'weak';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Random-looking: a UUID, a hex run of key length, or at least eight characters mixing letters with
 * digits or symbols, varied enough (a repeated pattern such as a test vector's `0808…` is not).
 */
export function randomLooking(v: string): boolean {
  if (UUID.test(v)) return true;
  if (v.length >= 16 && shannon(v) < 2.5) return false;
  if (/^(?:0x)?[0-9a-fA-F]{32,}$/.test(v)) return true;
  if (v.length < 8) return false;
  const letters = /[A-Za-z]/.test(v);
  const digits = /\d/.test(v);
  const symbols = /[^A-Za-z0-9]/.test(v);
  const cases = /[a-z]/.test(v) && /[A-Z]/.test(v);
  if (letters && (digits || symbols)) return shannon(v) >= 2.5;
  return v.length >= 20 && cases && shannon(v) >= 3.5;
}

/**
 * A value shown cut on purpose (`sk-ant-oat01-...`, `pk.eyJ...`, a token's first characters and `...`):
 * what is left is too short to be the credential, so it is at most a weak signal.
 */
export function shownCut(text: string, start: number, end: number): boolean {
  const value = text.slice(start, end);
  const after = text.slice(end, end + 3);
  const cut = /(?:\.{3}|…)$/.test(value) || /^(?:\.{3}|…)/.test(after);
  if (!cut) return false;
  const core = value.replace(/(?:\.{3}|…)+$/, '').replace(/^(?:[A-Za-z]{1,10}[-_.])+(?:[A-Za-z]{0,6}\d{0,2}[-_])?/, '');
  return core.length < 20;
}

/**
 * A value its syntax makes a literal password (`sshpass -p …`, `scheme://user:…@host`, `nmcli … password
 * …`, `echo … | sudo -S`): a secret unless it is empty, a reference or a stand-in.
 */
export function literalShape(value: string): ValueShape {
  const v = uncut(value.trim());
  if (!v || !/[^\s"'`]/.test(v)) return 'none';
  if (REFERENCE.test(v) || KEYWORDS.has(v.toLowerCase()) || PLACEHOLDER.test(v)) return 'none';
  return 'secret';
}
