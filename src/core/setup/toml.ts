import { parse, patch } from '@decimalturn/toml-patch';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from './plan';

/**
 * TOML config files are read and edited with toml-patch, a maintained TOML 1.1 parser and editor that
 * keeps comments, whitespace and layout: a key is found wherever and however it is written (a quoted
 * key, after a multi-line string holding `[`, a multi-line array), never by matching lines.
 */

export type TomlParse = { ok: true; value: JsonObject } | { ok: false; message: string; invalid: true };

/** The located message of a TOML parse error: `<file>:<line>: <what>`. */
function located(file: string, err: unknown): string {
  const e = err as { line?: unknown; message?: unknown };
  const text = typeof e?.message === 'string' ? e.message : String(err);
  const what = text.split('\n').filter((l) => l.trim()).pop() ?? 'invalid TOML';
  const line = typeof e?.line === 'number' ? e.line : Number(/\((\d+), \d+\)/.exec(text)?.[1]) || undefined;
  return `${file}${line ? `:${line}` : ''}: invalid TOML (${what.trim()})`;
}

/** Parses a TOML config file; an empty or missing file is an empty table. A key defined twice is an error. */
export function parseTomlFile(file: string, text: string | null): TomlParse {
  if (text === null || !text.trim()) return { ok: true, value: {} };
  try {
    return { ok: true, value: parse(text) as JsonObject };
  } catch (err) {
    return { ok: false, message: `${located(file, err)}; nothing was written`, invalid: true };
  }
}

/**
 * The text of `before` changed to hold exactly `value`, comments and layout kept. The result is parsed
 * again and refused (an error naming the file) when it is not valid TOML or does not hold `value`
 * (a key that would appear twice, a value the editor could not place).
 */
export function patchToml(file: string, before: string | null, value: JsonObject): { ok: true; text: string } | { ok: false; message: string } {
  let text: string;
  try {
    text = patch(before ?? '', value);
  } catch (err) {
    return { ok: false, message: `${file}: the change could not be made without breaking the file (${(err as Error)?.message ?? String(err)}); nothing was written` };
  }
  if (text && !text.endsWith('\n')) text += '\n';
  const again = parseTomlFile(file, text);
  if (!again.ok || !isDeepStrictEqual(JSON.parse(JSON.stringify(again.value)), JSON.parse(JSON.stringify(value)))) {
    return { ok: false, message: `${file}: the edited file would not be valid TOML with each key once; nothing was written. Please add the entries by hand.` };
  }
  return { ok: true, text };
}
