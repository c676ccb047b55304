import * as path from 'node:path';
import { z } from 'zod';
import { generateHandoff } from '../../core/workflow/generate';
import { eventFolderWritable } from '../../core/workflow/eventFolder';
import { outputDirOf } from '../../core/workflow/paths';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import { readSessionFile } from '../../core/session/reader';
import { contextForPacket, sessionForCli } from '../context';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { EXIT_OK } from '../types';
import { completeInQueue, isInline, isWorker, QUEUED_AT_ENV, queueCompletion, runWorker, WORKER_DEADLINE_MS } from './hookDetached';
import type { QueuedEvent } from './hookDetached';
import { parseArgs } from '../args';
import { agentOfEvent, endsNoSession } from './hookEvent';
import { HOOK_FLAGS } from './hookFlags';
import { answerSessionStart, hookTag, logElsewhere, logForFolder, logLine, type StartEvent, withDeadline } from './hookStart';
import { stopNeedsPacket, wrapUpOutput } from './wrapUpHook';

// The log helpers moved beside SessionStart's answer (hookStart.ts); they are still this command's.
export { logForFolder, logLine } from './hookStart';

/** The fields of a Claude Code hook event this command reads; the rest is ignored. */
const HookEventSchema = z
  .object({
    hook_event_name: z.string(),
    cwd: z.string().min(1),
    session_id: z.string().optional(),
    transcript_path: z.string().nullable().optional(),
    /** SessionStart: startup, resume, clear or compact. */
    source: z.string().optional(),
    /** Codex only (Stop, UserPromptSubmit, PreCompact). */
    turn_id: z.string().optional(),
  })
  .passthrough();

const GENERATING = new Set(['SessionEnd', 'PreCompact']);


/** A Gemini CLI or Qwen Code session log (`…/chats/<id>.jsonl`): not a Claude Code transcript. */
function isChatsLog(file: string): boolean {
  return path.basename(path.dirname(file.replace(/\\/g, '/'))) === 'chats';
}

/**
 * Generates a packet for an agent event (a dirty workbench is accepted: findings become block risks).
 * Problems go to the log. Returns the packet folder, or null when nothing was written.
 */
export async function generateForEvent(workspaceDir: string, flags: FlagValues, io: CliIO, tag: string, transcriptPath?: string): Promise<string | null> {
  const options = optionsOf(flags);
  const place = await eventFolderWritable(workspaceDir, options, io.env);
  if (!place.ok) {
    await logElsewhere(`${tag} ${place.reason}; nothing written`, io.env);
    return null;
  }
  const outputDir = outputDirOf(workspaceDir, options);
  let outcome: Awaited<ReturnType<typeof generateHandoff>>;
  try {
    const context = await contextForPacket(workspaceDir, flags, io);
    // A hook names its own transcript: the workbench is derived from exactly that session. Gemini CLI
    // and Qwen Code name theirs too (`…/chats/<id>.jsonl`), read through the folder's session search,
    // which finds that newest one with the reader of its agent.
    const session = transcriptPath && !isChatsLog(transcriptPath)
      ? await readSessionFile(path.resolve(workspaceDir, transcriptPath), agentOfEvent({ transcript_path: transcriptPath }) === 'codex' ? 'codex' : 'claude-code').catch(() => null)
      : await sessionForCli(workspaceDir, flags, io.env);
    outcome = await generateHandoff({ workspaceDir, options, allowDirty: true, gitClient: createGitClient(workspaceDir), context, session });
  } catch (err) {
    await logLine(outputDir, `${tag} ${(err as Error)?.message ?? String(err)}`, workspaceDir);
    return null;
  }
  if (outcome.kind === 'refused') {
    await logLine(outputDir, `${tag} no packet written: ${outcome.reason}`, workspaceDir);
    return null;
  }
  for (const d of outcome.diagnostics) await logLine(outputDir, `${tag} ${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`, workspaceDir);
  return outcome.packetDir;
}

/** After a compaction, the regeneration of the packet may take this long before the existing packet is used. */
const COMPACT_REGEN_BUDGET_MS = 1100;

/**
 * After a compaction (SessionStart `compact`, the reliable point: PreCompact may not fire), the packet
 * is written again from the session's transcript, through the same queue as SessionEnd (one at a time,
 * idempotent, written atomically). Inline (the detached process, tests) it takes as long as it needs;
 * otherwise past COMPACT_REGEN_BUDGET_MS it is handed to a detached process and null is returned, so
 * the answer comes from the packet that exists. Returns the packet folder written, or null.
 */
async function regenerateAfterCompact(workspaceDir: string, flags: FlagValues, io: CliIO, event: StartEvent, raw: string, tag: string): Promise<string | null> {
  const outputDir = outputDirOf(workspaceDir, optionsOf(flags));
  const work = completeInQueue(outputDir, event, io.env, () => generateForEvent(workspaceDir, flags, io, tag, event.transcript_path ?? undefined), (l) => logLine(outputDir, l, workspaceDir)).catch(
    async (err: unknown) => {
      await logLine(outputDir, `${tag} the packet could not be written again: ${(err as Error)?.message ?? String(err)}`, workspaceDir);
      return null;
    },
  );
  if (isInline(io.env)) return work;
  const done = await withDeadline(work, COMPACT_REGEN_BUDGET_MS);
  if (done !== 'timeout') return done;
  await logLine(outputDir, `${tag} writing the packet again takes longer than ${COMPACT_REGEN_BUDGET_MS} ms: finished in the background; answered from the existing packet`, workspaceDir);
  const refused = await queueCompletion(raw, hookArgs(flags), io.env, io.cwd);
  if (refused) await logLine(outputDir, `${tag} the packet could not be handed to the background worker: ${refused}`, workspaceDir);
  return null;
}

async function runHook(flags: FlagValues, io: CliIO): Promise<void> {
  const options = optionsOf(flags);
  const raw = io.readStdin ? await io.readStdin() : '';
  let event: z.infer<typeof HookEventSchema>;
  try {
    event = HookEventSchema.parse(JSON.parse(raw));
  } catch {
    await logForFolder(io.cwd, options, `hook: stdin is not a hook event with "hook_event_name" and "cwd" (${raw.length} bytes); nothing done`, io.env);
    return;
  }
  // A session that never began (`claude mcp list`): nothing to write, nothing to log.
  if (await endsNoSession(event, io.cwd)) return;
  const workspaceDir = path.resolve(io.cwd, event.cwd);
  const tag = hookTag(event);
  // User-level hooks run in every folder: only a repository or a workbench gets anything written.
  const place = await eventFolderWritable(workspaceDir, options, io.env);
  if (!place.ok) {
    await logElsewhere(`${tag} ${place.reason}; nothing done`, io.env);
    return;
  }
  const outputDir = outputDirOf(workspaceDir, options);
  if (event.hook_event_name === 'SessionStart') {
    await answerSessionStart(workspaceDir, flags, io, event, tag, event.source === 'compact' ? () => regenerateAfterCompact(workspaceDir, flags, io, event, raw, tag) : null);
    return;
  }
  if (event.hook_event_name === 'UserPromptSubmit') {
    const out = await wrapUpOutput(event, flags, io.env, io.cwd);
    if (out) io.stdout(out);
    return;
  }
  // A finished turn (Codex's Stop; Claude Code's when configured) refreshes the packet past the threshold only.
  const stop = event.hook_event_name === 'Stop' && (isInline(io.env) || (await stopNeedsPacket(event, flags, io.cwd)));
  if (!GENERATING.has(event.hook_event_name) && !stop) {
    await logLine(outputDir, `hook: ignored event ${event.hook_event_name} (handles SessionStart, UserPromptSubmit, Stop, SessionEnd and PreCompact)`, workspaceDir);
    return;
  }
  // Answer at once; a detached process of its own writes the packet (the agent may kill this one).
  if (!isInline(io.env)) {
    const refused = await queueCompletion(raw, hookArgs(flags), io.env, io.cwd);
    if (refused) await logLine(outputDir, `${tag} no packet written: ${refused}`, workspaceDir);
    return;
  }
  const packetDir = await completeInQueue(outputDir, event, io.env, () => generateForEvent(workspaceDir, flags, io, tag, event.transcript_path ?? undefined), (l) => logLine(outputDir, l, workspaceDir));
  if (!packetDir) return;
  // Claude Code shows a hook's stdout only in its transcript view; Codex takes only JSON from Stop.
  if (agentOfEvent(event) === 'claude') io.stdout(`handoff: ${path.join(packetDir, 'handoff.json')}\n`);
}

/**
 * The background worker: handles the queued events one at a time, each as its hook would inline, in
 * the folder and with the flags and environment it was queued with. Past its deadline (and a grace
 * for the packet being written) the process ends whatever it is doing.
 */
async function drainQueue(io: CliIO): Promise<void> {
  setTimeout(() => process.exit(0), WORKER_DEADLINE_MS + 60_000).unref();
  const one = async (e: QueuedEvent): Promise<void> => {
    const parsed = parseArgs(e.args, HOOK_FLAGS);
    const env = { ...io.env, ...e.env, [QUEUED_AT_ENV]: String(e.queued_at) };
    if (!parsed.ok) return logElsewhere(`hook worker: queued flags not understood (${e.args.join(' ')}); skipped`, env);
    await runHook(parsed.flags, { ...io, cwd: e.cwd, env, readStdin: () => Promise.resolve(e.raw) });
  };
  await runWorker(io.env, one, (line) => logElsewhere(line, io.env));
}

/** The hook's own flags again, for the worker. */
function hookArgs(flags: FlagValues): string[] {
  return HOOK_FLAGS.flatMap((f) => (flags[f.name] === undefined ? [] : [`--${f.name}`, String(flags[f.name])]));
}

/**
 * `handoff hook`: for Claude Code hooks. `SessionEnd` / `PreCompact` generate a packet for the event's
 * `cwd`; `SessionStart` prints the hook JSON that hands the restart prompt to the new session. Problems
 * go to `<outputDir>/hook.log`; the exit code is always 0.
 */
export const hookCommand: CommandSpec = {
  name: 'hook',
  summary: 'Claude Code and Codex hooks: SessionStart hands the packet to the new session, UserPromptSubmit says when to wrap up, SessionEnd/PreCompact/Stop write a packet in the background (always exits 0)',
  usage: 'hook [--output-dir DIR] [--warn-at F] [--urge-at F] [--agent AGENT]  < hook-event.json',
  flags: HOOK_FLAGS,
  async run({ flags, io }) {
    try {
      if (isWorker(io.env)) await drainQueue(io);
      else await runHook(flags, io);
    } catch (err) {
      await logElsewhere(`hook: ${(err as Error)?.message ?? String(err)} (in ${io.cwd})`, io.env);
    }
    // Whatever is still running (a slow git) must not keep the agent waiting.
    io.exit?.(EXIT_OK);
    return EXIT_OK;
  },
};
