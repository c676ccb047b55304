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
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
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

/** JSON.parse with the error turned into a located message. */
export function parseJsonLocated(text: string): { ok: true; value: unknown } | { ok: false; line?: number; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const msg = (err as Error).message;
    const lc = /line (\d+) column \d+/.exec(msg);
    const pos = /position (\d+)/.exec(msg);
    const line = lc ? Number(lc[1]) : pos ? lineAt(text, Number(pos[1])) : undefined;
    // V8 quotes a few characters of the input ("…" is not valid JSON): a cut piece of text no
    // redaction can judge, so it is left out.
    const short = msg
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+.*$/, '')
      .replace(/,\s*"[\s\S]*"\s*is not valid JSON$/, ' (not valid JSON)');
    return { ok: false, line, message: `invalid JSON: ${short}` };
  }
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
    if (at >= 0) line = lineAt(text, at);
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
    const message = read.refusal.message.replace(/limit; skipped$/, 'limit for JSON artifacts; skipped');
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
