// SessionStart's answer — the restart prompt of the active packet, a notice, or a short delta — apart
// from the rest of `handoff hook`, so that the small hook entry (../hook.ts) answers it from a bundle of
// its own (dist/hookStart.js) without loading the command line; and the hook's log lines.
import * as path from 'node:path';
import { readPacketAcks } from '../../core/acks';
import { stripControlLine } from '../../core/controlChars';
import { readIfExists } from '../../core/fsx';
import { appendInside, appendStateLog } from '../../core/ownLog';
import type { HandoffOptions } from '../../core/options';
import { redact } from '../../core/redact';
import { PROMPT_AGENTS, type PromptAgent, renderForAgent } from '../../core/render/forAgent';
import { renderCompactBrief, renderStaleNotice, renderResumeDelta } from '../../core/render/sessionStart';
import { handoffTrust } from '../../core/registry/trust';
import { currentPacket } from '../../core/workflow/freshness';
import { eventFolderWritable } from '../../core/workflow/eventFolder';
import { outputDirOf } from '../../core/workflow/paths';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import type { CliIO, FlagValues } from '../types';
import { isInline, LAST_HOOK_FILE } from './hookDetached';
import { agentOfEvent } from './hookEvent';

/** A SessionStart hook answers within this time or not at all: the session must not wait for us. */
export const SESSION_START_BUDGET_MS = 1800;

/** How old the last generating hook's record (LAST_HOOK_FILE) may be to count as "just written". */
const LAST_HOOK_MAX_AGE_MS = 15 * 60_000;

/** Writes the packet again after a compaction (the full command line's); null: not written. */
export type Regenerate = () => Promise<string | null>;

/**
 * Appends one line to `<outputDir>/hook.log`; a hook must never fail loudly, so this never throws. The
 * log is written only when the output dir really lies inside `workspaceDir` (default: the output dir's
 * parent) and `hook.log` is no symlink; otherwise the line goes to the user's state folder.
 */
export async function logLine(outputDir: string, line: string, workspaceDir?: string): Promise<void> {
  try {
    const at = new Date().toISOString();
    // Redacted before its lines are joined too: a value the terminal wrapped is only found with its break.
    const body = stripControlLine(redact(line).replace(/\s*\n\s*/g, ' '));
    const refused = await appendInside(path.join(outputDir, 'hook.log'), workspaceDir ?? path.dirname(outputDir), redact(`${at} ${body}\n`));
    if (refused) await appendStateLog(redact(`${at} ${stripControlLine(refused)}: ${body}\n`));
  } catch {
    // Nowhere left to report to; the agent session must not be disturbed.
  }
}

/** Logs into `dir`'s output dir when the hooks may write there (see `eventFolderWritable`), else to the state folder. */
export async function logForFolder(dir: string, options: Pick<HandoffOptions, 'workbenchDir' | 'outputDir'>, line: string, env: Record<string, string | undefined>): Promise<void> {
  if ((await eventFolderWritable(dir, options, env).catch(() => ({ ok: false }))).ok) await logLine(outputDirOf(dir, options), line, dir);
  else await logElsewhere(`${line} (in ${dir})`, env);
}

/** Logs to the user's state folder only: the event's folder is not one to write into. */
export async function logElsewhere(line: string, env: Record<string, string | undefined>): Promise<void> {
  await appendStateLog(redact(`${new Date().toISOString()} ${stripControlLine(redact(line).replace(/\s*\n\s*/g, ' '))}\n`), env);
}

interface LastHook {
  event: string;
  session_id: string | null;
  packet_dir: string;
  at: string;
}

async function readLastHook(outputDir: string): Promise<LastHook | null> {
  try {
    const v = JSON.parse((await readIfExists(path.join(outputDir, LAST_HOOK_FILE))) ?? 'null') as LastHook | null;
    return v && typeof v.packet_dir === 'string' && typeof v.at === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The SessionStart event fields the answer depends on. */
export interface StartEvent {
  hook_event_name: string;
  session_id?: string;
  source?: string;
  transcript_path?: string | null;
  turn_id?: string;
}

/**
 * The SessionStart answer, by source. `startup` / `clear` (a new, empty context): the restart prompt
 * of the active packet for this folder's branch + topic when it is ours and fresh, a short notice when
 * it is stale or not written here, nothing when there is none. `resume` / `fork` (the transcript holds
 * the history): at most a short delta. `compact`: the packet is written again from the transcript and
 * only its next action and open questions are handed back.
 */
async function sessionStartContext(workspaceDir: string, flags: FlagValues, io: CliIO, event: StartEvent, regenerate: Regenerate | null): Promise<string | null> {
  const options = optionsOf(flags);
  const outputDir = outputDirOf(workspaceDir, options);
  let prefer: string | undefined;
  let regenerated = false;
  if (event.source === 'compact') {
    const written = regenerate ? await regenerate() : null;
    if (written) {
      prefer = written;
      regenerated = true;
    } else {
      const last = await readLastHook(outputDir);
      const age = last ? Date.now() - Date.parse(last.at) : Infinity;
      if (last && last.event === 'PreCompact' && age >= 0 && age < LAST_HOOK_MAX_AGE_MS && (!event.session_id || last.session_id === event.session_id)) prefer = last.packet_dir;
    }
  }
  const { current, diagnostics, now } = await currentPacket(workspaceDir, options, createGitClient(workspaceDir), prefer);
  for (const d of diagnostics) await logLine(outputDir, `hook SessionStart: ${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`, workspaceDir);
  if (!current) return null;
  const { packet } = current.stored;
  const trust = await handoffTrust({ stored: current.stored, freshness: current.freshness, facts: now?.facts ?? null });
  if (trust.kind === 'foreign') return redact(trust.notice);
  const packetDir = path.relative(workspaceDir, current.stored.dir) || '.';
  if (event.source === 'resume' || event.source === 'fork') {
    return renderResumeDelta(packet, { reasons: trust.kind === 'stale' ? trust.reasons : [], fork: event.source === 'fork', packetDir, ...(event.session_id ? { sessionId: event.session_id } : {}) });
  }
  if (trust.kind === 'stale') return renderStaleNotice(packet, trust.reasons);
  if (event.source === 'compact') return renderCompactBrief(packet, { regenerated, packetDir });
  const { acks } = await readPacketAcks(outputDir, current.stored.dir);
  const given = flags['agent'];
  const target = typeof given === 'string' && (PROMPT_AGENTS as readonly string[]).includes(given) ? (given as PromptAgent) : agentOfEvent(event);
  // Whichever agent wrote it, rendered for the agent that starts now (its tool names; under 10 000 characters).
  return renderForAgent(packet, target, {
    firstTurn: options.firstTurn,
    door: 'hook',
    freshness: current.freshness,
    acknowledged: acks.map((a) => ({ id: a.risk_id, by: a.by, at: a.at })),
  }, { packetDir });
}

export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Answers a SessionStart event in a folder the hooks may write to: the hook JSON on stdout, or nothing
 * (no packet, or past the budget, which the log says). `regenerate` is given for a `compact` source.
 */
export async function answerSessionStart(workspaceDir: string, flags: FlagValues, io: CliIO, event: StartEvent, tag: string, regenerate: Regenerate | null): Promise<void> {
  const outputDir = outputDirOf(workspaceDir, optionsOf(flags));
  // Inline (the detached completion of a compaction, tests) there is nobody waiting on the answer.
  const work = sessionStartContext(workspaceDir, flags, io, event, regenerate);
  const context = isInline(io.env) ? await work : await withDeadline(work, SESSION_START_BUDGET_MS);
  if (context === 'timeout') {
    await logLine(outputDir, `${tag} no handoff injected: reading the packet took longer than ${SESSION_START_BUDGET_MS} ms`, workspaceDir);
    return;
  }
  if (!context) return;
  io.stdout(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } })}\n`);
}

/** The tag of an event's log lines: `hook SessionStart/startup (session …):`. */
export const hookTag = (event: { hook_event_name: string; source?: string; session_id?: string }): string =>
  `hook ${event.hook_event_name}${event.source ? `/${event.source}` : ''}${event.session_id ? ` (session ${event.session_id})` : ''}:`;

/**
 * The small entry's SessionStart (every source but `compact`, which writes the packet again and needs
 * the full command line): true when answered, false to hand the event to the full command line.
 */
export async function sessionStartHook(event: StartEvent & { cwd: string }, flags: FlagValues, io: CliIO): Promise<boolean> {
  if (event.source === 'compact' || isInline(io.env)) return false;
  const strings = ['session_id', 'source', 'turn_id'] as const;
  if (strings.some((k) => event[k] !== undefined && typeof event[k] !== 'string')) return false;
  if (event.transcript_path !== undefined && event.transcript_path !== null && typeof event.transcript_path !== 'string') return false;
  const options = optionsOf(flags);
  const workspaceDir = path.resolve(io.cwd, event.cwd);
  const tag = hookTag(event);
  const place = await eventFolderWritable(workspaceDir, options, io.env);
  if (!place.ok) {
    await logElsewhere(`${tag} ${place.reason}; nothing done`, io.env);
    return true;
  }
  await answerSessionStart(workspaceDir, flags, io, event, tag, null);
  return true;
}
