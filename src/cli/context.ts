import * as path from 'node:path';
import type { SessionSearch } from '../core/context/discovery';
import { sessionSearchOf } from '../core/context/discovery';
import type { MeterReading } from '../core/context/meter';
import { ALL_SOURCES } from '../core/context/discovery';
import { ContextMeter } from '../core/context/meter';
import type { VscodeAgentOptions } from '../core/context/vscodeAgents';
import type { ContextResult } from '../core/context/types';
import { workbenchDirOf } from '../core/workflow/paths';
import type { SessionFacts } from '../core/session/model';
import type { SessionCut } from '../core/session/reader';
import { readFolderSession } from '../core/session/tracker';
import type { CliIO, FlagSpec, FlagValues } from './types';
import { UsageError } from './types';

/** Flags of the commands that take a context reading. */
export const CONTEXT_FLAGS: FlagSpec[] = [
  { name: 'workbench-dir', type: 'string', placeholder: 'DIR', help: 'the workbench, relative to --dir (default: .)' },
  { name: 'warn-at', type: 'number', placeholder: 'F', help: 'wrap-up threshold as a fraction of the window (default 0.5)' },
  { name: 'urge-at', type: 'number', placeholder: 'F', help: 'urgent threshold as a fraction of the window (default 0.75)' },
  { name: 'claude-config-dir', type: 'string', placeholder: 'DIR', help: 'Claude Code config dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)' },
  { name: 'codex-home', type: 'string', placeholder: 'DIR', help: 'Codex home (default: $CODEX_HOME or ~/.codex)' },
  { name: 'window', type: 'number', placeholder: 'TOKENS', help: 'context-window size, instead of detecting it (Cline / Roo Code: instead of the model table)' },
  { name: 'cline-dir', type: 'string', placeholder: 'DIR', help: "Cline's storage folder, looked in as well as VS Code's global storage (every variant)" },
  { name: 'roo-dir', type: 'string', placeholder: 'DIR', help: "Roo Code's storage folder (its customStoragePath), looked in as well" },
  { name: 'zoo-dir', type: 'string', placeholder: 'DIR', help: "Zoo Code's storage folder (its customStoragePath), looked in as well" },
  { name: 'kilo-dir', type: 'string', placeholder: 'DIR', help: "Kilo Code's storage folder (its older task format), looked in as well" },
  { name: 'kilo-db', type: 'string', placeholder: 'FILE', help: "Kilo Code's database (default: $KILO_DB, else $XDG_DATA_HOME/kilo/kilo.db, else ~/.local/share/kilo/kilo.db)" },
  { name: 'opencode-db', type: 'string', placeholder: 'FILE', help: "OpenCode's database (default: $OPENCODE_DB, else $XDG_DATA_HOME/opencode/opencode.db, else ~/.local/share/opencode/opencode.db)" },
  { name: 'roo-model', type: 'string', placeholder: 'MODEL', help: 'the model Roo Code / Kilo Code use (they do not store it in the task)' },
];

const TASK_FLAGS = ['cline-dir', 'roo-dir', 'zoo-dir', 'kilo-dir', 'kilo-db', 'opencode-db'];

/** Where the agent's session files live, for commands that read the session but no context reading. */
export const SESSION_FLAGS: FlagSpec[] = CONTEXT_FLAGS.filter((f) => ['claude-config-dir', 'codex-home', ...TASK_FLAGS].includes(f.name));

/** The flags that say where to find the agent's session (no thresholds): for commands that only read. */
export const READING_FLAGS: FlagSpec[] = CONTEXT_FLAGS.filter((f) => ['workbench-dir', 'claude-config-dir', 'codex-home', 'window', ...TASK_FLAGS, 'roo-model'].includes(f.name));

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
  const meter = new ContextMeter({
    ...taskOptions(workspaceDir, flags),
    sources: ALL_SOURCES,
    settle: true,
    folder: workspaceDir,
    workbenchDir: workbenchDirOf(workspaceDir, { workbenchDir: typeof flags['workbench-dir'] === 'string' ? flags['workbench-dir'] : '.' }),
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
      agents: ['claude', 'codex', 'cline', 'roo', 'zoo', 'kilo', 'opencode', 'copilot-chat'],
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
