import type { Redacted } from '../core/redact';

/** One flag of a command. `--name value` or `--name=value`; booleans take no value. */
export interface FlagSpec {
  name: string;
  type: 'boolean' | 'string' | 'number';
  /** Shown in help; for value flags also the placeholder (e.g. `DIR`). */
  help: string;
  placeholder?: string;
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

/**
 * Where the process writes: only redacted text reaches it. The runner hands commands a {@link CliIO}
 * that redacts everything on its way here, so no command — nor a new one — can print a secret.
 */
export interface ProcessIO extends Omit<CliIO, 'stdout' | 'stderr'> {
  stdout(text: Redacted): void;
  stderr(text: Redacted): void;
}

/** Where a command writes; tests and hooks can capture it. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Reads all of stdin (for hook commands). */
  readStdin?(): Promise<string>;
  /** Raw bytes to stdout / stderr, for output passed through unchanged (`handoff record`). */
  writeStdout?(bytes: Uint8Array): void;
  writeStderr?(bytes: Uint8Array): void;
  /** Ends the process once stdout is flushed (hooks: nothing left running may keep the agent waiting). */
  exit?(code: number): void;
}

export interface CommandContext {
  flags: FlagValues;
  positionals: string[];
  io: CliIO;
}

/**
 * A subcommand. To add one: write `src/cli/commands/<name>.ts` exporting a `CommandSpec`, and add it
 * to the list in `src/cli/commandTable.ts`.
 */
export interface CommandSpec {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Usage line after `handoff `, e.g. `generate [--dir DIR] [--json]`. */
  usage: string;
  flags: FlagSpec[];
  /** Allowed positional arguments (default none). */
  positionals?: { min: number; max: number; names: string };
  /** Returns the exit code: 0 done, 1 refused, 2 bad usage or unreadable input. */
  run(ctx: CommandContext): Promise<number>;
}

/** Thrown for bad usage or unreadable input; the runner prints its message on one line and exits 2. */
export class UsageError extends Error {}

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;
