import { generateCommand } from './commands/generate';
import { promptCommand } from './commands/prompt';
import { showCommand } from './commands/show';
import { statusCommand } from './commands/status';
import { statuslineCommand } from './commands/statusline';
import type { CommandSpec } from './types';

/** Every `handoff` subcommand, in help order. Add a command: one file under commands/, one line here. */
export const COMMANDS: CommandSpec[] = [
  generateCommand,
  promptCommand,
  showCommand,
  statusCommand(),
  statuslineCommand(),
];
