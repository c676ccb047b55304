// `handoff statusline` on its own: the Claude Code statusLine bridge runs after every message, so it
// loads no schema library and no git client; the workbench words are required only when the cache
// cannot answer. Run directly (`node dist/statusline.js`) or through `handoff statusline`.
import { parseArgs } from './args';
import { statuslineCommand } from './commands/statusline';

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
        stdout: (t) => process.stdout.write(t),
        stderr: (t) => process.stderr.write(t),
        cwd: process.cwd(),
        env: process.env,
        readStdin: async () => {
          const chunks: Buffer[] = [];
          for await (const c of process.stdin) chunks.push(c as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        },
      },
    })
    .then(
      (code) => {
        process.exitCode = code;
      },
      (err: unknown) => {
        process.stderr.write(`handoff: ${(err as Error)?.message ?? String(err)}\n`);
        process.exitCode = 2;
      },
    );
}
