import type { JsonObject } from './plan';
import { isObject } from './plan';
import { isHandoffCommand } from './shell';

/**
 * The `hooks` object Claude Code (settings.json) and Codex (hooks.json) share:
 * `{"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}`.
 */

/** One hook set-up writes: the event, its matcher, and a timeout in seconds (both agents' unit). */
export interface HookSpec {
  event: string;
  matcher?: string;
  /** Seconds. Written for every hook, so none is cut short by a default (Claude Code's SessionEnd: 1.5 s). */
  timeout: number;
  /** Codex shows it while the hook runs. */
  statusMessage?: string;
}

/**
 * SessionEnd's timeout, in seconds, for both agents: the hook answers in about 70 ms and writes the
 * packet in a detached process, so it needs only room for a cold start of Node. Claude Code gives
 * SessionEnd hooks 1.5 s unless a hook asks for more (up to 60 s, and a session's exit waits that
 * long); Codex cuts SessionEnd at 3 s.
 */
export const SESSION_END_TIMEOUT_S = 3;

/** Our entry for an event, exactly as set-up writes it. */
const entryOf = (spec: HookSpec, command: string): JsonObject => ({
  type: 'command',
  command,
  ...(spec.statusMessage ? { statusMessage: spec.statusMessage } : {}),
  timeout: spec.timeout,
});

/**
 * Adds our hook for each event to `hooks` (changed in place); an entry that is already ours (exactly
 * what set-up writes, through any launcher) is updated where it is, so a second run changes nothing
 * and a moved launcher is followed. Other entries are kept as they are. Returns an error sentence for
 * a shape that is not the hooks object.
 */
export function mergeHooks(hooks: JsonObject, specs: readonly HookSpec[], command: string, where: string): string | null {
  for (const spec of specs) {
    const groups = hooks[spec.event] ?? [];
    if (!Array.isArray(groups)) return `${where}: "hooks.${spec.event}" is not a list; nothing was written`;
    let found = false;
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g['hooks'])) continue;
      g['hooks'] = g['hooks'].map((h: unknown) => {
        if (!isObject(h) || !isHandoffCommand(h['command'], 'hook')) return h;
        found = true;
        return { ...h, ...entryOf(spec, command) };
      });
    }
    if (!found) groups.push({ ...(spec.matcher ? { matcher: spec.matcher } : {}), hooks: [entryOf(spec, command)] });
    hooks[spec.event] = groups;
  }
  return null;
}

/**
 * Takes our entries out of `hooks` (changed in place), and the groups and event lists that only held
 * them. Returns whether anything was ours.
 */
export function removeOurHooks(hooks: JsonObject): boolean {
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
  return touched;
}

/** The events that have one of our entries. */
export function ourEvents(hooks: unknown): string[] {
  if (!isObject(hooks)) return [];
  return Object.entries(hooks)
    .filter(([, groups]) => Array.isArray(groups) && groups.some((g: unknown) => isObject(g) && Array.isArray(g['hooks']) && g['hooks'].some((h: unknown) => isObject(h) && isHandoffCommand(h['command'], 'hook'))))
    .map(([event]) => event);
}
