import { parse, patch } from '@decimalturn/toml-patch';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from './plan';

/**
 * TOML config files are read and edited with toml-patch, a maintained TOML 1.1 parser and editor that
 * keeps comments, whitespace and layout: a key is found wherever and however it is written (a quoted
 * key, after a multi-line string holding `[`, a multi-line array), never by matching lines.
 */

/** Bytes of text handed to the editor's patch so far (its cost grows faster than its text): tests count it. */
export const tomlWork = { patchedBytes: 0 };

function patchText(text: string, value: JsonObject): string {
  tomlWork.patchedBytes += text.length;
  return patch(text, value);
}

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
export function patchToml(file: string, before: string | null, value: JsonObject, current?: JsonObject): { ok: true; text: string } | { ok: false; message: string } {
  let text: string;
  try {
    text = (before && current && patchTopLevel(before, current, value)) || patchText(before ?? '', value);
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

/** Line starts that may open the first table; past this many tries the whole file is patched. */
const MAX_HEAD_TRIES = 20;
/** A head longer than this is not patched (the editor's patch grows faster than its text). */
const MAX_HEAD_BYTES = 64 * 1024;

const isTable = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The editor's patch grows faster than the file (a 100 000-line config took half a minute), while set-up
 * only ever changes top-level keys (`notify`). Those live before the first table, so only that head is
 * patched and the rest is kept as it is. Null when the change touches a table, or the head cannot be
 * told apart (the caller then patches the whole file; the result is checked either way).
 */
function patchTopLevel(before: string, current: JsonObject, value: JsonObject): string | null {
  const keys = new Set([...Object.keys(current), ...Object.keys(value)]);
  const changed = [...keys].filter((k) => !isDeepStrictEqual(current[k], value[k]));
  const holdsTable = (v: unknown): boolean => isTable(v) || (Array.isArray(v) && v.some(holdsTable));
  if (changed.some((k) => holdsTable(current[k]) || holdsTable(value[k]))) return null;
  // Keys only added: their lines are written by the editor alone and put in place as text (the caller
  // parses the result again): after the last line of a file without tables, else at its top. Linear
  // in the file, whatever the editor would cost on it.
  const onlyAdded = changed.every((k) => !(k in current) && value[k] !== undefined);
  const insert = (where: 'end' | 'top'): string => {
    const lines: JsonObject = {};
    for (const k of changed) lines[k] = value[k] as JsonObject[string];
    let text = patchText('', lines);
    if (!text.endsWith('\n')) text += '\n';
    if (where === 'end') return before + (before.endsWith('\n') ? '' : '\n') + text;
    const bom = before.startsWith('\uFEFF') ? '\uFEFF' : '';
    return bom + text + before.slice(bom.length);
  };
  const re = /^[ \t]*\[/gm;
  let tries = 0;
  let m = re.exec(before);
  if (!m && onlyAdded && before.length > MAX_HEAD_BYTES) return insert('end');
  for (; m; m = re.exec(before)) {
    if (++tries > MAX_HEAD_TRIES || m.index > MAX_HEAD_BYTES) return onlyAdded ? insert('top') : null;
    const head = before.slice(0, m.index);
    let headValue: JsonObject;
    try {
      headValue = parse(head) as JsonObject;
    } catch {
      continue; // inside a multi-line string or array: not a table yet
    }
    // The head holds every top-level key that is not a table: it is the whole top level.
    if (Object.keys(headValue).some((k) => isTable(headValue[k]))) return null;
    const next: JsonObject = {};
    // The keys in the order the caller wants them (a new one with the other top-level keys).
    for (const k of Object.keys(value)) if (k in headValue || changed.includes(k)) next[k] = value[k] as JsonObject[string];
    let out = patchText(head, next);
    if (out && !out.endsWith('\n')) out += '\n';
    // The blank line that parted the head from the tables stays.
    if (out && /(^|\n)[ \t]*\n$/.test(head) && !/\n[ \t]*\n$/.test(out)) out += '\n';
    return out + before.slice(m.index);
  }
  return null;
}
