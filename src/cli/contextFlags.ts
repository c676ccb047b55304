import type { FlagSpec } from './types';

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
