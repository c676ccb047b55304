import type { JsonObject, PlanResult } from './plan';
import { backupFileOf, connectPlan, isObject, parseObjectFile, restoredText, stringifyLike } from './plan';
import { chainedCommand, isHandoffCommand, shellQuote } from './shell';

/** The Claude Code hook events Session Handoff answers, with the matcher of its entry. */
export const CLAUDE_HOOK_EVENTS: { event: string; matcher?: string }[] = [
  { event: 'SessionStart', matcher: 'startup|resume|clear|compact' },
  { event: 'PreCompact' },
  { event: 'SessionEnd' },
];

export interface ClaudeSetupInput {
  /** The settings file (`~/.claude/settings.json`, `$CLAUDE_CONFIG_DIR/settings.json` or `.claude/settings.json`). */
  file: string;
  /** Its text, or null when it does not exist. */
  text: string | null;
  /** The command that runs the CLI, already quoted for the shell: `handoff` or the editor's launcher. */
  launcher: string;
  /** Whether a backup from an earlier set-up is there (it is kept: it holds the state before the first one). */
  backupExists: boolean;
}

const ours = (launcher: string, sub: string) => `${launcher} ${sub}`;

/**
 * Merges the statusLine bridge and the SessionStart / PreCompact / SessionEnd hooks into Claude Code
 * settings. Every other key and hook stays as it is; an existing statusLine command is kept through
 * `--chain`; entries that are already ours are updated in place (a moved launcher), so a second run
 * changes nothing.
 */
export function planClaudeSetup(input: ClaudeSetupInput): PlanResult {
  const parsed = parseObjectFile(input.file, input.text ?? '');
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);
  const notes: string[] = [];

  const status = settings['statusLine'];
  if (status === undefined) {
    settings['statusLine'] = { type: 'command', command: ours(input.launcher, 'statusline') };
  } else if (isObject(status) && typeof status['command'] === 'string') {
    const current = status['command'];
    const chain = isHandoffCommand(current, 'statusline') ? chainedCommand(current) : current;
    settings['statusLine'] = { ...status, type: 'command', command: `${ours(input.launcher, 'statusline')}${chain ? ` --chain ${shellQuote(chain)}` : ''}` };
    if (!isHandoffCommand(current, 'statusline')) notes.push(`Your statusLine command is kept: it runs first, through --chain.`);
  } else {
    return { ok: false, message: `${input.file}: "statusLine" is not an object with a "command"; fix it or remove it first; nothing was written` };
  }

  const hooks = settings['hooks'] ?? {};
  if (!isObject(hooks)) return { ok: false, message: `${input.file}: "hooks" is not an object; nothing was written` };
  for (const { event, matcher } of CLAUDE_HOOK_EVENTS) {
    const groups = hooks[event] ?? [];
    if (!Array.isArray(groups)) return { ok: false, message: `${input.file}: "hooks.${event}" is not a list; nothing was written` };
    let found = false;
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g['hooks'])) continue;
      g['hooks'] = g['hooks'].map((h: unknown) => {
        if (!isObject(h) || !isHandoffCommand(h['command'], 'hook')) return h;
        found = true;
        return { ...h, command: ours(input.launcher, 'hook') };
      });
    }
    if (!found) groups.push({ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: ours(input.launcher, 'hook') }] });
    hooks[event] = groups;
  }
  settings['hooks'] = hooks;

  return connectPlan(input, stringifyLike(settings, input.text), notes, 'Claude Code is already connected; nothing to change.');
}

export interface ClaudeRemoveInput {
  file: string;
  text: string | null;
  /** The backup written by the first set-up, or null. */
  backup: string | null;
}

/**
 * Takes Session Handoff out of Claude Code settings: its hook entries go (and the lists and groups
 * that only held them), a chained statusLine gets its own command back, ours alone is removed. When
 * the result equals the backup, the backup's exact bytes are restored; when there was no file before,
 * the file is deleted again.
 */
export function planClaudeRemove(input: ClaudeRemoveInput): PlanResult {
  const backupFile = backupFileOf(input.file);
  if (input.text === null) {
    return { ok: true, plan: { file: input.file, before: null, after: null, backupFile, writeBackup: null, removeBackup: false, notes: ['There are no Claude Code settings to change.'] } };
  }
  const parsed = parseObjectFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);

  let changed = false;
  const status = settings['statusLine'];
  if (isObject(status) && isHandoffCommand(status['command'], 'statusline')) {
    changed = true;
    const chain = chainedCommand(status['command'] as string);
    if (chain) settings['statusLine'] = { ...status, command: chain };
    else delete settings['statusLine'];
  }
  const hooks = settings['hooks'];
  if (isObject(hooks)) {
    let touched = false;
    for (const [event, groups] of Object.entries(hooks)) {
      if (!Array.isArray(groups)) continue;
      let here = false;
      const kept = groups.flatMap((g: unknown) => {
        if (!isObject(g) || !Array.isArray(g['hooks'])) return [g];
        const rest = g['hooks'].filter((h: unknown) => !(isObject(h) && isHandoffCommand(h['command'], 'hook')));
        if (rest.length === g['hooks'].length) return [g];
        here = true;
        return rest.length ? [{ ...g, hooks: rest }] : [];
      });
      if (!here) continue;
      touched = true;
      if (kept.length) hooks[event] = kept;
      else delete hooks[event];
    }
    if (touched && Object.keys(hooks).length === 0) delete settings['hooks'];
    changed ||= touched;
  }
  if (!changed) {
    // Nothing of ours: the file is not rewritten (not even reformatted).
    return { ok: true, plan: { file: input.file, before: input.text, after: input.text, backupFile, writeBackup: null, removeBackup: false, notes: ['Session Handoff is not in these settings; nothing to remove.'] } };
  }

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
