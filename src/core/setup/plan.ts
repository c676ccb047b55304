import { isDeepStrictEqual } from 'node:util';
import { parseJsonLocated } from '../artifacts/readJson';

/**
 * One change to an agent's config file, decided before anything is written: the exact text before
 * and after, and what happens to the backup. The editor shows `before`/`after` in a diff view and
 * asks; the command line prints the diff.
 */
export interface SetupPlan {
  file: string;
  /** The file's current text; null when it does not exist. */
  before: string | null;
  /** The text to write; null deletes the file (it did not exist before set-up). */
  after: string | null;
  /** The backup next to the file: written before the change (first set-up only), removed after an exact restore. */
  backupFile: string;
  writeBackup: string | null;
  removeBackup: boolean;
  /** Sentences for the user (what was kept, what could not be restored byte for byte). */
  notes: string[];
}

/** `invalid`: the file could not be read as settings (as opposed to a refusal to overwrite something). */
export type PlanResult = { ok: true; plan: SetupPlan; more?: SetupPlan[] } | { ok: false; message: string; invalid?: boolean };

/** Every file a successful result changes (Codex with hooks: hooks.json and config.toml). */
export const plansOf = (result: { plan: SetupPlan; more?: SetupPlan[] }): SetupPlan[] => [result.plan, ...(result.more ?? [])];

/** True when carrying out the plan would write and remove nothing. */
export const isNoop = (plan: SetupPlan): boolean => plan.before === plan.after && plan.writeBackup === null && !plan.removeBackup;

/** The backup of a config file: next to it, so a person finds it. */
export const backupFileOf = (file: string): string => `${file}.handoff-backup`;

/**
 * The plan that connects an agent: `after` replaces `before`; the first change keeps the state before it
 * in the backup, later runs never overwrite that. `unchanged` is said when there is nothing to do.
 */
export function connectPlan(
  input: { file: string; text: string | null; backupExists: boolean },
  after: string,
  notes: string[],
  unchanged: string,
): PlanResult {
  const change = after !== input.text;
  return {
    ok: true,
    plan: {
      file: input.file,
      before: input.text,
      after,
      backupFile: backupFileOf(input.file),
      writeBackup: change && input.text !== null && !input.backupExists ? input.text : null,
      removeBackup: false,
      notes: change ? notes : [unchanged],
    },
  };
}

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a JSON config file that must hold an object; errors name the file and line. */
export function parseObjectFile(file: string, text: string): { ok: true; value: JsonObject } | { ok: false; message: string; invalid: true } {
  if (!text.trim()) return { ok: true, value: {} };
  const parsed = parseJsonLocated(text);
  if (!parsed.ok) return { ok: false, message: `${file}${parsed.line ? `:${parsed.line}` : ''}: ${parsed.message}; nothing was written`, invalid: true };
  if (!isObject(parsed.value)) return { ok: false, message: `${file}: the settings must be a JSON object; nothing was written`, invalid: true };
  return { ok: true, value: parsed.value };
}

/** Serialises like the file was: its indent (two spaces by default) and a final newline. */
export function stringifyLike(value: unknown, original: string | null): string {
  const indent = original ? /^[{[]\s*\n([ \t]+)\S/.exec(original)?.[1] : undefined;
  return `${JSON.stringify(value, null, indent ?? 2)}\n`;
}

/**
 * The backup's value without the keys it held as `null` and the result lacks: set-up filled those in
 * (`"hooks": null` became our hooks) and removing ours leaves them out, so the backup's bytes — the
 * `null` included — are what comes back.
 */
function withoutFilledNulls(backup: unknown, result: JsonObject): unknown {
  if (!isObject(backup)) return backup;
  return Object.fromEntries(Object.entries(backup).filter(([k, v]) => !(v === null && !(k in result))));
}

/** The removal's text: the backup's exact bytes when the result equals it, else the result serialised. */
export function restoredText(result: JsonObject, current: string, backup: string | null): { text: string; exact: boolean } {
  if (backup !== null) {
    const b = parseJsonLocated(backup);
    if (b.ok && isDeepStrictEqual(withoutFilledNulls(b.value, result), result)) return { text: backup, exact: true };
  }
  return { text: stringifyLike(result, current), exact: false };
}

/**
 * The removal plan of a JSON settings file that held our entries and now holds `settings`: the file
 * goes when set-up created it and nothing else is left; the backup's exact bytes come back when they
 * hold the same; else the result is written in the file's indent and the backup is kept.
 */
export function jsonRemoval(input: { file: string; text: string; backup: string | null }, settings: JsonObject): PlanResult {
  const backupFile = backupFileOf(input.file);
  const notes: string[] = [];
  let after: string | null;
  let exact = false;
  if (input.backup === null && Object.keys(settings).length === 0) {
    after = null; // set-up created the file: removing leaves none
    exact = true;
  } else {
    const restored = restoredText(settings, input.text, input.backup);
    after = restored.text;
    exact = restored.exact;
    if (input.backup !== null && !exact) notes.push(`Your settings changed since set-up, so only Session Handoff's entries were removed; the backup ${backupFile} is kept.`);
  }
  return { ok: true, plan: { file: input.file, before: input.text, after, backupFile, writeBackup: null, removeBackup: input.backup !== null && exact, notes } };
}
