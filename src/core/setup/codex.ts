import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { HookSpec } from './hookEntries';
import { mergeHooks, removeOurHooks } from './hookEntries';
import type { JsonObject, PlanResult, SetupPlan } from './plan';
import { backupFileOf, connectPlan, isNoop, isObject, jsonRemoval, parseObjectFile, stringifyLike } from './plan';
import { CODEX_SESSION_END_MAX_S, codexHookTrust } from './codexTrust';
import { SESSION_END_TIMEOUT_S } from './hookEntries';
import { parseTomlFile, patchToml } from './toml';

/** The launcher's file name: `handoff` on PATH, or the one the editor keeps (`handoff`, `handoff.cmd`). */
const LAUNCHER_NAME = /^handoff(\.cmd)?$/i;

/** The flag that hands `handoff notify` the user's own notify program, run first with the same payload. */
export const NOTIFY_CHAIN_FLAG = '--chain-json';

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');

/** The user's own notify program a `notify` value of ours chains, if any. */
export function chainedNotify(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length !== 4 || value[2] !== NOTIFY_CHAIN_FLAG || typeof value[3] !== 'string') return undefined;
  try {
    const argv: unknown = JSON.parse(value[3]);
    return isStringList(argv) ? argv : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when a `notify` value is exactly what set-up writes: `["<…/handoff>", "notify"]`, or with the
 * user's own program chained: `["<…/handoff>", "notify", "--chain-json", "[\"my-notifier\"]"]`.
 */
export function isOurNotify(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    (value.length === 2 || chainedNotify(value) !== undefined) &&
    typeof value[0] === 'string' &&
    LAUNCHER_NAME.test(path.basename(value[0].replace(/\\/g, '/'))) &&
    value[1] === 'notify'
  );
}

/** The config without our notify: the user's own program back in its place when ours chained it. */
function withoutOurNotify(config: JsonObject): JsonObject {
  const rest = { ...config };
  const theirs = chainedNotify(rest['notify']);
  if (theirs) rest['notify'] = theirs;
  else delete rest['notify'];
  return rest;
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
 * layout kept). Codex runs only one notify program, so one of the user's own is chained: ours runs it
 * first with the same payload (`--chain-json`), and `--remove` puts it back. Ours (under any spelling
 * of the key) is updated in place; a notify that is not a list of strings is refused.
 */
export function planCodexSetup(input: CodexSetupInput): PlanResult {
  const parsed = parseTomlFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const config = parsed.value;
  const current = config['notify'];
  const notes: string[] = [];
  let theirs = chainedNotify(current);
  if (current !== undefined && !isOurNotify(current)) {
    if (!isStringList(current)) {
      return {
        ok: false,
        message: `${input.file} already has a notify program (notify = ${JSON.stringify(current)}) that is not a list of strings, so it cannot be chained; it was left as it is. Call \`${input.argv.join(' ')} '<payload>'\` from your program instead. Nothing was written.`,
      };
    }
    theirs = current;
    notes.push(`Your notify program (${current.join(' ')}) is kept: it runs first, with the same payload, through ${NOTIFY_CHAIN_FLAG}.`);
  }
  const wanted = theirs ? [...input.argv, NOTIFY_CHAIN_FLAG, JSON.stringify(theirs)] : input.argv;
  if (isDeepStrictEqual(current, wanted)) return connectPlan(input, input.text ?? '', [], 'Codex CLI is already connected; nothing to change.');
  // A new key goes with the other top-level keys, before the first table.
  const next: JsonObject = current === undefined ? { notify: wanted, ...config } : { ...config, notify: wanted };
  const edited = patchToml(input.file, input.text, next, config);
  if (!edited.ok) return edited;
  return connectPlan(input, edited.text, notes, 'Codex CLI is already connected; nothing to change.');
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
  return removalPlan(input, withoutOurNotify(parsed.value), parsed.value);
}

/** config.toml without what set-up put there: our notify, and `[features] hooks` as it was before set-up. */
function planCodexConfigRemove(input: { file: string; text: string | null; backup: string | null }): PlanResult {
  if (input.text === null) return planCodexRemove(input);
  const parsed = parseTomlFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const rest = withoutHooksFeature(isOurNotify(parsed.value['notify']) ? withoutOurNotify(parsed.value) : parsed.value, input.backup, input.file);
  if (isDeepStrictEqual(rest, parsed.value)) return planCodexRemove(input);
  return removalPlan(input, rest);
}

/** The plan that leaves `rest` in a TOML file: the backup's bytes when they hold it, none when empty and set-up made the file. */
export function removalPlan(input: { file: string; text: string | null; backup: string | null }, rest: JsonObject, current?: JsonObject): PlanResult {
  const backupFile = backupFileOf(input.file);
  const none = { file: input.file, before: input.text, after: input.text, backupFile, writeBackup: null, removeBackup: false };
  const fromBackup = input.backup === null ? null : parseTomlFile(input.file, input.backup);
  if (input.backup !== null && fromBackup?.ok && isDeepStrictEqual(JSON.parse(JSON.stringify(fromBackup.value)), JSON.parse(JSON.stringify(rest)))) {
    return { ok: true, plan: { ...none, after: input.backup, removeBackup: true, notes: [] } };
  }
  const edited = patchToml(input.file, input.text, rest, current);
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

/**
 * The Codex hooks Session Handoff writes into `$CODEX_HOME/hooks.json` (the shape of Codex's hooks
 * docs): SessionStart injects the packet, UserPromptSubmit tells the agent when to wrap up, PreCompact
 * and Stop write a packet (Stop only past the wrap-up threshold). Timeouts in seconds.
 */
export const CODEX_HOOK_EVENTS: HookSpec[] = [
  { event: 'SessionStart', matcher: 'startup|resume|clear|compact', statusMessage: 'Loading handoff', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 5 },
  { event: 'PreCompact', matcher: 'manual|auto', timeout: 30 },
  { event: 'Stop', timeout: 30 },
];

/**
 * SessionEnd (Codex 0.145+) writes the packet when the session ends: it answers at once and finishes in
 * a detached process, so Codex's cap (3 s; it clamps anything longer with a warning) is plenty.
 */
export const CODEX_SESSION_END: HookSpec = { event: 'SessionEnd', timeout: Math.min(SESSION_END_TIMEOUT_S, CODEX_SESSION_END_MAX_S) };

/** The events set-up writes for a Codex with (`sessionEnd`) or without SessionEnd hooks. */
export const codexHookEvents = (sessionEnd: boolean): HookSpec[] => (sessionEnd ? [...CODEX_HOOK_EVENTS, CODEX_SESSION_END] : CODEX_HOOK_EVENTS);

/** Said when set-up added or changed a hook Codex has not trusted as it now is (trust goes by a hash of command, matcher and timeout). */
export const CODEX_TRUST_NOTE = 'Codex will ask you to approve the new or changed Session Handoff hooks: open /hooks in Codex and trust them (until then Codex does not run them).';

export interface CodexHooksInput {
  /** `$CODEX_HOME/hooks.json`. */
  hooksFile: string;
  hooksText: string | null;
  hooksBackupExists: boolean;
  configFile: string;
  configText: string | null;
  configBackup: string | null;
  /** The command that runs the CLI, already quoted for the shell. */
  launcher: string;
  /** The installed Codex has SessionEnd hooks (0.145+, or a version that could not be told). */
  sessionEnd?: boolean;
}

/** True when the config turns Codex's hooks off (`[features] hooks = false`, or the legacy `codex_hooks`). */
const hooksOff = (config: JsonObject): boolean => {
  const features = config['features'];
  return isObject(features) && (features['hooks'] === false || features['codex_hooks'] === false);
};

/**
 * The config with `[features] hooks = true`, the canonical flag (Stable; `codex_hooks` is its legacy
 * alias, kept where the user wrote it: older Codex versions read only that one). A config that turns
 * hooks off is left as the user chose (a note says so).
 */
function withHooksFeature(config: JsonObject): JsonObject {
  if (hooksOff(config)) return config;
  const features = isObject(config['features']) ? config['features'] : {};
  if (features['hooks'] === true) return config;
  return { ...config, features: { ...features, hooks: true } };
}

/**
 * The config as `--remove` leaves it: `[features] hooks` as it was before set-up (from the backup), or,
 * without a backup, gone when it is all that is left of a file set-up created.
 */
function withoutHooksFeature(config: JsonObject, backup: string | null, file: string): JsonObject {
  const features = config['features'];
  if (!isObject(features) || features['hooks'] !== true) return config;
  const before = backup === null ? null : parseTomlFile(file, backup);
  let keep: unknown;
  if (before?.ok) {
    const f = before.value['features'];
    keep = isObject(f) ? f['hooks'] : undefined;
  } else {
    const rest = { ...config, features: { ...features } } as JsonObject;
    delete (rest['features'] as JsonObject)['hooks'];
    const empty = Object.keys(rest['features'] as JsonObject).length === 0 && Object.keys(rest).length === 1;
    if (!empty) return config;
  }
  const next: JsonObject = { ...features };
  if (keep === undefined) delete next['hooks'];
  else next['hooks'] = keep;
  const out: JsonObject = { ...config, features: next };
  if (Object.keys(next).length === 0) delete out['features'];
  return out;
}

/** Sentences about a config that turned Codex's hooks off (`[features] hooks = false`, or the old `codex_hooks`). */
function hooksOffNote(config: JsonObject, file: string): string[] {
  const features = config['features'];
  if (!isObject(features)) return [];
  const off = ['hooks', 'codex_hooks'].filter((k) => features[k] === false);
  return off.length ? [`Codex hooks are turned off in ${file} ([features] ${off[0]} = false): turn them on, or these hooks never run.`] : [];
}

/**
 * Connects a Codex that has hooks: our four hooks merged into hooks.json (the user's own hooks kept;
 * ours updated in place), and a `notify` program an earlier set-up wrote taken out of config.toml
 * (the Stop hook does its work now; a notify of the user's own stays). Nothing is written when either
 * file cannot be read.
 */
export function planCodexHooksSetup(input: CodexHooksInput): PlanResult {
  const config = parseTomlFile(input.configFile, input.configText);
  if (!config.ok) return config;
  const parsed = parseObjectFile(input.hooksFile, input.hooksText ?? '');
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);
  const hooks = settings['hooks'] ?? {};
  if (!isObject(hooks)) return { ok: false, message: `${input.hooksFile}: "hooks" is not an object; nothing was written`, invalid: true };
  const bad = mergeHooks(hooks, codexHookEvents(input.sessionEnd === true), `${input.launcher} hook`, input.hooksFile);
  if (bad) return { ok: false, message: bad };
  settings['hooks'] = hooks;
  const theirNotify = config.value['notify'] !== undefined && !isOurNotify(config.value['notify']);
  // Codex runs a hook only while its trust hash (command, matcher, timeout) matches what the user approved.
  const untrusted = codexHookTrust(input.hooksFile, settings, config.value).some((s) => s.trust !== 'trusted');
  const notes = [
    ...(untrusted ? [CODEX_TRUST_NOTE] : []),
    ...hooksOffNote(config.value, input.configFile),
    ...(theirNotify ? ['Your notify program in config.toml is kept as it is.'] : []),
  ];
  const main = connectPlan({ file: input.hooksFile, text: input.hooksText, backupExists: input.hooksBackupExists }, stringifyLike(settings, input.hooksText), notes, 'Codex CLI is already connected through its hooks; nothing to change.');
  if (!main.ok) return main;
  const ourNotify = isOurNotify(config.value['notify']);
  const wanted = withHooksFeature(ourNotify ? withoutOurNotify(config.value) : config.value);
  if (isDeepStrictEqual(wanted, config.value)) return main;
  const featureNote = 'config.toml: [features] hooks = true, so Codex runs hooks whatever its defaults.';
  if (!ourNotify) {
    const edited = patchToml(input.configFile, input.configText, wanted);
    if (!edited.ok) return edited;
    const more = connectPlan({ file: input.configFile, text: input.configText, backupExists: input.configBackup !== null }, edited.text, [featureNote], '');
    if (!more.ok) return more;
    return { ok: true, plan: main.plan, more: [more.plan] };
  }
  const dropNotify = removalPlan({ file: input.configFile, text: input.configText, backup: input.configBackup }, wanted, config.value);
  if (!dropNotify.ok) return dropNotify;
  dropNotify.plan.notes = [
    `The notify program an earlier set-up wrote is taken out: the Stop hook does its work now${chainedNotify(config.value['notify']) ? '; your own notify program is back in its place' : ''}.`,
    ...(wanted['features'] !== config.value['features'] ? [featureNote] : []),
  ];
  return { ok: true, plan: main.plan, more: [dropNotify.plan] };
}

/**
 * Takes Session Handoff out of Codex: its hooks from hooks.json (the file goes when set-up made it,
 * the backup's bytes come back when nothing else changed) and its notify from config.toml. A file with
 * nothing of ours is not touched.
 */
export function planCodexFullRemove(input: { hooksFile: string; hooksText: string | null; hooksBackup: string | null; configFile: string; configText: string | null; configBackup: string | null }): PlanResult {
  const config = planCodexConfigRemove({ file: input.configFile, text: input.configText, backup: input.configBackup });
  if (!config.ok) return config;
  const configChanges = !isNoop(config.plan);
  const none = (file: string, text: string | null): SetupPlan => ({ file, before: text, after: text, backupFile: backupFileOf(file), writeBackup: null, removeBackup: false, notes: [] });
  let hooksPlan: SetupPlan = none(input.hooksFile, input.hooksText);
  if (input.hooksText !== null) {
    const parsed = parseObjectFile(input.hooksFile, input.hooksText);
    if (!parsed.ok) return parsed;
    const settings: JsonObject = structuredClone(parsed.value);
    const hooks = settings['hooks'];
    if (isObject(hooks) && removeOurHooks(hooks)) {
      if (Object.keys(hooks).length === 0) delete settings['hooks'];
      const removed = jsonRemoval({ file: input.hooksFile, text: input.hooksText, backup: input.hooksBackup }, settings);
      if (!removed.ok) return removed;
      hooksPlan = removed.plan;
    }
  }
  const hooksChanges = !isNoop(hooksPlan);
  if (!hooksChanges && !configChanges) return { ok: true, plan: { ...hooksPlan, notes: ['Session Handoff is not in Codex\'s hooks.json or config.toml; nothing to remove.'] } };
  const plans = [hooksPlan, config.plan].filter((p) => !isNoop(p));
  return { ok: true, plan: plans[0]!, more: plans.slice(1) };
}
