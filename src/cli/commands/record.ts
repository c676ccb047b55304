import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { appendFeedbackLine, recordLine } from '../../core/artifacts/appendRecord';
import type { FeedbackRecord } from '../../core/artifacts/schemas';
import { stripControl } from '../../core/controlChars';
import { outputDirOf, workbenchDirOf } from '../../core/workflow/paths';
import { optionsOf, workspaceDirOf } from '../common';
import type { CliIO, CommandSpec } from '../types';
import { UsageError } from '../types';

/** The output kept per stream while the command runs; redacted whole, then cut to the record's tail. */
const KEEP_BYTES = 64 * 1024;
/** After a timeout, SIGTERM first; whatever still runs this much later gets SIGKILL. */
const KILL_GRACE_MS = 2000;
/** `timeout(1)`'s exit code for a command it stopped. */
const EXIT_TIMEOUT = 124;
/** The shell's exit code for a command that cannot be found or run. */
const EXIT_CANNOT_RUN = 127;

/** The last `KEEP_BYTES` of a stream, as chunks. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;

  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= KEEP_BYTES) this.size -= this.chunks.shift()!.length;
  }

  /** The kept text: terminal escape sequences and carriage-return redraws resolved to what was left. */
  text(): string {
    const raw = Buffer.concat(this.chunks).toString('utf8');
    return stripControl(
      raw
        .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, '') // OSC (titles, hyperlinks)
        .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '') // CSI (colours, cursor moves)
        .replace(/\r\n/g, '\n')
        .split('\n')
        .map((l) => l.slice(l.lastIndexOf('\r') + 1))
        .join('\n'),
    ).trimEnd();
  }
}

interface Outcome {
  exitCode: number | null;
  /** What `handoff record` exits with: the command's code, 128 + signal, 124 after a timeout, 127. */
  status: number;
  error?: string;
}

/** Passes a stream through live (bytes unchanged) while keeping its tail. */
function passThrough(stream: NodeJS.ReadableStream, write: ((b: Uint8Array) => void) | undefined, text: (t: string) => void, tail: Tail): void {
  const decoder = new StringDecoder('utf8');
  stream.on('data', (b: Buffer) => {
    tail.push(b);
    if (write) write(b);
    else text(decoder.write(b));
  });
  stream.on('end', () => {
    if (!write) text(decoder.end());
  });
}

/**
 * The keeper: leads the command's own process group and runs the command in it. Group signals are the
 * command's to answer (the keeper ignores them and then exits as the command did). Its fd 3 is a pipe
 * from `handoff record`: when that closes — `record` is gone, even by SIGKILL of its own group — the
 * keeper kills its group, so the command never outlives `record`. A command that cannot start is told
 * back on the same pipe.
 */
const KEEPER = `
const { spawn } = require('node:child_process');
const net = require('node:net');
const [cmd, ...args] = process.argv.slice(1);
const ignore = () => {};
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const s of SIGNALS) process.on(s, ignore);
// A socket, not a file stream: a blocking read in the thread pool would hold up the exit.
const watch = new net.Socket({ fd: 3, readable: true, writable: true });
watch.on('data', ignore);
watch.on('error', ignore);
watch.on('close', () => { try { process.kill(-process.pid, 'SIGKILL'); } catch {} });
const child = spawn(cmd, args, { stdio: 'inherit' });
child.on('error', (err) => {
  const done = () => process.exit(127);
  try { watch.write(JSON.stringify({ error: err.code || err.message }) + '\\n', done); } catch { done(); }
  setTimeout(done, 1000);
});
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code === null ? 1 : code);
  for (const s of SIGNALS) process.off(s, ignore);
  try { process.kill(process.pid, signal); } catch {}
  setTimeout(() => process.exit(128 + (require('node:os').constants.signals[signal] || 0)), 200);
});
`;

/** Runs the command in its own process group; forwards Ctrl-C and termination to the whole group. */
function run(argv: string[], cwd: string, io: CliIO, timeoutS: number | undefined, tails: { out: Tail; err: Tail }): Promise<Outcome> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv as [string, ...string[]];
    // Outside Windows the command runs under the keeper, which dies with this process's group.
    const kept = process.platform !== 'win32';
    const child = kept
      ? spawn(process.execPath, ['-e', KEEPER, '--', cmd, ...args], { cwd, stdio: ['inherit', 'pipe', 'pipe', 'pipe'], detached: true })
      : spawn(cmd, args, { cwd, stdio: ['inherit', 'pipe', 'pipe'] });
    let cannotStart: string | undefined;
    const told = child.stdio[3] as NodeJS.ReadableStream | null | undefined;
    const stdout = child.stdout as NodeJS.ReadableStream & { destroy(): void };
    const stderr = child.stderr as NodeJS.ReadableStream & { destroy(): void };
    told?.on('data', (b: Buffer) => {
      const m = /"error":"([^"]*)"/.exec(b.toString('utf8'));
      if (m) cannotStart = m[1];
    });
    told?.on('error', () => undefined);
    passThrough(stdout, io.writeStdout, (t) => io.stdout(t), tails.out);
    passThrough(stderr, io.writeStderr, (t) => io.stderr(t), tails.err);
    const group = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(process.platform === 'win32' ? child.pid : -child.pid, signal);
      } catch {
        // already gone
      }
    };
    const forward = (signal: NodeJS.Signals) => () => group(signal);
    const forwarded = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)] as const);
    for (const [s, h] of forwarded) process.on(s, h);
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timer =
      timeoutS === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            group('SIGTERM');
            killTimer = setTimeout(() => group('SIGKILL'), KILL_GRACE_MS);
          }, timeoutS * 1000);
    let settled = false;
    const finish = (o: Outcome): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      for (const [s, h] of forwarded) process.off(s, h);
      // A timed-out command's helpers go down with it, even those that ignored SIGTERM.
      if (timedOut) group('SIGKILL');
      if (killTimer) clearTimeout(killTimer);
      resolve(o);
    };
    const cannotRun = (code: string | undefined, message: string): void => {
      const why = code === 'ENOENT' ? 'command not found' : code === 'EACCES' ? 'permission denied' : message;
      io.stderr(`handoff record: cannot run ${cmd}: ${why}\n`);
      finish({ exitCode: EXIT_CANNOT_RUN, status: EXIT_CANNOT_RUN, error: `cannot run ${cmd}: ${why}` });
    };
    child.on('error', (err) => cannotRun((err as NodeJS.ErrnoException).code, err.message));
    child.on('exit', (code, signal) => {
      const outcome: Outcome = timedOut
        ? { exitCode: null, status: EXIT_TIMEOUT, error: `timeout after ${timeoutS} s` }
        : signal
          ? { exitCode: null, status: 128 + (osConstants.signals[signal] ?? 0), error: `killed by ${signal}` }
          : { exitCode: code ?? null, status: code ?? 1 };
      // The keeper's word that the command never started arrives on its pipe, read by now.
      const end = (): void => (cannotStart !== undefined && code === EXIT_CANNOT_RUN ? cannotRun(cannotStart, cannotStart) : finish(outcome));
      // Let the pipes drain, but a background helper holding them open must not keep us waiting.
      const drained = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        end();
      }, 500);
      child.on('close', () => {
        clearTimeout(drained);
        end();
      });
    });
  });
}

/**
 * `handoff record -- CMD [ARGS…]`: runs a command with its output passed through live and appends one
 * record to `feedback_record.jsonl` (argv, exit code or null, start, duration, redacted output tails,
 * optional note), then exits with the command's own exit code. For agents that keep no session file.
 */
export const recordCommand: CommandSpec = {
  name: 'record',
  summary: 'run a command, pass its output through, and append its result to feedback_record.jsonl',
  usage: 'record [--dir DIR] [--workbench-dir DIR] [--note TEXT] [--timeout S] -- CMD [ARGS…]',
  flags: [
    { name: 'dir', type: 'string', placeholder: 'DIR', help: 'the workspace folder (default: the current directory); the command runs in the current directory' },
    { name: 'workbench-dir', type: 'string', placeholder: 'DIR', help: 'the workbench holding feedback_record.jsonl, relative to --dir (default: .)' },
    { name: 'note', type: 'string', placeholder: 'TEXT', help: 'why the command was run or what it showed (kept as agent_note)' },
    { name: 'timeout', type: 'number', placeholder: 'S', help: 'stop the command (its whole process group) after S seconds; recorded with exit code null, exits 124' },
  ],
  positionals: { min: 1, max: Number.MAX_SAFE_INTEGER, names: 'a command to run: handoff record -- CMD [ARGS…] (see handoff help record)' },
  async run({ flags, positionals, io }) {
    const timeout = flags['timeout'];
    if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0))) throw new UsageError('--timeout must be a positive number of seconds');
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    const file = path.join(workbenchDirOf(workspaceDir, options), 'feedback_record.jsonl');
    const lockDir = outputDirOf(workspaceDir, options);

    const tails = { out: new Tail(), err: new Tail() };
    const startedAt = new Date();
    const t0 = process.hrtime.bigint();
    const outcome = await run(positionals, io.cwd, io, timeout, tails);
    const note = typeof flags['note'] === 'string' && flags['note'].trim() ? flags['note'].trim() : undefined;
    const record: FeedbackRecord = {
      command: positionals,
      exit_code: outcome.exitCode,
      started_at: startedAt.toISOString(),
      duration_ms: Math.round(Number(process.hrtime.bigint() - t0) / 1e6),
      stdout_tail: tails.out.text(),
      stderr_tail: tails.err.text(),
      ...(note ? { agent_note: note } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
    try {
      await appendFeedbackLine(file, recordLine(record), { root: workspaceDir, lockDir });
    } catch (err) {
      io.stderr(`handoff record: the result was not recorded: ${(err as Error).message}\n`);
    }
    return outcome.status;
  },
};
