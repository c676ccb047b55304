import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { generateHandoff } from '../../core/workflow/generate';
import { outputDirOf } from '../../core/workflow/paths';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import { readSessionFile } from '../../core/session/reader';
import { contextForPacket, sessionForCli } from '../context';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { EXIT_OK } from '../types';

/** The fields of a Claude Code hook event this command reads; the rest is ignored. */
const HookEventSchema = z
  .object({
    hook_event_name: z.string(),
    cwd: z.string().min(1),
    session_id: z.string().optional(),
    transcript_path: z.string().optional(),
  })
  .passthrough();

const EVENTS = new Set(['SessionEnd', 'PreCompact']);

/** Appends one line to `<outputDir>/hook.log`; a hook must never fail loudly, so this never throws. */
async function logLine(outputDir: string, line: string): Promise<void> {
  try {
    await fs.mkdir(outputDir, { recursive: true });
    await fs.appendFile(path.join(outputDir, 'hook.log'), `${new Date().toISOString()} ${line.replace(/\s*\n\s*/g, ' ')}\n`);
  } catch {
    // Nowhere left to report to; the agent session must not be disturbed.
  }
}

async function runHook(flags: FlagValues, io: CliIO): Promise<void> {
  const options = optionsOf(flags);
  const raw = io.readStdin ? await io.readStdin() : '';
  let event: z.infer<typeof HookEventSchema>;
  try {
    event = HookEventSchema.parse(JSON.parse(raw));
  } catch {
    await logLine(outputDirOf(io.cwd, options), `hook: stdin is not a hook event with "hook_event_name" and "cwd" (${raw.length} bytes); nothing generated`);
    return;
  }
  const workspaceDir = path.resolve(io.cwd, event.cwd);
  const outputDir = outputDirOf(workspaceDir, options);
  if (!EVENTS.has(event.hook_event_name)) {
    await logLine(outputDir, `hook: ignored event ${event.hook_event_name} (handles SessionEnd and PreCompact)`);
    return;
  }
  const tag = `hook ${event.hook_event_name}${event.session_id ? ` (session ${event.session_id})` : ''}:`;
  let outcome: Awaited<ReturnType<typeof generateHandoff>>;
  try {
    const context = await contextForPacket(workspaceDir, flags, io);
    // The hook names its own transcript: the workbench is derived from exactly that session.
    const session = event.transcript_path
      ? await readSessionFile(path.resolve(workspaceDir, event.transcript_path), 'claude-code').catch(() => null)
      : await sessionForCli(workspaceDir, flags, io.env);
    outcome = await generateHandoff({ workspaceDir, options, allowDirty: true, gitClient: createGitClient(workspaceDir), context, session });
  } catch (err) {
    await logLine(outputDir, `${tag} ${(err as Error)?.message ?? String(err)}`);
    return;
  }
  if (outcome.kind === 'refused') {
    await logLine(outputDir, `${tag} no packet written: ${outcome.reason}`);
    return;
  }
  for (const d of outcome.diagnostics) await logLine(outputDir, `${tag} ${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`);
  io.stdout(`handoff: ${outcome.kind} ${path.join(outcome.packetDir, 'handoff.json')}\n`);
}

/**
 * `handoff hook`: for Claude Code `SessionEnd` / `PreCompact` hooks. Reads the hook event JSON on
 * stdin and generates a packet for its `cwd`, accepting a dirty workbench (findings become block
 * risks). Problems go to `<outputDir>/hook.log`; the exit code is always 0.
 */
export const hookCommand: CommandSpec = {
  name: 'hook',
  summary: 'generate a packet from a Claude Code SessionEnd/PreCompact hook event on stdin (always exits 0)',
  usage: 'hook [--output-dir DIR]  < hook-event.json',
  flags: [{ name: 'output-dir', type: 'string', placeholder: 'DIR', help: 'where packets go, relative to the workbench (default: outputs/handoff)' }],
  async run({ flags, io }) {
    try {
      await runHook(flags, io);
    } catch (err) {
      await logLine(outputDirOf(io.cwd, { workbenchDir: '.', outputDir: 'outputs/handoff' }), `hook: ${(err as Error)?.message ?? String(err)}`);
    }
    return EXIT_OK;
  },
};
