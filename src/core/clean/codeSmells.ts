import type { AddedLine } from '../gitPort';
import { redact } from '../redact';

/** Files whose added lines are prose or data, not code: debug patterns there are examples, not prints. */
const NON_CODE = /\.(md|markdown|mdx|txt|rst|adoc|json|jsonl|ya?ml|toml|lock|csv|tsv|log|svg|html?)$/i;
/** Languages where `#` starts a preprocessor line rather than a comment. */
const HASH_IS_CODE = /\.(c|h|cc|cpp|cxx|hpp|hh|m|mm|cs)$/i;

export interface DebugHit {
  path: string;
  line: number;
  text: string;
  /** `block`: it looks like debugging; `warn`: a print that may be intended output. */
  severity?: 'block' | 'warn';
}

/** A comment holding this on the line silences a debug-print or commented-out-code finding for it. */
export const IGNORE_MARKER = 'handoff-ignore';

/** Folders of command-line programs: what they print is their output, not debugging. */
const PROGRAM_DIR = /(^|\/)(scripts?|bin|cli)\//;

/** True for a file whose prints are a command-line program's output (by its folder or name). */
export function isProgramPath(p: string): boolean {
  return PROGRAM_DIR.test(p) || /(^|\/)__main__\.py$/.test(p);
}

/** True for source text of a command-line program: a shebang, or Python's `__main__` guard. */
export function isProgramSource(text: string): boolean {
  return text.startsWith('#!') || /^\s*if\s+__name__\s*==\s*['"]__main__['"]\s*:/m.test(text);
}

/** Statements that only a debugging session adds: never program output, wherever they are. */
const DEBUGGER = /^\s*debugger\s*;?\s*(?:\/[/*].*)?$|\bpdb\.set_trace\(|\bbreakpoint\(\)|\bdbg!\(|^\s*(binding\.pry|byebug)\b|\bconsole\.trace\s*\(/;
/** Words and shapes people put in a print while debugging. */
const DEBUG_MARKER = /\b(debug|DEBUG|here|HERE|XXX|xxx|wtf|WTF|TEMP|REMOVE ME)\b|>>>|<<<|!!!|\*\*\*|\{\w+(\.\w+)*=\}/;
/**
 * A print whose arguments are only names (`print(x)`, `console.log(a, b.c)`): a variable dump.
 * (`print` covers Java's `System.out.print` too.)
 */
const BARE_DUMP = /\b(print|console\.(log|debug)|fmt\.Print(ln|f)?|System\.(out|err)\.println|println!|pp)\s*[( ]\s*[A-Za-z_$][\w$.[\]'"]*(\s*,\s*[A-Za-z_$][\w$.[\]]*)*\s*\)?\s*;?\s*$/;
const JS_FILE = /\.[cm]?[jt]sx?$/;

/**
 * How a matched line reads: `block` when it looks like debugging (a debugger statement, a debug
 * marker, a bare variable dump, `console.log` in library code), `warn` when it may be intended output,
 * null when it is not a finding (a command-line program's output, or a line marked `handoff-ignore`).
 * In a program only a debugger statement blocks; a print with a debug marker there is doubtful.
 */
export function classifyDebugLine(text: string, filePath: string, isProgram: boolean): 'block' | 'warn' | null {
  if (text.includes(IGNORE_MARKER)) return null;
  if (DEBUGGER.test(text)) return 'block';
  const marked = DEBUG_MARKER.test(text);
  // A program prints its results, even bare variables; only a debug marker makes that doubtful.
  if (isProgram) return marked ? 'warn' : null;
  if (marked || BARE_DUMP.test(text)) return 'block';
  if (JS_FILE.test(filePath) && /\bconsole\.(log|debug)\s*\(/.test(text)) return 'block';
  return 'warn';
}

export interface CompiledPatterns {
  patterns: RegExp[];
  /** Patterns from the settings that are not valid regular expressions. */
  invalid: string[];
}

/** Compiles the debug-print patterns; an invalid one is reported, never thrown. */
export function compilePatterns(sources: readonly string[]): CompiledPatterns {
  const patterns: RegExp[] = [];
  const invalid: string[] = [];
  for (const src of sources) {
    try {
      patterns.push(new RegExp(src));
    } catch {
      invalid.push(src);
    }
  }
  return { patterns, invalid };
}

/**
 * Added lines matching a debug-print pattern, in code files only, each with how sure we are that it is
 * debugging. `programFiles` are files known to be command-line programs (a shebang, a `__main__` guard,
 * the package's `bin`); files under scripts/, bin/ and cli/ count too. Their plain prints are output.
 */
export function findDebugPrints(lines: readonly AddedLine[], patterns: readonly RegExp[], programFiles?: readonly string[]): DebugHit[] {
  const programs = new Set(programFiles);
  const hits: DebugHit[] = [];
  for (const l of lines) {
    if (NON_CODE.test(l.path) || !patterns.some((re) => re.test(l.text))) continue;
    const severity = classifyDebugLine(l.text, l.path, programs.has(l.path) || isProgramPath(l.path));
    // Redacted whole, before anything cuts it to a short quote.
    if (severity) hits.push({ path: l.path, line: l.line, text: redact(l.text.trim()), severity });
  }
  return hits;
}

const CODE_START = /^(def |class |return\b|if\b|elif\b|else\b|for\b|while\b|import |from \S+ import|const |let |var |function\b|async |await |print\(|console\.|try\b|except\b|catch\b|throw |raise\b|fn |pub |use |package |func )/;

/** The text after the comment marker, or null when the line is not a line comment. */
function commentBody(l: AddedLine): string | null {
  const t = l.text.trim();
  if (t.startsWith('//') && !t.startsWith('///')) return t.slice(2).trim();
  if (HASH_IS_CODE.test(l.path)) return null;
  // Stryker disable next-line ConditionalExpression,MethodExpression: a shebang never reads like code, so without this line nothing would change; it says what the line is
  if (t.startsWith('#!')) return null;
  const hash = /^#+(.*)/.exec(t);
  return hash ? (hash[1] as string).trim() : null;
}

/** Whether a comment's text reads like code rather than prose. */
export function looksLikeCode(body: string): boolean {
  if (CODE_START.test(body)) return true;
  if (/[;{}]$/.test(body) || /^[)}\]]/.test(body)) return true;
  if (/^[\w.[\]'"]+\s*(=|\+=|-=)\s*\S/.test(body) && !/^\w+\s*=\s*[A-Z][a-z]+ [a-z]/.test(body)) return true;
  if (/^[\w.]+\(.*\)[;,]?$/.test(body)) return true;
  if (/:$/.test(body) && /^(if|for|while|def|class|with|else|elif|try|except)\b/.test(body)) return true;
  return false;
}

/**
 * Commented-out code blocks: at least `minRun` consecutive added comment lines in one file that all
 * read like code. Prose comments (even long ones) are not flagged.
 */
export function findCommentedOutBlocks(lines: readonly AddedLine[], minRun = 3): DebugHit[] {
  const hits: DebugHit[] = [];
  let run: AddedLine[] = [];
  const flush = (): void => {
    if (run.length >= minRun) {
      const first = run[0] as AddedLine;
      hits.push({ path: first.path, line: first.line, text: `${run.length} commented-out lines` });
    }
    run = [];
  };
  for (const l of lines) {
    const body = NON_CODE.test(l.path) || l.text.includes(IGNORE_MARKER) ? null : commentBody(l);
    if (body === null || !looksLikeCode(body)) continue;
    // Any other line between two (prose, code, a blank) leaves a gap in the numbering, and so ends the run.
    const prev = run.at(-1);
    if (!(prev !== undefined && prev.path === l.path && prev.line + 1 === l.line)) flush();
    run.push(l);
  }
  flush();
  return hits;
}
