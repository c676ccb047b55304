// `handoff statusline` on its own: the Claude Code statusLine bridge runs after every message, so it
// loads no schema library and no git client; the workbench words are required only when the cache
// cannot answer. Run directly (`node dist/statusline.js`) or through `handoff statusline`.
import { readFileSync } from 'node:fs';
import { terminalSafe } from '../core/controlChars';
import { useBlockingFileAccess } from '../core/fsx';
import { redact } from '../core/redact';
import { parseArgs } from './args';
import { statuslineCommand } from './commands/statusline';

/**
 * All of stdin. Read synchronously: the stream machinery behind `process.stdin` costs more start-up
 * time than the whole reading. A non-blocking stdin (EAGAIN) falls back to the stream.
 */
async function readStdin(): Promise<string> {
  try {
    return readFileSync(0, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

// A one-shot process after every agent message: blocking reads and writes cost it nothing and skip
// the thread pool (the cache-miss reader in statuslineWords.js is switched too when it is loaded).
useBlockingFileAccess();
const argv = process.argv.slice(2);
if (argv[0] === 'statusline') argv.shift();
const command = statuslineCommand();
const parsed = parseArgs(argv, command.flags);
if (!parsed.ok) {
  process.stderr.write(`handoff: statusline: ${parsed.error} (see handoff statusline --help)\n`);
  process.exitCode = 2;
} else {
  void command
    .run({
      flags: parsed.flags,
      positionals: parsed.positionals,
      io: {
        stdout: (t) => process.stdout.write(terminalSafe(t)),
        stderr: (t) => process.stderr.write(terminalSafe(t)),
        cwd: process.cwd(),
        env: process.env,
        readStdin,
      },
    })
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err: unknown) => {
        process.stderr.write(redact(`handoff: ${(err as Error)?.message ?? String(err)}\n`));
        process.exitCode = 2;
      },
    );
}
