import * as path from 'node:path';
import type { SessionSearch } from '../core/context/discovery';
import { sessionSearchOf } from '../core/context/discovery';
import type { MeterReading } from '../core/context/meter';
import { ALL_SOURCES } from '../core/context/discovery';
import { ContextMeter } from '../core/context/meter';
import type { VscodeAgentOptions } from '../core/context/vscodeAgents';
import type { ContextResult } from '../core/context/types';
import { outputDirOf, workbenchDirOf } from '../core/workflow/paths';
import type { SessionFacts } from '../core/session/model';
import type { SessionCut } from '../core/session/reader';
import { readFolderSession } from '../core/session/tracker';
import type { CliIO, FlagValues } from './types';
import { UsageError } from './types';

// The flags live apart (contextFlags.ts): small entries (the MCP server's) take them without the readers.
export { CONTEXT_FLAGS, READING_FLAGS, SESSION_FLAGS } from './contextFlags';

/** Where the VS Code agents' tasks are looked for, from the flags (relative to the folder). */
export function taskOptions(workspaceDir: string, flags: FlagValues): VscodeAgentOptions {
  const dir = (k: string) => (typeof flags[k] === 'string' ? path.resolve(workspaceDir, flags[k]) : undefined);
  const [clineDir, rooDir, zooDir, kiloDir, kiloDb, opencodeDb] = [dir('cline-dir'), dir('roo-dir'), dir('zoo-dir'), dir('kilo-dir'), dir('kilo-db'), dir('opencode-db')];
  const model = typeof flags['roo-model'] === 'string' ? flags['roo-model'].trim() : '';
  return { ...(clineDir ? { clineDir } : {}), ...(rooDir ? { rooDir } : {}), ...(zooDir ? { zooDir } : {}), ...(kiloDir ? { kiloDir } : {}), ...(kiloDb ? { kiloDb } : {}), ...(opencodeDb ? { opencodeDb } : {}), ...(model ? { rooModel: model } : {}) };
}

/** Reads the context of a folder once, with the roots and override from the flags and the environment. */
export async function readContext(workspaceDir: string, flags: FlagValues, env: Record<string, string | undefined>): Promise<MeterReading> {
  const str = (k: string) => (typeof flags[k] === 'string' ? path.resolve(workspaceDir, flags[k]) : undefined);
  const window = flags['window'];
  if (window !== undefined && (typeof window !== 'number' || !Number.isInteger(window) || window <= 0)) {
    throw new UsageError('--window must be a positive whole number of tokens');
  }
  const dirFlags = {
    workbenchDir: typeof flags['workbench-dir'] === 'string' ? flags['workbench-dir'] : '.',
    outputDir: typeof flags['output-dir'] === 'string' ? flags['output-dir'] : 'outputs/handoff',
  };
  const meter = new ContextMeter({
    ...taskOptions(workspaceDir, flags),
    sources: ALL_SOURCES,
    settle: true,
    folder: workspaceDir,
    workbenchDir: workbenchDirOf(workspaceDir, dirFlags),
    outputDir: outputDirOf(workspaceDir, dirFlags),
    claudeConfigDir: str('claude-config-dir') ?? (env['CLAUDE_CONFIG_DIR'] || undefined),
    codexHome: str('codex-home') ?? (env['CODEX_HOME'] || undefined),
    ...(typeof window === 'number' ? { windowOverride: window } : {}),
  });
  return meter.read();
}

/**
 * The agent session working in the folder (Claude Code transcript or Codex rollout, found as the
 * meter finds it), read once. Reading it must never stop a command: a failure means no session.
 */
export async function sessionForCli(workspaceDir: string, flags: FlagValues, env: Record<string, string | undefined>, cut?: SessionCut): Promise<SessionFacts | null> {
  const str = (k: string) => (typeof flags[k] === 'string' ? path.resolve(workspaceDir, flags[k]) : undefined);
  try {
    return await readFolderSession({
      ...(cut ? { cut } : {}),
      ...taskOptions(workspaceDir, flags),
      agents: ['claude', 'codex', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat', 'gemini', 'qwen', 'copilot-cli'],
      settle: true,
      folder: workspaceDir,
      claudeConfigDir: str('claude-config-dir') ?? (env['CLAUDE_CONFIG_DIR'] || undefined),
      codexHome: str('codex-home') ?? (env['CODEX_HOME'] || undefined),
    });
  } catch {
    return null;
  }
}

/** Where `sessionForCli` looks for the folder's session (for a refusal that names the places). */
export async function sessionSearchForCli(workspaceDir: string, flags: FlagValues, env: Record<string, string | undefined>): Promise<SessionSearch | null> {
  const str = (k: string) => (typeof flags[k] === 'string' ? path.resolve(workspaceDir, flags[k]) : undefined);
  try {
    return await sessionSearchOf({
      ...taskOptions(workspaceDir, flags),
      folder: workspaceDir,
      claudeConfigDir: str('claude-config-dir') ?? (env['CLAUDE_CONFIG_DIR'] || undefined),
      codexHome: str('codex-home') ?? (env['CODEX_HOME'] || undefined),
    });
  } catch {
    return null;
  }
}

/**
 * The agent's context reading for the packet (`context` at generation). Reading it must never stop
 * a handoff: any failure becomes an unknown reading that says why.
 */
export async function contextForPacket(workspaceDir: string, flags: FlagValues, io: CliIO): Promise<ContextResult> {
  try {
    const reading = await readContext(workspaceDir, flags, io.env);
    printContextWarnings(io, reading);
    return reading.current;
  } catch (err) {
    return { known: false, reason: `context usage could not be read: ${(err as Error).message}` };
  }
}

/** Located problems met while reading the sessions (a line too long, skipped), on stderr, once each. */
export function printContextWarnings(io: CliIO, reading: MeterReading): void {
  const seen = new Set<string>();
  for (const r of [reading.current, ...reading.candidates.map((c) => c.result)]) {
    for (const w of r.warnings ?? []) {
      if (seen.has(w)) continue;
      seen.add(w);
      io.stderr(`${w}\n`);
    }
  }
}
