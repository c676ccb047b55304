import { createHash } from 'node:crypto';
import type { ZodError, ZodType, ZodTypeDef } from 'zod';
import { stripControlDeep } from '../controlChars';
import type { Diagnostic } from '../diagnostics';
import type { OpenOptions } from '../fsx';
import { readRegular } from '../fsx';
import type { ArtifactSource } from './snapshot';

/** JSON artifacts are small; anything bigger is almost certainly not what the agent meant to write. */
export const MAX_JSON_BYTES = 5 * 1024 * 1024;

export type ReadResult<T> =
  | { kind: 'missing' }
  | { kind: 'ok'; value: T; source: ArtifactSource; /** The decoded text, to locate a secret's line. */ text?: string }
  | { kind: 'bad'; diagnostic: Diagnostic; source?: ArtifactSource };

/** 1-based line of a character offset. */
export function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes bytes as strict UTF-8 and refuses NUL bytes, so binary garbage is named as such. */
export function decodeText(bytes: Uint8Array): { ok: true; text: string } | { ok: false; message: string } {
  if (bytes.includes(0)) return { ok: false, message: 'binary content (NUL bytes), not JSON text' };
  try {
    return { ok: true, text: strictUtf8.decode(bytes).replace(/^\uFEFF/, '') };
  } catch {
    return { ok: false, message: 'binary content (invalid UTF-8), not JSON text' };
  }
}

/**
 * The end of V8's located messages: "… in JSON at position 14", "… after JSON at position 9", since
 * Node 22 followed by " (line 3 column 3)" (lines that also count a lone CR). Anchored at the end, so
 * that input quoted in a message cannot pass for a location.
 */
const AT_POSITION = /(?: in JSON)? at position (\d+)(?: \(line (\d+) column \d+\))?$/;
/**
 * V8 quotes a few characters of the input ("Unexpected token 'x', ..."…"... is not valid JSON"): a cut
 * piece of text no redaction can judge, so it is left out.
 */
const QUOTED_INPUT = /, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON/;

/**
 * How deep a JSON value the tool takes: the artifacts and records nest a few levels, and every walk over
 * a value (control characters, redaction, validation, serialising) is recursive. Deeper is refused.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * The offset of the first bracket that opens level `limit + 1` (outside strings), or -1. A quick count
 * of brackets first: a text with fewer of them than the limit cannot nest that deep, whatever its size.
 */
export function tooDeepAt(text: string, limit = MAX_JSON_DEPTH): number {
  let brackets = 0;
  for (const open of ['[', '{']) {
    for (let at = text.indexOf(open); at !== -1 && brackets <= limit; at = text.indexOf(open, at + 1)) brackets++;
  }
  if (brackets <= limit) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/**
 * JSON.parse with the error turned into a located message. A value nested deeper than
 * {@link MAX_JSON_DEPTH} is refused with the line where it gets too deep, before it is built.
 */
export function parseJsonLocated(text: string): { ok: true; value: unknown } | { ok: false; line?: number; message: string } {
  const deep = tooDeepAt(text);
  if (deep !== -1) return { ok: false, line: lineAt(text, deep), message: `invalid JSON: nested more than ${MAX_JSON_DEPTH} levels deep` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const msg = (err as Error).message;
    const at = AT_POSITION.exec(msg);
    if (at) return { ok: false, line: at[2] ? Number(at[2]) : lineAt(text, Number(at[1])), message: `invalid JSON: ${msg.slice(0, at.index)}` };
    return { ok: false, line: undefined, message: `invalid JSON: ${msg.replace(QUOTED_INPUT, ' (not valid JSON)')}` };
  }
}

/** The engine's words of a failed `parseJsonLocated`, with its line, for a message of the caller's own. */
export function jsonErrorDetail(failed: { line?: number; message: string }): string {
  const words = failed.message.slice('invalid JSON: '.length);
  return failed.line === undefined ? words : `line ${failed.line}: ${words}`;
}

/** A zod error as one short message naming the field, located at the field's key where we can find it. */
export function zodMessage(error: ZodError, text?: string): { line?: number; message: string } {
  const issue = error.issues[0];
  if (!issue) return { message: 'does not match the expected shape' };
  const field = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, '') : '(root)';
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : '';
  const lastKey = [...issue.path].reverse().find((p): p is string => typeof p === 'string');
  let line: number | undefined;
  if (text && lastKey) {
    const at = text.indexOf(`"${lastKey}"`);
    if (at !== -1) line = lineAt(text, at);
  }
  return { line, message: `field \`${field}\`: ${issue.message}${more}` };
}

/**
 * Reads one JSON artifact: size cap, binary check, empty check, JSON parse, zod validation — each
 * failure a located diagnostic, never an exception. `file` is the path shown to the user. FIFOs, devices
 * and (with `opts.root`) symlinks leaving the root are refused without reading them (see `readRegular`).
 */
export async function readJsonArtifact<T>(abs: string, file: string, schema: ZodType<T, ZodTypeDef, unknown>, opts: OpenOptions = {}): Promise<ReadResult<T>> {
  const read = await readRegular(abs, { ...opts, maxBytes: MAX_JSON_BYTES });
  if (!read.ok) {
    if (read.refusal.kind === 'missing') return { kind: 'missing' };
    const message = read.refusal.message.replace('limit; skipped', 'limit for JSON artifacts; skipped');
    return { kind: 'bad', diagnostic: { file, message } };
  }
  const bytes = read.bytes;
  const source: ArtifactSource = { file, sha256: createHash('sha256').update(bytes).digest('hex') };
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { kind: 'bad', source, diagnostic: { file, line: 1, message: decoded.message } };
  if (decoded.text.trim() === '') return { kind: 'bad', source, diagnostic: { file, line: 1, message: 'is empty' } };
  const parsed = parseJsonLocated(decoded.text);
  if (!parsed.ok) return { kind: 'bad', source, diagnostic: { file, line: parsed.line, message: parsed.message } };
  const checked = schema.safeParse(stripControlDeep(parsed.value));
  if (!checked.success) {
    const z = zodMessage(checked.error, decoded.text);
    return { kind: 'bad', source, diagnostic: { file, line: z.line, message: z.message } };
  }
  return { kind: 'ok', value: checked.data, source, text: decoded.text };
}
