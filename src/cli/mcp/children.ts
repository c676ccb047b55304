import { spawn, type ChildProcess } from 'node:child_process';
import { Cancelled } from './rpc';

/** How many `handoff` processes the server runs at once (each may read a session of hundreds of MB). */
export const MAX_RUNNING = 2;
/** How many more calls wait for one of them; a call beyond is refused at once. */
export const MAX_WAITING = 4;
/** A child asked to stop that is still there after this is killed outright. */
const KILL_AFTER_MS = 3000;

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A call refused because the server already runs and queues all it takes. */
export class Busy extends Error {
  override readonly name = 'Busy';
}

/** By name (see isCancelled). */
export const isBusy = (err: unknown): boolean => err instanceof Error && err.name === 'Busy';

/**
 * The `handoff` processes of the server's tool calls: at most `maxRunning` at a time, `maxWaiting`
 * more queued, the rest refused. A call's process ends when its call is called off (its signal) and
 * all of them when the server stops, each with its own children (git): nothing outlives the client.
 */
export class Children {
  private readonly live = new Set<ChildProcess>();
  private running = 0;
  private readonly queue: { start: () => void; signal: AbortSignal; drop: () => void }[] = [];

  constructor(private readonly script: string, private readonly maxRunning = MAX_RUNNING, private readonly maxWaiting = MAX_WAITING) {}

  /** Runs `handoff ARGV` in a process of its own and captures what it prints (redacted by the command itself). */
  run(argv: string[], env: Record<string, string | undefined>, cwd: string, signal: AbortSignal): Promise<Ran> {
    if (signal.aborted) return Promise.reject(new Cancelled());
    return new Promise<Ran>((resolve, reject) => {
      const start = () => {
        this.running++;
        this.spawnOne(argv, env, cwd, signal).then(resolve, reject).finally(() => {
          this.running--;
          this.next();
        });
      };
      if (this.running < this.maxRunning) return start();
      if (this.queue.length >= this.maxWaiting) {
        return reject(new Busy(`busy: ${this.running} calls are running and ${this.queue.length} waiting, the most this server takes; call again once one of them has answered`));
      }
      const entry = { start, signal, drop: () => {} };
      entry.drop = () => {
        const i = this.queue.indexOf(entry);
        if (i !== -1) this.queue.splice(i, 1);
        reject(new Cancelled());
      };
      signal.addEventListener('abort', entry.drop, { once: true });
      this.queue.push(entry);
    });
  }

  /** How many processes are running now. */
  get count(): number {
    return this.live.size;
  }

  /** Ends every process (the client went away, or the server stops), and waits until they are gone. */
  async stopAll(): Promise<void> {
    for (const entry of this.queue.splice(0)) entry.drop();
    const children = [...this.live];
    await Promise.all(children.map((child) => stop(child)));
  }

  private next(): void {
    while (this.running < this.maxRunning && this.queue.length) {
      const entry = this.queue.shift()!;
      entry.signal.removeEventListener('abort', entry.drop);
      entry.start();
    }
  }

  private spawnOne(argv: string[], env: Record<string, string | undefined>, cwd: string, signal: AbortSignal): Promise<Ran> {
    return new Promise((resolve, reject) => {
      // A process group of its own (POSIX), so that stopping it stops the git it runs as well.
      const child = spawn(process.execPath, [this.script, ...argv], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
      this.live.add(child);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout?.on('data', (d: Buffer) => out.push(d));
      child.stderr?.on('data', (d: Buffer) => err.push(d));
      const onAbort = () => void stop(child);
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = (r: Ran | Error) => {
        this.live.delete(child);
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(new Cancelled());
        else if (r instanceof Error) reject(r);
        else resolve(r);
      };
      child.on('error', (e) => settle(e));
      child.on('close', (code) => settle({ code: code ?? 2, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    });
  }
}

/** Stops a child and its process group: SIGTERM, then SIGKILL if it is still there; resolves once it is gone. */
function stop(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (process.platform === 'win32') child.kill(sig);
      else process.kill(-pid, sig);
    } catch {
      // already gone
    }
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => signal('SIGKILL'), KILL_AFTER_MS);
    child.once('close', () => {
      clearTimeout(timer);
      // What the group still holds (a git it started) goes with it.
      signal('SIGKILL');
      resolve();
    });
    signal('SIGTERM');
  });
}
