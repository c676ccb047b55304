import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { JsonObject } from './plan';
import { isObject } from './plan';
import { isHandoffCommand } from './shell';

/**
 * Whether Codex runs our hooks: a non-managed hook runs only when the user's config.toml records it as
 * trusted, `[hooks.state."<key>"] trusted_hash = "<hash>"`, and the hash still matches the hook
 * (FORMATS L4, `codex-rs/hooks/src/engine/discovery.rs`). Editing a hook's command, timeout, matcher or
 * status message changes its hash, so Codex stops running it until the user approves it again in
 * `/hooks`. Set-up never writes the trust itself: it is the user's consent.
 */

/** `trusted`: runs. `modified`: trusted once, changed since. `untrusted`: never approved. `disabled`: turned off in /hooks. */
export type CodexHookTrust = 'trusted' | 'modified' | 'untrusted' | 'disabled';

export interface CodexHookStatus {
  /** `SessionStart`, `Stop`, … as hooks.json names it. */
  event: string;
  /** The `[hooks.state]` key Codex records the trust under. */
  key: string;
  hash: string;
  trust: CodexHookTrust;
}

/** Codex's SessionEnd hooks default to 1 s and are cut at 3 s. */
const SESSION_END_DEFAULT_S = 1;
export const CODEX_SESSION_END_MAX_S = 3;
/** Every other command hook defaults to 600 s. */
const DEFAULT_TIMEOUT_S = 600;
/** Events whose matcher Codex ignores (hashed as none). */
const NO_MATCHER = new Set(['UserPromptSubmit', 'Stop']);

/** `SessionStart` → `session_start`: the event label of keys and hashes. */
export const codexEventLabel = (event: string): string => event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The `[hooks.state]` key of one handler: `<hooks file>:<event label>:<group index>:<handler index>`. */
export function codexHookKey(hooksFile: string, event: string, group: number, handler: number): string {
  return `${path.resolve(hooksFile)}:${codexEventLabel(event)}:${group}:${handler}`;
}

/** Objects with their keys sorted at every depth (serde_json's canonical form Codex hashes). */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  return v;
}

/**
 * The hash Codex trusts a command hook by: SHA-256 of the compact, key-sorted JSON of
 * `{event_name, matcher?, hooks: [{type, command, timeout, async, statusMessage?}]}` with the timeout
 * filled in (600 s, SessionEnd 1 s and at most 3 s), the matcher left out where Codex ignores it, and
 * fields that are unset left out.
 */
export function codexHookHash(event: string, matcher: unknown, handler: JsonObject, platform: NodeJS.Platform = process.platform): string {
  const windows = platform === 'win32' ? (handler['commandWindows'] ?? handler['command_windows']) : undefined;
  const command = typeof windows === 'string' ? windows : handler['command'];
  const given = typeof handler['timeout'] === 'number' && Number.isInteger(handler['timeout']) && handler['timeout'] >= 0 ? handler['timeout'] : undefined;
  const timeout = event === 'SessionEnd' ? Math.min(Math.max(given ?? SESSION_END_DEFAULT_S, 1), CODEX_SESSION_END_MAX_S) : Math.max(given ?? DEFAULT_TIMEOUT_S, 1);
  const normalized: JsonObject = {
    type: 'command',
    command,
    timeout,
    async: handler['async'] === true,
    ...(typeof handler['statusMessage'] === 'string' ? { statusMessage: handler['statusMessage'] } : {}),
  };
  const identity = {
    event_name: codexEventLabel(event),
    ...(typeof matcher === 'string' && !NO_MATCHER.has(event) ? { matcher } : {}),
    hooks: [normalized],
  };
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical(identity)), 'utf8').digest('hex')}`;
}

/** `[hooks.state]` of the user's config.toml, when it has one. */
function hookStates(config: JsonObject): JsonObject {
  const hooks = config['hooks'];
  const state = isObject(hooks) ? hooks['state'] : undefined;
  return isObject(state) ? state : {};
}

/**
 * Our hooks in a parsed hooks.json and whether Codex would run each, by the trust config.toml records.
 * Only handlers that are ours (`… hook`) are listed, in file order.
 */
export function codexHookTrust(hooksFile: string, hooksJson: unknown, config: JsonObject, platform: NodeJS.Platform = process.platform): CodexHookStatus[] {
  const hooks = isObject(hooksJson) ? hooksJson['hooks'] : undefined;
  if (!isObject(hooks)) return [];
  const states = hookStates(config);
  const out: CodexHookStatus[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((g: unknown, gi) => {
      if (!isObject(g) || !Array.isArray(g['hooks'])) return;
      g['hooks'].forEach((h: unknown, hi) => {
        if (!isObject(h) || !isHandoffCommand(h['command'], 'hook')) return;
        const key = codexHookKey(hooksFile, event, gi, hi);
        const hash = codexHookHash(event, g['matcher'], h, platform);
        const state = states[key];
        const recorded = isObject(state) ? state : {};
        const trust: CodexHookTrust =
          recorded['enabled'] === false ? 'disabled' : typeof recorded['trusted_hash'] !== 'string' ? 'untrusted' : recorded['trusted_hash'] === hash ? 'trusted' : 'modified';
        out.push({ event, key, hash, trust });
      });
    });
  }
  return out;
}

const TRUST_WORDS: Record<CodexHookTrust, string> = {
  trusted: 'present, trusted (Codex runs it)',
  modified: 'present, changed since you trusted it: Codex does not run it until you approve it again in /hooks',
  untrusted: 'present, not trusted yet: Codex does not run it until you approve it in /hooks',
  disabled: 'present, turned off in /hooks',
};

/** One line per hook event Session Handoff uses: present and trusted, present but not trusted, or absent. */
export function codexTrustReport(statuses: readonly CodexHookStatus[], events: readonly string[]): string[] {
  return events.map((event) => {
    const mine = statuses.filter((s) => s.event === event);
    if (!mine.length) return `${event}: absent`;
    const worst = mine.find((s) => s.trust !== 'trusted') ?? mine[0]!;
    return `${event}: ${TRUST_WORDS[worst.trust]}`;
  });
}
