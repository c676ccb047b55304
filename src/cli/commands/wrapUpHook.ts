import * as path from 'node:path';
import type { Budget } from '../../core/context/budget';
import { budgetLevel, checkBudget, DEFAULT_BUDGET } from '../../core/context/budget';
import { claudeTranscriptReader } from '../../core/context/claude';
import { codexRolloutReader } from '../../core/context/codex';
import { asShown, shortPercent } from '../../core/context/format';
import type { BudgetLevel, ContextResult } from '../../core/context/types';
import { atomicWrite, readIfExists } from '../../core/fsx';
import { redact, redactedJson } from '../../core/redact';
import { readWrapUpSnooze, wrapUpStateDir } from '../../core/setup/wrapUpSnooze';
import type { FlagValues } from '../types';
import { agentOfEvent, type HookEventLite } from './hookEvent';

/**
 * The wrap-up inside the agent: Claude Code's and Codex's UserPromptSubmit hooks may add context to
 * the turn, so the agent itself learns "context at 62 % — finish the step and write the handoff" when
 * its session crosses `warnAt`, and again at `urgeAt`. The levels are the editor's (once per level per
 * session; no wrap-up after urgent; a pause set with "Snooze" holds here too). Fast: one tail read of
 * the session's own file and one small state file.
 */


interface SessionLevels {
  fired: BudgetLevel[];
  at: string;
}

export function budgetFromFlags(flags: FlagValues): Budget {
  const budget = {
    warnAt: typeof flags['warn-at'] === 'number' ? flags['warn-at'] : DEFAULT_BUDGET.warnAt,
    urgeAt: typeof flags['urge-at'] === 'number' ? flags['urge-at'] : DEFAULT_BUDGET.urgeAt,
  };
  return checkBudget(budget).ok ? budget : DEFAULT_BUDGET;
}

/** The session's context reading, from the file the event names (Claude transcript or Codex rollout). */
export async function eventReading(event: HookEventLite, cwd: string): Promise<ContextResult> {
  if (typeof event.transcript_path !== 'string' || !event.transcript_path) return { known: false, reason: 'the event names no transcript' };
  const file = path.resolve(cwd, event.transcript_path);
  const reader = agentOfEvent(event) === 'codex' ? codexRolloutReader(file) : claudeTranscriptReader(file);
  try {
    return asShown(await reader.read());
  } catch (err) {
    return { known: false, reason: (err as Error)?.message ?? String(err) };
  }
}

/** A 64-bit FNV-1a hash as hex: names the state file per session without loading the crypto module. */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

const pct = (f: number): string => `${Math.round(f * 100)} %`;

/** The one line the agent is told at a level. */
export function wrapUpLine(level: 'wrap-up' | 'urgent', reading: ContextResult, budget: Budget): string {
  if (level === 'urgent') {
    return (
      `Session Handoff: context at ${shortPercent(reading)} (urgent from ${pct(budget.urgeAt)}; auto-compaction is near). ` +
      'Start nothing new: finish this step, run `handoff generate` now, and end your reply with a short status (what is done, the next step, open questions).'
    );
  }
  return (
    `Session Handoff: context at ${shortPercent(reading)} (wrap-up from ${pct(budget.warnAt)}). ` +
    'Finish the step you are on, then write the handoff: run `handoff generate`, or end with a short status (done, next step, open questions) so that the session-end hook writes it.'
  );
}

/**
 * The hook's stdout for a UserPromptSubmit event: the hook JSON with one line of added context when the
 * session just reached a level it had not reached before, else null (nothing is printed).
 */
export async function wrapUpOutput(event: HookEventLite, flags: FlagValues, env: Record<string, string | undefined>, cwd: string, now = Date.now()): Promise<string | null> {
  const reading = await eventReading(event, cwd);
  const budget = budgetFromFlags(flags);
  const level = budgetLevel(reading, budget);
  if (!reading.known || (level !== 'wrap-up' && level !== 'urgent')) return null;
  const dir = wrapUpStateDir(env);
  // A snooze in the editor holds the agent's prompts too; the level is said once the snooze ends.
  if (now < (await readWrapUpSnooze(env))) return null;
  const agent = agentOfEvent(event);
  const file = path.join(dir, `handoff-wrapup-${fnv1a(`${agent}:${reading.sessionId || event.session_id || ''}`)}.json`);
  const state = (await readJson<SessionLevels>(file)) ?? { fired: [], at: '' };
  const fired = new Set(Array.isArray(state.fired) ? state.fired : []);
  if (fired.has(level)) return null;
  fired.add(level);
  // After the urgent line, a later dip into wrap-up is not news (the editor's rule).
  fired.add('wrap-up');
  await atomicWrite(file, redactedJson({ fired: [...fired], at: new Date(now).toISOString() } satisfies SessionLevels), { durable: false }).catch(() => undefined);
  const line = wrapUpLine(level, reading, budget);
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: redact(line) } })}\n`;
}

/** Whether a Stop event (a finished turn) should refresh the packet: only past the wrap-up threshold. */
export async function stopNeedsPacket(event: HookEventLite, flags: FlagValues, cwd: string): Promise<boolean> {
  const level = budgetLevel(await eventReading(event, cwd), budgetFromFlags(flags));
  return level === 'wrap-up' || level === 'urgent';
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse((await readIfExists(file)) ?? 'null') as T | null;
  } catch {
    return null;
  }
}
