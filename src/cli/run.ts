import { parseArgs } from './args';
import { COMMANDS } from './commandTable';
import { commandHelp, overviewHelp } from './help';
import { redactOutput } from './redactOutput';
import type { CliIO, CommandSpec, ProcessIO } from './types';
import { EXIT_OK, EXIT_USAGE, UsageError } from './types';

/**
 * Runs one `handoff` invocation and returns the exit code. Never throws: usage errors and failures
 * are one line on stderr (no stack trace), diagnostics are warnings.
 */
export async function runCli(argv: string[], processIo: ProcessIO, commands: readonly CommandSpec[] = COMMANDS): Promise<number> {
  const io = redactingIo(processIo);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    (name === undefined ? io.stderr : io.stdout)(overviewHelp(commands));
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (name === 'help') {
    const topic = rest[0];
    if (!topic) {
      io.stdout(overviewHelp(commands));
      return EXIT_OK;
    }
    const cmd = commands.find((c) => c.name === topic);
    if (!cmd) return usage(io, `unknown command "${topic}"`);
    io.stdout(commandHelp(cmd));
    return EXIT_OK;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) return usage(io, `unknown command "${name}"`);
  // After `--` the words belong to another program (`handoff record -- grep --help`).
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (own.includes('--help') || own.includes('-h')) {
    io.stdout(commandHelp(command));
    return EXIT_OK;
  }
  const parsed = parseArgs(rest, command.flags);
  if (!parsed.ok) return usage(io, `${name}: ${parsed.error}`);
  const pos = command.positionals ?? { min: 0, max: 0, names: '' };
  if (parsed.positionals.length < pos.min || parsed.positionals.length > pos.max) {
    return usage(io, pos.max === 0 ? `${name}: unexpected argument "${parsed.positionals[0]}"` : `${name}: expected ${pos.names}`, !pos.names.includes('(see '));
  }
  try {
    return await command.run({ flags: parsed.flags, positionals: parsed.positionals, io });
  } catch (err) {
    if (err instanceof UsageError) return usage(io, `${name}: ${err.message}`, false);
    // The message is the sentence (a GitError's already is one; a Node error's starts with its code).
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(`handoff ${name}: ${message.split('\n')[0]}\n`);
    return EXIT_USAGE;
  }
}

/** The one choke point of the command line: every line, text or --json, is redacted whole here. */
export function redactingIo(processIo: ProcessIO): CliIO {
  return {
    ...processIo,
    stdout: (text) => processIo.stdout(redactOutput(text)),
    stderr: (text) => processIo.stderr(redactOutput(text)),
  };
}

function usage(io: CliIO, message: string, hint = true): number {
  io.stderr(`handoff: ${message}${hint ? ' (see handoff --help)' : ''}\n`);
  return EXIT_USAGE;
}
