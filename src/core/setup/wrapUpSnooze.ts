import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../fsx';
import { redactedJson } from '../redact';

/**
 * A snooze of the wrap-up prompts, shared by the editor (its Snooze button) and the agent's own
 * wrap-up hook (`handoff hook` on UserPromptSubmit): one small file in the user's temp folder
 * (`HANDOFF_STATE_DIR` overrides it), never in a repository.
 */
export const wrapUpStateDir = (env: Record<string, string | undefined>): string => env['HANDOFF_STATE_DIR'] || os.tmpdir();

export const WRAP_UP_SNOOZE_FILE = 'handoff-wrapup-snooze.json';

/** Until when (epoch ms) the wrap-up prompts are snoozed; 0 when they are not. */
export async function readWrapUpSnooze(env: Record<string, string | undefined>): Promise<number> {
  try {
    const v = JSON.parse((await readIfExists(path.join(wrapUpStateDir(env), WRAP_UP_SNOOZE_FILE))) ?? 'null') as { until?: unknown } | null;
    return v && typeof v.until === 'number' ? v.until : 0;
  } catch {
    return 0;
  }
}

/** Records a snooze until `until` (epoch ms); never throws (a snooze that cannot be shared still holds in the editor). */
export async function writeWrapUpSnooze(until: number, env: Record<string, string | undefined>): Promise<void> {
  await atomicWrite(path.join(wrapUpStateDir(env), WRAP_UP_SNOOZE_FILE), redactedJson({ until }), { durable: false }).catch(() => undefined);
}
