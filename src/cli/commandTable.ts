import { archiveCommand } from './commands/archive';
import { auditCommand } from './commands/audit';
import { checkCommand } from './commands/check';
import { exportCommand, importCommand, trustCommand } from './commands/exchange';
import { generateCommand } from './commands/generate';
import { hookCommand } from './commands/hook';
import { listCommand } from './commands/list';
import { mcpCommand } from './commands/mcp';
import { notifyCommand } from './commands/notify';
import { promptCommand } from './commands/prompt';
import { recordCommand } from './commands/record';
import { risksCommand } from './commands/risks';
import { secretsCommand } from './commands/secrets';
import { setupCommand } from './commands/setup';
import { showCommand } from './commands/show';
import { statusCommand } from './commands/status';
import { statuslineCommand } from './commands/statusline';
import type { CommandSpec } from './types';

/** Every `handoff` subcommand, in help order. Add a command: one file under commands/, one line here. */
export const COMMANDS: CommandSpec[] = [
  generateCommand,
  checkCommand,
  listCommand,
  archiveCommand,
  hookCommand,
  setupCommand,
  notifyCommand,
  promptCommand,
  recordCommand,
  auditCommand,
  secretsCommand,
  showCommand,
  exportCommand,
  importCommand,
  trustCommand,
  statusCommand(),
  risksCommand,
  mcpCommand,
  statuslineCommand(),
];
