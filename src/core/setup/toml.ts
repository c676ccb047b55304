import { parse, patch } from '@decimalturn/toml-patch';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from './plan';

/**
 * TOML config files are read and edited with toml-patch, a maintained TOML 1.1 parser and editor that
 * keeps comments, whitespace and layout: a key is found wherever and however it is written (a quoted
 * key, after a multi-line string holding `[`, a multi-line array), never by matching lines.
 */

/**
 * Bytes of text handed to the editor's patch (its cost grows faster than its text) and to its parser
 * so far: tests count them.
 */
export const tomlWork = { patchedBytes: 0, parsedBytes: 0 };

function patchText(text: string, value: JsonObject): string {
  tomlWork.patchedBytes += text.length;
  return patch(text, value);
}

function parseText(text: string): JsonObject {
  tomlWork.parsedBytes += text.length;
  return parse(text) as JsonObject;
}

/**
 * The text each value parseTomlFile returned was read from. Such a value is frozen throughout, so it
 * cannot come to differ from its text, and holds only plain tables, arrays and scalars (a date object
 * could still be changed). An edit that puts text of set-up's beside such a text is checked from the
 * parts: the added text is parsed on its own.
 */
const readFrom = new WeakMap<object, string>();

/**
 * The text set-up verified last, with what it holds: the next step reads that file back (Codex keeps
 * its notify and the MCP server in one config.toml). Kept a while only, so a large config is not held
 * in memory after set-up.
 */
let lastVerified: { text: string; value: JsonObject } | null = null;
const LAST_VERIFIED_MS = 30_000;

function remember(text: string, value: JsonObject): void {
  readFrom.set(value, text);
  const entry = { text, value };
  lastVerified = entry;
  setTimeout(() => {
    if (lastVerified === entry) lastVerified = null;
  }, LAST_VERIFIED_MS).unref?.();
}

/** Freezes a value just parsed, throughout; true when it holds only plain tables, arrays and scalars. */
function freezePlain(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  let plain = Array.isArray(v) || proto === null || proto === Object.prototype;
  Object.freeze(v);
  for (const k of Object.keys(v)) if (!freezePlain((v as JsonObject)[k])) plain = false;
  return plain;
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

/**
 * Parses a TOML config file; an empty or missing file is an empty table. A key defined twice is an
 * error. The value is frozen (copy it to change it).
 */
export function parseTomlFile(file: string, text: string | null): TomlParse {
  if (text === null || !text.trim()) return { ok: true, value: {} };
  if (lastVerified?.text === text) return { ok: true, value: lastVerified.value };
  try {
    const value = parseText(text);
    if (freezePlain(value)) readFrom.set(value, text);
    return { ok: true, value };
  } catch (err) {
    return { ok: false, message: `${located(file, err)}; nothing was written`, invalid: true };
  }
}

/**
 * An edit that leaves a text of the user's as it is and puts text of set-up's before or after it:
 * `kept`, whose value `keptValue` is known, and `added`, each ending with a newline.
 */
interface Join {
  added: string;
  kept: string;
  keptValue: JsonObject;
  addedFirst: boolean;
}

/** A line that may open a table (`[table]`, `[[array]]`), or a line inside a multi-line value. */
const TABLE_LINE = /^[ \t]*\[/m;
/** Text whose first line that is not blank or a comment opens a table. */
const OPENS_TABLE = /^(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*\[/;

const isTable = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
const holdsTable = (v: unknown): boolean => isTable(v) || (Array.isArray(v) && v.some(holdsTable));
const withNewline = (text: string): string => (text && !text.endsWith('\n') ? `${text}\n` : text);
/** A value as JSON has it (dates as strings, no undefined), for comparing. */
const plainJson = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * What the joined text holds, worked out from its parts with only the added text parsed; null when
 * that cannot be told (the whole text is parsed instead). Two complete TOML texts, the first ending
 * with a newline, read as one hold both texts' keys when no top-level key is in both and the second
 * is read as on its own: it opens with a table header, or the first has no table header (its last
 * keys are top-level keys, not a table's).
 */
function joinedValue(join: Join): JsonObject | null {
  const [first, second] = join.addedFirst ? [join.added, join.kept] : [join.kept, join.added];
  if (first && !first.endsWith('\n')) return null;
  let added: JsonObject;
  try {
    added = parseText(join.added);
  } catch {
    return null;
  }
  if (!freezePlain(added)) return null;
  const firstHasNoTable = join.addedFirst ? !Object.values(added).some(holdsTable) : !TABLE_LINE.test(join.kept);
  if (!OPENS_TABLE.test(second) && !firstHasNoTable) return null;
  const out = Object.create(null) as JsonObject;
  for (const k of Object.keys(join.keptValue)) out[k] = join.keptValue[k];
  for (const k of Object.keys(added)) {
    if (k in out) return null; // a key in both: the whole text says whether that is valid and what it holds
    out[k] = added[k];
  }
  return Object.freeze(out);
}

/** True when `a` holds exactly `b`'s keys and values (the same part of a parse result, or equal as JSON). */
function sameValue(a: JsonObject, b: JsonObject): boolean {
  const keys = Object.keys(b).filter((k) => b[k] !== undefined);
  if (keys.length !== Object.keys(a).length) return false;
  return keys.every((k) => k in a && (a[k] === b[k] || isDeepStrictEqual(plainJson(a[k]), plainJson(b[k]))));
}

/**
 * True when `text` is valid TOML holding exactly `value` (each key once). An edit that added text to a
 * text parseTomlFile read is checked from its parts; any other, or one whose parts cannot tell, by
 * parsing the whole text.
 */
function holdsExactly(text: string, value: JsonObject, join: Join | null): boolean {
  if (join) {
    const [first, second] = join.addedFirst ? [join.added, join.kept] : [join.kept, join.added];
    const joined = text.length === first.length + second.length && text.startsWith(first) && text.endsWith(second) ? joinedValue(join) : null;
    if (joined && sameValue(joined, value)) {
      remember(text, joined);
      return true;
    }
  }
  const again = parseTomlFile('', text);
  if (!again.ok || !isDeepStrictEqual(plainJson(again.value), plainJson(value))) return false;
  if (readFrom.get(again.value) === text) remember(text, again.value);
  return true;
}

/**
 * The text of `before` changed to hold exactly `value`, comments and layout kept. The result is checked
 * and refused (an error naming the file) when it is not valid TOML or does not hold `value` (a key that
 * would appear twice, a value the editor could not place). `current` is what `before` holds: when it
 * is parseTomlFile's value of `before`, a change to the top-level keys is checked without parsing the
 * whole file again.
 */
export function patchToml(file: string, before: string | null, value: JsonObject, current?: JsonObject): { ok: true; text: string } | { ok: false; message: string } {
  let text: string;
  let join: Join | null = null;
  try {
    const top = before && current ? patchTopLevel(before, current, value) : null;
    if (top?.text) {
      text = top.text;
      join = readFrom.get(current!) === before ? top.join : null;
    } else {
      text = patchText(before ?? '', value);
    }
  } catch (err) {
    return { ok: false, message: `${file}: the change could not be made without breaking the file (${(err as Error)?.message ?? String(err)}); nothing was written` };
  }
  text = withNewline(text);
  if (!holdsExactly(text, value, join)) {
    return { ok: false, message: `${file}: the edited file would not be valid TOML with each key once; nothing was written. Please add the entries by hand.` };
  }
  return { ok: true, text };
}

/**
 * `table` (set-up's own, opening with its header) appended to `before` after a blank line, when the
 * result holds exactly `value`; else null. With `current` parseTomlFile's value of `before`, only the
 * table is parsed.
 */
export function appendToml(before: string | null, current: JsonObject, table: string, value: JsonObject): string | null {
  const text = before ?? '';
  const kept = withNewline(text);
  const added = `${text.trim() ? '\n' : ''}${table}`;
  const join = text && readFrom.get(current) === text ? { added, kept, keptValue: current, addedFirst: false } : null;
  return holdsExactly(kept + added, value, join) ? kept + added : null;
}

/** Line starts that may open the first table; past this many tries the whole file is patched. */
const MAX_HEAD_TRIES = 20;
/** A head longer than this is not patched (the editor's patch grows faster than its text). */
const MAX_HEAD_BYTES = 64 * 1024;

/**
 * The editor's patch grows faster than the file (a 100 000-line config took half a minute), while set-up
 * only ever changes top-level keys (`notify`). Those live before the first table, so only that head is
 * patched and the rest is kept as it is. Null when the change touches a table, or the head cannot be
 * told apart (the caller then patches the whole file; the result is checked either way). The join says
 * which part is new and what the kept part holds, given that `current` is what `before` holds.
 */
function patchTopLevel(before: string, current: JsonObject, value: JsonObject): { text: string; join: Join } | null {
  const keys = new Set([...Object.keys(current), ...Object.keys(value)]);
  const changed = [...keys].filter((k) => current[k] !== value[k] && !isDeepStrictEqual(current[k], value[k]));
  if (changed.some((k) => holdsTable(current[k]) || holdsTable(value[k]))) return null;
  // Keys only added: their lines are written by the editor alone and put in place as text: after the
  // last line of a file without tables, else at its top. Linear in the file, whatever the editor would
  // cost on it.
  const onlyAdded = changed.every((k) => !(k in current) && value[k] !== undefined);
  const insert = (where: 'end' | 'top'): { text: string; join: Join } => {
    const lines: JsonObject = {};
    for (const k of changed) lines[k] = value[k] as JsonObject[string];
    const block = withNewline(patchText('', lines));
    if (where === 'end') {
      const kept = withNewline(before);
      return { text: kept + block, join: { added: block, kept, keptValue: current, addedFirst: false } };
    }
    const bom = before.startsWith('\uFEFF') ? '\uFEFF' : '';
    const kept = withNewline(before.slice(bom.length));
    return { text: bom + block + kept, join: { added: bom + block, kept, keptValue: current, addedFirst: true } };
  };
  const re = /^[ \t]*\[/gm;
  let tries = 0;
  let m = re.exec(before);
  if (!m && onlyAdded && before.length > MAX_HEAD_BYTES) return insert('end');
  for (; m; m = re.exec(before)) {
    if (++tries > MAX_HEAD_TRIES || m.index > MAX_HEAD_BYTES) return onlyAdded ? insert('top') : null;
    if (m.index > 0 && before[m.index - 1] !== '\n') continue; // after a lone CR or a line separator: not a TOML line
    const head = before.slice(0, m.index);
    let headValue: JsonObject;
    try {
      headValue = parseText(head);
    } catch {
      continue; // inside a multi-line string or array: not a table yet
    }
    // The head holds every top-level key that is not a table: it is the whole top level.
    if (Object.keys(headValue).some((k) => isTable(headValue[k]))) return null;
    const next: JsonObject = {};
    // The keys in the order the caller wants them (a new one with the other top-level keys).
    for (const k of Object.keys(value)) if (k in headValue || changed.includes(k)) next[k] = value[k] as JsonObject[string];
    let out = withNewline(patchText(head, next));
    // The blank line that parted the head from the tables stays.
    if (out && /(^|\n)[ \t]*\n$/.test(head) && !/\n[ \t]*\n$/.test(out)) out += '\n';
    // The rest, from the first table on, is read as on its own (the head is complete and ends with a
    // newline) and holds the top-level keys the head does not (a key in both would not have parsed).
    const kept = withNewline(before.slice(m.index));
    const keptValue: JsonObject = {};
    for (const k of Object.keys(current)) if (!(k in headValue)) keptValue[k] = current[k];
    return { text: out + kept, join: { added: out, kept, keptValue, addedFirst: true } };
  }
  return null;
}
