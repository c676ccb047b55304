// The full `handoff` command line: wires process I/O to the runner; everything else lives in run.ts.
import { redact } from '../core/redact';
import { PRELOADED_STDIN } from './commands/hookEvent';
import { runCli } from './run';

/** Stdin the small hook entry (hook.ts) already read, if it handed the event on. */
const preloaded = (globalThis as Record<string, unknown>)[PRELOADED_STDIN];

void runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  cwd: process.cwd(),
  env: process.env,
  writeStdout: (b) => process.stdout.write(b),
  writeStderr: (b) => process.stderr.write(b),
  readStdin: async () => {
    if (typeof preloaded === 'string') return preloaded;
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  exit: (code) => {
    process.exitCode = code;
    process.stdout.write('', () => process.exit(code));
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(redact(`handoff: ${(err as Error)?.message ?? String(err)}\n`));
    process.exitCode = 2;
  },
);
