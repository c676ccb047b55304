// The bundle the small hook entry (hook.ts) loads for SessionStart (dist/hookStart.js): the answer
// without the command line, its output through the same redaction as the command line's.
import { sessionStartHook as answer } from './commands/hookStart';
import { redactOutput } from './redactOutput';
import type { CliIO } from './types';

export const sessionStartHook: typeof answer = (event, flags, io: CliIO) =>
  answer(event, flags, { ...io, stdout: (t) => io.stdout(redactOutput(t)), stderr: (t) => io.stderr(redactOutput(t)) });
