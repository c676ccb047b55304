import type { JsonObject, PlanResult } from './plan';
import { backupFileOf, connectPlan, isObject, jsonRemoval, parseObjectFile, stringifyLike } from './plan';
import type { HookSpec } from './hookEntries';
import { mergeHooks, removeOurHooks, SESSION_END_TIMEOUT_S } from './hookEntries';
import { chainedCommand, isHandoffCommand, shellQuote } from './shell';

/**
 * The Claude Code hook events Session Handoff answers: SessionStart injects the packet,
 * UserPromptSubmit tells the agent when to wrap up, PreCompact and SessionEnd write a packet (they
 * answer at once and finish in the background; the timeout is there so no default cuts them short).
 */
export const CLAUDE_HOOK_EVENTS: HookSpec[] = [
  { event: 'SessionStart', matcher: 'startup|resume|clear|compact', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 5 },
  { event: 'PreCompact', timeout: 30 },
  { event: 'SessionEnd', timeout: SESSION_END_TIMEOUT_S },
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
  const bad = mergeHooks(hooks, CLAUDE_HOOK_EVENTS, ours(input.launcher, 'hook'), input.file);
  if (bad) return { ok: false, message: bad };
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
    const touched = removeOurHooks(hooks);
    if (touched && Object.keys(hooks).length === 0) delete settings['hooks'];
    changed ||= touched;
  }
  if (!changed) {
    // Nothing of ours: the file is not rewritten (not even reformatted).
    return { ok: true, plan: { file: input.file, before: input.text, after: input.text, backupFile, writeBackup: null, removeBackup: false, notes: ['Session Handoff is not in these settings; nothing to remove.'] } };
  }

  return jsonRemoval({ ...input, text: input.text }, settings);
}
