import { redact } from '../redact';

/**
 * Salient excerpts of command output: the lines that carry the cause of a failure (the failing test's
 * name, the assertion or expected/actual lines, the final exception, `error:` lines, `FAIL` / `not ok`)
 * without the stack frames of runtimes and libraries that fill the tail of most runners' output.
 * The whole text is redacted first, so a cut can never leave half a secret behind.
 */

/** The longest excerpt, in characters: enough for a test name and its assertion, short enough to read. */
export const EXCERPT_MAX = 400;
const LINE_MAX = 200;

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g;

/** Python frames, each followed by a line of that frame's own code. */
const PY_FRAME_FILE = /^File ".*", line \d/; // traceback: File "…", line N, in fn
const PY_FRAME_ENTRY = /^\S+\.py:\d+: in \w/; // pytest's long traceback: file.py:N: in fn

/** Stack frames of JS, Python, Rust, Go and JVM runtimes — never the cause, always the bulk. */
const FRAME: RegExp[] = [
  /^at\s+\S.*(:\d+\)?|\((<anonymous>|native|index \d+)\))\s*(\{)?$/, // JS / JVM: at fn (file:1:2), at /file:1:2
  /^(async\s+)?[\w$.<>[\]]+( \[as \w+\])? \((node:|file:|\/|[A-Za-z]:\\|<anonymous>)[^)]*\)$/, // TAP YAML stack: Fn (node:internal/…)
  PY_FRAME_FILE,
  /^Traceback \(most recent call last\):$/,
  PY_FRAME_ENTRY,
  /^\/\S+:\d+: \w+$/, // pytest: /usr/lib/…/decoder.py:353: JSONDecodeError (library location)
  /^\d+: (\S+::|<|__|core::|std::|alloc::|test::)/, // Rust backtrace entries
  /^at \/rustc\//,
  /^stack backtrace:$/,
  /^note: .*(backtrace|RUST_BACKTRACE)/,
  /^goroutine \d+ \[/, // Go
  /^\/\S+\.go:\d+( \+0x[0-9a-f]+)?$/,
  /^created by \S/,
  /^([\w./*()-]+\.[\w*()]+|panic)\((0x[0-9a-f?]+|\.\.\.|\{.*\}|)(, ?[^)]*)?\)$/, // Go: pkg.fn(0xc000…) / panic({…})
  /^stack: \|-?$/, // TAP YAML keys around the frames
];

/** Lines with no information for a reader: separators, banners, progress, passes, code frames. */
const NOISE: RegExp[] = [
  /^$/,
  /^[=_\-─⎯~.·*#+>|^ ]{3,}$/, // separators, `_ _ _`, `~~~~` carets
  /^[=─⎯]{3,}.*[=─⎯]{3,}$/, // `==== FAILURES ====`, `⎯⎯ Failed Tests 2 ⎯⎯`
  /^(platform|rootdir|plugins|cachedir|benchmark|collected|configfile|testpaths):? /,
  /^(Compiling|Finished|Running|Fresh|Downloaded|Downloading|Checking) /,
  /^running \d+ tests?$/,
  /^=== (RUN|PAUSE|CONT|NAME)\s/, // go test -v progress (its `===` is no comparison)
  /^test \S+ \.\.\. (ok|ignored)$/,
  /^(✔|✓|√|ok \d+)\s/,
  /^(PASS|RUN|Start at|Duration|Snapshots|Time:|Ran all test suites)\b/,
  /^(>\s*)?\d+\s*\|/, // jest / vitest / babel code frames
  /^\|\s*\^/,
  /^(duration_ms|location|failureType|code|name|operator|type|generatedMessage):/, // TAP YAML noise
  /^(---|\.\.\.)$/,
  /^TAP version \d+$/,
  /^# (Subtest|tests|suites|pass|cancelled|skipped|todo|duration_ms)\b/,
  /^ℹ /,
  /^(failures|✖ failing tests):$/,
  /^test at \S+:\d+:\d+$/,
  /complete log of this run can be found/,
  /^npm (error|ERR!)$/,
  /^> \S+@\S+ \S+$/, // npm's "> pkg@1.0.0 build" banner
];

/** Lines that carry the cause: failing names, assertions, exceptions, errors, failure summaries. */
const SALIENT: RegExp[] = [
  /^(FAIL|FAILED|ERROR|not ok)\b/,
  /^_{3,} \S.* _{3,}$/, // pytest: ____ test_partial ____
  /^--- FAIL:/,
  /^(✖|✕|×|✗|●|❯|→|›)\s/,
  /^\d+\) \S/, // mocha
  /^test \S+ \.\.\. FAILED$/,
  /^-{2,} \S+ stdout -{2,}$/, // cargo: ---- tests::x stdout ----
  /^thread '.*' .*panicked at/,
  /^panic: /,
  /^E\s+\S/, // pytest
  /^>\s+\S/, // pytest's failing source line
  /\b[\w.]*(Error|Exception|Failure|Warning)\b(\s*\[[\w_]+\])?:/,
  /\b(assert|assertion|AssertionError|expect|Expected|Received|expected|actual|want)\b/,
  /(!==|!=|===|==)/,
  /^(left|right|expected|actual):/,
  /\berror(\[\w+\])?:|\berror TS\d|\bERR!|^npm error\b|^fatal:|^make: /,
  /\b(No such file or directory|command not found|Permission denied|not found|cannot|Cannot|could not|Could not|refused|denied)\b/,
  /^\d+:\d+\s+(error|warning)\s/, // eslint
  /\b\d+ (failed|failing|errors?|problems?)\b|\bfailures?=\d|^test result: FAILED/,
];

/** One line, trimmed and tidied: whitespace collapsed, durations and pytest's `E` margin dropped. */
function tidy(line: string): string {
  let t = line.replace(/\s+/g, ' ').trim();
  t = t.replace(/ \(\d+(\.\d+)?\s?m?s\)$/, '').replace(/ \d+(\.\d+)?ms$/, '');
  const header = /^_{3,} (.+?) _{3,}$/.exec(t); // pytest: ____ test_partial ____
  if (header) t = `FAILED ${header[1]}`;
  return t.length > LINE_MAX ? `${t.slice(0, LINE_MAX - 1)}…` : t;
}

/** True for a stack frame of a runtime or library (JS, Python, Rust, Go, JVM). */
export function isStackFrame(line: string): boolean {
  const t = line.replace(ANSI, '').trim();
  return FRAME.some((re) => re.test(t));
}

function isNoise(t: string): boolean {
  return NOISE.some((re) => re.test(t));
}

function isSalient(t: string): boolean {
  return SALIENT.some((re) => re.test(t));
}

/** A key for duplicate lines (runners print a failure inline and again in a summary). */
// Stryker disable next-line MethodExpression: upper- or lower-casing the key folds case alike
const keyOf = (t: string): string => t.replace(/^[^\w'"`]+/, '').toLowerCase();

interface Line {
  text: string;
  salient: boolean;
}

/** The readable lines of an output: frames, noise and a frame's own source line dropped. */
function readable(raw: string): Line[] {
  const src = raw.replace(ANSI, '').replace(/\r\n?/g, '\n').split('\n');
  const out: Line[] = [];
  let skipSource = false;
  for (let i = 0; i < src.length; i++) {
    const line = src[i] as string;
    const t = line.trim();
    if (skipSource) {
      skipSource = false;
      // The line after `File "…", line N` (and after a pytest `file.py:N: in fn`) is that frame's code.
      if (/^\s{2,}/.test(line) && !/^\s*(E|>)\s/.test(line)) continue;
    }
    if (isStackFrame(t)) {
      skipSource = PY_FRAME_FILE.test(t) || PY_FRAME_ENTRY.test(t);
      continue;
    }
    if (isNoise(t)) continue;
    let salient = isSalient(t);
    // eslint: the file header above its `line:col  error  message` rows names the file to read.
    // Stryker disable next-line StringLiteral: the last line has no next line, and no text but an eslint row changes it
    if (!salient && /^\S+\.\w+$/.test(t) && /^\s+\d+:\d+\s+(error|warning)\s/.test(src[i + 1] ?? '')) salient = true;
    // mocha: `1) suite` then the test's own title on the next, deeper line, ending in a colon.
    const prev = out.at(-1);
    if (!salient && prev && /^\d+\) \S/.test(prev.text) && /:$/.test(t)) salient = true;
    out.push({ text: tidy(line), salient });
  }
  return out;
}

/** Appends lines in order while they fit, skipping duplicates and lines too long for what is left. */
function fit(lines: readonly string[], max: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let used = 0;
  for (const l of lines) {
    const key = keyOf(l);
    if (seen.has(key)) continue;
    const cost = l.length + (out.length ? 1 : 0);
    if (used + cost > max) continue;
    seen.add(key);
    out.push(l);
    used += cost;
  }
  return out;
}

/**
 * The lines of `text` that name the cause of a failure, in their original order, at most `max`
 * characters: failing test names, assertion and expected/actual lines, exception and error lines and
 * failure summaries; never a runtime or library stack frame. When nothing looks like a cause (plain
 * output), the last readable lines instead. Redacted over the whole text before anything is cut.
 */
export function salientExcerpt(text: string, max = EXCERPT_MAX): string {
  const lines = readable(redact(text));
  const salient = lines.filter((l) => l.salient).map((l) => l.text);
  if (salient.length) return fit(salient, max).join('\n');
  return tailExcerpt(text, max);
}

/**
 * The last readable lines of `text` (frames and noise dropped), at most `max` characters: how far a
 * command got before it was stopped — what it wrote last, the prompt it waited on. Redacted first.
 */
export function tailExcerpt(text: string, max = EXCERPT_MAX): string {
  const lines = readable(redact(text)).map((l) => l.text);
  const picked: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i] as string;
    const cost = l.length + (picked.length ? 1 : 0);
    if (used + cost > max) {
      if (!picked.length) picked.unshift(`…${l.slice(-(max - 1))}`);
      break;
    }
    picked.unshift(l);
    used += cost;
  }
  return picked.join('\n');
}
