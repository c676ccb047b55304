import { displayCommand } from '../artifacts/commands';
import { redact } from '../redact';

/** Raw output kept per command before redaction: larger than the excerpt by more than any secret. */
export const RAW_TAIL_CHARS = 12_000;
/** Excerpt kept after redaction. */
export const STDOUT_TAIL_CHARS = 4_000;
export const STDERR_TAIL_CHARS = 2_000;
/** Commands, requests and messages are cut to this many characters (after redaction). */
export const MAX_TEXT_CHARS = 2_000;

/** The last `n` characters. */
export function tail(text: string, n: number): string {
  return text.length > n ? text.slice(text.length - n) : text;
}

/**
 * The first sentence of a text: up to the first `.`, `!` or `?` followed by a space or the end (not
 * inside a `code span` such as `a.b`), else the first line; at most 240 characters.
 */
export function firstSentence(text: string): string | null {
  const line = text.trim().split('\n').map((l) => l.trim()).find(Boolean);
  if (!line) return null;
  let inCode = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '`') inCode = !inCode;
    else if (!inCode && (ch === '.' || ch === '!' || ch === '?') && (i + 1 === line.length || line[i + 1] === ' ')) {
      return cut(line.slice(0, i + 1), 240);
    }
  }
  return cut(line, 240);
}

/** At most `n` characters, `…` marking a cut. Redacted first: a cut never leaves part of a secret. */
export function cut(text: string, n: number): string {
  const t = redact(text);
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/**
 * The command a shell argv runs: `bash -lc X` / `zsh -c X` / `sh -c X` is `X`; any other argv is
 * joined for display (arguments with spaces quoted).
 */
export function commandOfArgv(argv: readonly string[]): string {
  const shell = argv[0] ? argv[0].replace(/^.*\//, '') : '';
  if (argv.length === 3 && /^(ba|z|da|k|fi)?sh$/.test(shell) && /^-[a-z]*c[a-z]*$/.test(argv[1] ?? '')) return (argv[2] ?? '').trim();
  return displayCommand([...argv]);
}

/** `bash -lc 'X'` written as one string reads as `X` too. */
export function unwrapShellString(command: string): string {
  const m = /^\s*(?:\/\S*\/)?(?:ba|z|da|k)?sh\s+-[a-z]*c[a-z]*\s+(['"])([\s\S]*)\1\s*$/.exec(command);
  if (!m) return command.trim();
  const inner = m[2] ?? '';
  return (m[1] === "'" ? inner.replace(/'\\''/g, "'") : inner.replace(/\\(["\\$`])/g, '$1')).trim();
}

/** The files an apply_patch envelope adds, updates, deletes or moves to (paths as written). */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  const re = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+?)\s*$/gm;
  for (let m = re.exec(patch); m; m = re.exec(patch)) if (m[1]) out.push(m[1]);
  return out;
}

/** True when a shell command is really an apply_patch call (an edit, not a command). */
export function isApplyPatchCommand(command: string): boolean {
  return /^\s*(?:apply_patch|applypatch)\b/.test(command) && command.includes('*** Begin Patch');
}

/** Milliseconds between two ISO times, or null. */
export function durationBetween(from: string | null, to: string | null): number | null {
  if (!from || !to) return null;
  const a = Date.parse(from);
  const b = Date.parse(to);
  return Number.isNaN(a) || Number.isNaN(b) || b < a ? null : b - a;
}

/** The text of a content value that is a string or an array of `{type:'text'|'input_text'|'output_text', text}` parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const p of content) {
    if (p && typeof p === 'object') {
      const o = p as Record<string, unknown>;
      if (typeof o['text'] === 'string' && (o['type'] === 'text' || o['type'] === 'input_text' || o['type'] === 'output_text')) parts.push(o['text']);
    }
  }
  return parts.join('\n');
}

/**
 * A text whole up to `n` characters; past that, cut at the last space before the bound (never inside
 * a word, unless one word fills most of it) and marked with `…`. `omitted` counts what was left out.
 */
export function cutAtWord(whole: string, n: number): { text: string; omitted: number } {
  // Redacted first: a cut never leaves part of a secret (nor a cut secret reading as a placeholder).
  const text: string = redact(whole);
  if (text.length <= n) return { text, omitted: 0 };
  let end = n - 1;
  const space = text.slice(0, end + 1).search(/\s\S*$/);
  if (space > n / 2) end = space;
  // Never split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  const kept = text.slice(0, end).trimEnd();
  return { text: `${kept}…`, omitted: text.length - kept.length };
}
