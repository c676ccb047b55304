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

/** Added lines matching a debug-print pattern, in code files only. */
export function findDebugPrints(lines: readonly AddedLine[], patterns: readonly RegExp[]): DebugHit[] {
  return lines
    .filter((l) => !NON_CODE.test(l.path) && patterns.some((re) => re.test(l.text)))
    // Redacted whole, before anything cuts it to a short quote.
    .map((l) => ({ path: l.path, line: l.line, text: redact(l.text.trim()) }));
}

const CODE_START = /^(def |class |return\b|if\b|elif\b|else\b|for\b|while\b|import |from \S+ import|const |let |var |function\b|async |await |print\(|console\.|try\b|except\b|catch\b|throw |raise\b|fn |pub |use |package |func )/;

/** The text after the comment marker, or null when the line is not a line comment. */
function commentBody(l: AddedLine): string | null {
  const t = l.text.trim();
  if (t.startsWith('//') && !t.startsWith('///')) return t.slice(2).trim();
  if (t.startsWith('#') && !t.startsWith('#!') && !HASH_IS_CODE.test(l.path)) return t.replace(/^#+/, '').trim();
  return null;
}

/** Whether a comment's text reads like code rather than prose. */
export function looksLikeCode(body: string): boolean {
  if (body === '') return false;
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
    const body = NON_CODE.test(l.path) ? null : commentBody(l);
    const prev = run.at(-1);
    const continues = prev !== undefined && prev.path === l.path && prev.line + 1 === l.line;
    if (body !== null && looksLikeCode(body)) {
      if (!continues) flush();
      run.push(l);
    } else {
      flush();
    }
  }
  flush();
  return hits;
}
