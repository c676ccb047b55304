import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PromptAgent } from '../../core/render/forAgent';

/**
 * The fields of a Claude Code or Codex hook event that the small hook entry reads (the full command
 * validates the event again with its schema). Codex and Claude Code share the field names.
 */
export interface HookEventLite {
  hook_event_name: string;
  cwd: string;
  session_id?: string;
  transcript_path?: string | null;
  source?: string;
  turn_id?: string;
}

/** The event on stdin, or null when it is not one (no name or no folder). */
export function parseHookEvent(raw: string): HookEventLite | null {
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || typeof v['hook_event_name'] !== 'string' || typeof v['cwd'] !== 'string' || !v['cwd']) return null;
    return v as unknown as HookEventLite;
  } catch {
    return null;
  }
}

/**
 * Which agent sent an event: Codex names its rollouts `rollout-<time>-<thread>.jsonl` (under
 * `$CODEX_HOME/sessions`) and sends a `turn_id` that Claude Code never does; Gemini CLI's log is
 * `…/chats/session-<time>-<id8>.jsonl`, Qwen Code's `…/chats/<id>.jsonl`; anything else is Claude Code.
 */
export function agentOfEvent(event: { transcript_path?: string | null; turn_id?: unknown }): PromptAgent {
  const file = typeof event.transcript_path === 'string' ? event.transcript_path.replace(/\\/g, '/') : '';
  if (file && /^rollout-.*\.jsonl(\.zst)?$/.test(path.posix.basename(file))) return 'codex';
  // Gemini CLI's and Qwen Code's session logs (FORMATS: more-agents §2.1, §3.1), both in a `chats` folder.
  if (file && path.posix.basename(path.posix.dirname(file)) === 'chats') return /^session-.*\.jsonl$/.test(path.posix.basename(file)) ? 'gemini' : 'qwen';
  if (file) return 'claude';
  return typeof event.turn_id === 'string' ? 'codex' : 'claude';
}

/** The global under which the small hook entry leaves the stdin it already read for the full command line. */
export const PRELOADED_STDIN = '__handoffHookStdin';

/**
 * True when a SessionEnd names a transcript that is missing or empty: a session that never began
 * (`claude mcp list`, `claude mcp get` end one at once). It gets no packet and no log line. An event
 * that names no transcript at all (another agent, a script) is handled as always.
 */
export async function endsNoSession(event: HookEventLite, cwd: string): Promise<boolean> {
  if (event.hook_event_name !== 'SessionEnd') return false;
  const file = event.transcript_path;
  if (file === undefined) return false;
  if (typeof file !== 'string' || !file.trim()) return true;
  const st = await fs.stat(path.resolve(cwd, file)).catch(() => null);
  return !st || (st.isFile() && st.size === 0);
}
