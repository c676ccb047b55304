import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject, PlanResult } from './plan';
import { backupFileOf, connectPlan } from './plan';
import { parseTomlFile, patchToml } from './toml';

/** The launcher's file name: `handoff` on PATH, or the one the editor keeps (`handoff`, `handoff.cmd`). */
const LAUNCHER_NAME = /^handoff(\.cmd)?$/i;

/** True when a `notify` value is exactly what set-up writes: `["<…/handoff>", "notify"]`. */
export function isOurNotify(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    typeof value[0] === 'string' &&
    LAUNCHER_NAME.test(path.basename(value[0].replace(/\\/g, '/'))) &&
    value[1] === 'notify'
  );
}

export interface CodexSetupInput {
  /** `~/.codex/config.toml` or `$CODEX_HOME/config.toml`. */
  file: string;
  text: string | null;
  /** The program and its arguments, e.g. `["handoff", "notify"]` or the editor's launcher. Not run through a shell. */
  argv: string[];
  backupExists: boolean;
}

/**
 * Adds Codex CLI's legacy hook, a top-level `notify` program, through the TOML editor (comments and
 * layout kept). A `notify` that is not ours is never replaced — Codex takes only one — so that case is
 * refused with what to do instead; ours (under any spelling of the key) is updated in place.
 */
export function planCodexSetup(input: CodexSetupInput): PlanResult {
  const parsed = parseTomlFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const config = parsed.value;
  const current = config['notify'];
  if (current !== undefined && !isOurNotify(current)) {
    return {
      ok: false,
      message: `${input.file} already has a notify program (notify = ${JSON.stringify(current)}); Codex runs only one, so it was left as it is. Call \`${input.argv.join(' ')} '<payload>'\` from your program instead. Nothing was written.`,
    };
  }
  if (isDeepStrictEqual(current, input.argv)) return connectPlan(input, input.text ?? '', [], 'Codex CLI is already connected; nothing to change.');
  // A new key goes with the other top-level keys, before the first table.
  const next: JsonObject = current === undefined ? { notify: input.argv, ...config } : { ...config, notify: input.argv };
  const edited = patchToml(input.file, input.text, next);
  if (!edited.ok) return edited;
  return connectPlan(input, edited.text, [], 'Codex CLI is already connected; nothing to change.');
}

/**
 * Takes our `notify` out again (its comment goes with it); the backup's exact bytes come back when the
 * rest equals it, and the file goes when set-up created it and nothing else was added. With nothing of
 * ours in it, the file is not touched.
 */
export function planCodexRemove(input: { file: string; text: string | null; backup: string | null }): PlanResult {
  const backupFile = backupFileOf(input.file);
  const none = { file: input.file, before: input.text, after: input.text, backupFile, writeBackup: null, removeBackup: false };
  if (input.text === null) return { ok: true, plan: { ...none, notes: ['There is no Codex CLI config to change.'] } };
  const parsed = parseTomlFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  if (!isOurNotify(parsed.value['notify'])) return { ok: true, plan: { ...none, notes: ['Session Handoff is not in this config; nothing to remove.'] } };
  const rest = { ...parsed.value };
  delete rest['notify'];
  return removalPlan(input, rest);
}

/** The plan that leaves `rest` in a TOML file: the backup's bytes when they hold it, none when empty and set-up made the file. */
export function removalPlan(input: { file: string; text: string | null; backup: string | null }, rest: JsonObject): PlanResult {
  const backupFile = backupFileOf(input.file);
  const none = { file: input.file, before: input.text, after: input.text, backupFile, writeBackup: null, removeBackup: false };
  const fromBackup = input.backup === null ? null : parseTomlFile(input.file, input.backup);
  if (input.backup !== null && fromBackup?.ok && isDeepStrictEqual(JSON.parse(JSON.stringify(fromBackup.value)), JSON.parse(JSON.stringify(rest)))) {
    return { ok: true, plan: { ...none, after: input.backup, removeBackup: true, notes: [] } };
  }
  const edited = patchToml(input.file, input.text, rest);
  if (!edited.ok) return edited;
  if (input.backup === null && !edited.text.trim()) return { ok: true, plan: { ...none, after: null, notes: [] } };
  return {
    ok: true,
    plan: {
      ...none,
      after: edited.text,
      notes: input.backup !== null ? [`Your config changed since set-up, so only Session Handoff's entries were removed; the backup ${backupFile} is kept.`] : [],
    },
  };
}
