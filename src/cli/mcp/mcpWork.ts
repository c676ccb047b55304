// The work behind the MCP server's tools and resources: loaded by the server (its own bundle,
// dist/mcpWork.js) at the first call that needs it, never to answer `initialize` or `tools/list`.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { resolveInside } from '../../core/safePath';
import { stripControl } from '../../core/controlChars';
import { serializePacket } from '../../core/packet/build';
import type { Packet } from '../../core/packet/schema';
import type { PromptAgent } from '../../core/render/forAgent';
import { renderMarkdown } from '../../core/render/markdown';
import { renderStaleNotice } from '../../core/render/sessionStart';
import { outputDirOf } from '../../core/workflow/paths';
import { currentWithTrust, handoverOf } from '../../core/workflow/restartPrompt';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import { readContext } from '../context';
import { redactOutput } from '../redactOutput';
import { statusOutput } from '../commands/status';
import type { CliIO } from '../types';
import { isBusy, type Ran } from './children';
import { Cancelled, isCancelled } from './rpc';
import type { HandoffMcpOptions, ToolResult, Work } from './server';

/** A result that finished after its call answered waits this long for the next call of the same tool. */
const KEEP_LATE_RESULT_MS = 5 * 60_000;
/** A session smaller than this is read whole before a call answers: it never gets a "still reading". */
export const SMALL_SESSION_BYTES = 16 * 1024 * 1024;
/** ... unless its work takes longer than this past the deadline (a machine under heavy load). */
const SMALL_SESSION_WAIT_MS = 30_000;

const FLAG_PASS = ['output-dir', 'claude-config-dir', 'codex-home', 'cline-dir', 'roo-dir', 'zoo-dir', 'kilo-dir', 'kilo-db', 'roo-model', 'window', 'workbench-dir'];

type Job<T> = { promise: Promise<T>; controller: AbortController; waiters: number; background: boolean; done?: { value: T; at: number } };
type Outcome<T> = { done: true; value: T } | { done: false };

const sleep = (ms: number, signal: AbortSignal): Promise<'timeout' | 'aborted'> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve('aborted');
    const onAbort = () => {
      clearTimeout(timer);
      resolve('aborted');
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve('timeout');
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The work of each tool call runs against a deadline: past it the call answers with what is known and
 * the work goes on; the next call of the same tool (and folder) gets its result once it is done. Calls
 * that ask the same share one piece of work; when every one of them is called off before it answered,
 * the work is stopped.
 */
export class Deadlines {
  private readonly jobs = new Map<string, Job<unknown>>();

  async within<T>(key: string, start: (signal: AbortSignal) => Promise<T>, ms: number, signal: AbortSignal, waitLonger: () => Promise<number>): Promise<Outcome<T>> {
    let job = this.jobs.get(key) as Job<T> | undefined;
    if (job?.done) {
      this.jobs.delete(key);
      if (Date.now() - job.done.at <= KEEP_LATE_RESULT_MS) return { done: true, value: job.done.value };
      job = undefined;
    }
    if (!job) {
      const controller = new AbortController();
      const fresh: Job<T> = { promise: start(controller.signal), controller, waiters: 0, background: false };
      fresh.promise.then((value) => (fresh.done = { value, at: Date.now() }), () => this.jobs.get(key) === fresh && this.jobs.delete(key));
      this.jobs.set(key, fresh);
      job = fresh;
    }
    const current = job;
    current.waiters++;
    const race = async (wait: number): Promise<{ value: T } | 'timeout' | 'aborted'> => {
      const local = new AbortController();
      const onAbort = () => local.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await Promise.race([current.promise.then((value) => ({ value })), sleep(wait, local.signal)]);
      } finally {
        signal.removeEventListener('abort', onAbort);
        local.abort();
      }
    };
    let calledOff = false;
    try {
      let r = await race(ms);
      if (r === 'timeout' && !signal.aborted) {
        const more = await waitLonger();
        if (more > 0 && !signal.aborted) r = await race(more);
      }
      if (r === 'aborted' || signal.aborted) {
        calledOff = true;
        throw new Cancelled();
      }
      if (r === 'timeout') {
        // Answered with what is known: the work goes on for the next call.
        current.background = true;
        return { done: false };
      }
      if (this.jobs.get(key) === current) this.jobs.delete(key);
      return { done: true, value: r.value };
    } finally {
      current.waiters--;
      // No call waits for it any more, and none was told it goes on: it stops.
      if (calledOff && current.waiters === 0 && !current.background && !current.done) {
        current.controller.abort();
        if (this.jobs.get(key) === current) this.jobs.delete(key);
      }
    }
  }
}

/** A tool's answer: whatever it holds (a command's output, a path, a refusal) passes the one redaction here. */
const text = (t: string, isError = false): ToolResult => ({ content: [{ type: 'text', text: redactOutput(t) as string }], ...(isError ? { isError: true } : {}) });

/** The git repository a real path lies in (the nearest folder above holding `.git`), or null. */
async function repositoryOf(real: string): Promise<string | null> {
  for (let d = real; ; d = path.dirname(d)) {
    if (await fs.lstat(path.join(d, '.git')).then(() => true, () => false)) return d;
    if (path.dirname(d) === d) return null;
  }
}

/**
 * The folder a call asks about: the served folder, or one inside it; anything else is refused. With
 * `sameRepository` (a server started without `--dir`), a folder inside that lies in another repository
 * (another project under a home folder the server was started in) is refused too.
 */
export async function folderOf(root: string, dir: string | undefined, o: { sameRepository?: boolean } = {}): Promise<{ ok: true; dir: string } | { ok: false; message: string }> {
  if (dir === undefined || dir === '' || path.resolve(root, dir) === root) return { ok: true, dir: root };
  const inside = resolveInside(root, dir);
  const refused = { ok: false as const, message: `refused: ${stripControl(dir)} is outside the workspace folder ${root}; this server answers only for that folder and the folders inside it` };
  if (!inside) return refused;
  // A link inside that leads out is outside too.
  const [realRoot, real] = await Promise.all([fs.realpath(root), fs.realpath(inside).catch(() => null)]);
  if (!real) return { ok: false, message: `no such folder: ${stripControl(dir)} (in ${root})` };
  if (real !== realRoot && !resolveInside(realRoot, real)) return refused;
  if (o.sameRepository && real !== realRoot && (await repositoryOf(real)) !== (await repositoryOf(realRoot))) {
    return { ok: false, message: `refused: ${stripControl(dir)} is another project than ${root}, where this server was started; start it with --dir to serve the folders inside one` };
  }
  return { ok: true, dir: inside };
}

/** A size for people: `154 MB`, `800 KB`. */
export function sizeText(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${mb.toFixed(0)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** The work behind the tools, for one served folder; `run` runs a `handoff` command as a child process. */
export function createWork(opts: HandoffMcpOptions, run: (argv: string[], signal: AbortSignal) => Promise<Ran>): Work {
  const deadlines = new Deadlines();
  const passed = (): string[] => FLAG_PASS.flatMap((f) => (opts.flags[f] === undefined ? [] : [`--${f}`, String(opts.flags[f])]));
  const runCommand = (argv: string[], signal: AbortSignal) => run([...argv, ...passed()], signal);
  const outputOf = (r: Ran) => ({ text: `${r.stdout}${r.code === 0 ? '' : r.stderr}`.trim() || r.stderr.trim(), isError: r.code !== 0 });

  /** The folder's agent session and its size, from a tail read (quick whatever its size). */
  const session = async (dir: string): Promise<{ file: string; size: number } | null> => {
    const reading = await readContext(dir, opts.flags, opts.env).catch(() => null);
    const file = reading?.current.file;
    if (!file) return null;
    const size = await fs.stat(file).then((s) => s.size, () => null);
    return size === null ? null : { file, size };
  };
  /** What is still being read, for an answer past the deadline: the agent session, with its size. */
  const stillReading = async (dir: string): Promise<string> => {
    const s = await session(dir);
    return s ? `the agent session ${s.file} (${sizeText(s.size)}) and the workbench` : 'the workbench and its agent session';
  };

  /** One tool call: the folder checked, the work against the deadline, `partial` past it. */
  const call = async (name: string, dir: string | undefined, signal: AbortSignal, work: (dir: string, signal: AbortSignal) => Promise<{ text: string; isError?: boolean }>, partial: (dir: string) => Promise<string>, args: unknown = null): Promise<ToolResult> => {
    const folder = await folderOf(opts.workspaceDir, dir, { sameRepository: opts.explicitDir !== true });
    if (!folder.ok) return text(folder.message, true);
    // A small session is read whole before the answer: past the deadline only a big one is "still reading".
    const waitLonger = async () => ((await session(folder.dir))?.size ?? 0) < SMALL_SESSION_BYTES ? SMALL_SESSION_WAIT_MS : 0;
    try {
      // A late result is handed only to a call that asked the same (the same folder, goal, agent).
      const r = await deadlines.within(`${name}\0${folder.dir}\0${JSON.stringify(args)}`, (s) => work(folder.dir, s), opts.answerWithinMs, signal, waitLonger);
      if (r.done) return text(r.value.text, r.value.isError === true);
      return text(await partial(folder.dir));
    } catch (err) {
      if (isCancelled(err) || isBusy(err)) throw err;
      return text(`handoff mcp: ${(err as Error).message}`, true);
    }
  };

  const tools: Record<string, (args: Record<string, string | undefined>, signal: AbortSignal) => Promise<ToolResult>> = {
    handoff_prompt: ({ dir, for: target }, signal) =>
      call('handoff_prompt', dir, signal, async (d) => {
        const options = optionsOf(opts.flags);
        const { current } = await currentWithTrust(d, options, createGitClient(d));
        if (!current) return { text: `No handoff packet in ${outputDirOf(d, options)} yet: call handoff_generate to write one.` };
        const { text: prompt } = await handoverOf(d, options, current, { door: 'mcp', ...(target ? { target: target as PromptAgent } : {}) });
        return { text: prompt };
      }, async () => 'Still reading the handoff packet and its inputs; call handoff_prompt again in a few seconds.', target ?? null),
    handoff_generate: ({ dir, goal }, signal) =>
      call(
        'handoff_generate',
        dir,
        signal,
        async (d, s) => outputOf(await runCommand(['generate', '--dir', d, '--json', ...(goal ? ['--client-goal', goal] : [])], s)),
        async (d) => `Still writing the packet: reading ${await stillReading(d)}. It goes on in the background; call handoff_generate again for its path, next action and audit.`,
        goal ?? null,
      ),
    handoff_status: ({ dir }, signal) =>
      call('handoff_status', dir, signal, async (d, s) => withholdStaleNext(outputOf(await runCommand(['status', '--dir', d], s))), async (d) => {
        // The context reading is a tail read: it answers at once, whatever the session's size.
        const [quick, reading] = await Promise.all([contextOnly(d), stillReading(d)]);
        return `${quick.trim()}\nStill reading ${reading} for the clean state and the active packet: call handoff_status again in a few seconds.`;
      }),
    handoff_risks: ({ dir }, signal) =>
      call('handoff_risks', dir, signal, async (d, s) => outputOf(await runCommand(['risks', '--dir', d], s)), async (d) => `Still reading ${await stillReading(d)}; call handoff_risks again in a few seconds.`),
  };

  /** `handoff status` without the workbench part: the same function the command prints with. */
  const contextOnly = async (dir: string): Promise<string> => {
    let out = '';
    const io: CliIO = { stdout: (t) => void (out += t), stderr: () => undefined, cwd: opts.workspaceDir, env: opts.env };
    await statusOutput(dir, opts.flags, io, null).catch((err: Error) => void (out += `Context  unknown: ${err.message}\n`));
    return out;
  };

  return {
    callTool: (name, args, signal) => tools[name]!(args, signal),
    // The active packet's files, read again at every request: a packet written meanwhile is the one served.
    async readResource(file) {
      const render: (p: Packet) => string = file === 'handoff.json' ? serializePacket : renderMarkdown;
      const options = optionsOf(opts.flags);
      const { current } = await currentWithTrust(opts.workspaceDir, options, createGitClient(opts.workspaceDir));
      // One not written here: nothing of it; a stale one: the notice with its reasons — as at SessionStart.
      const body = !current
        ? `No handoff packet in ${outputDirOf(opts.workspaceDir, options)} yet: call handoff_generate to write one.`
        : current.trust.kind === 'foreign' ? current.trust.notice
          : current.trust.kind === 'stale' ? `${renderStaleNotice(current.stored.packet, current.trust.reasons)} Its ${file} is for the user to review (handoff show), not for an agent to act on.`
            : null;
      if (body !== null || !current) return { mimeType: 'text/plain', text: redactOutput(body ?? '') as string };
      return { text: redactOutput(render(current.stored.packet)) as string };
    },
  };
}

/**
 * What `handoff_status` hands a model: the status screen with a stale packet's next action withheld,
 * as SessionStart withholds it (the screen a person reads in the terminal keeps it).
 */
export function withholdStaleNext<T extends { text: string }>(out: T): T {
  const lines = out.text.split('\n');
  const at = lines.findIndex((l) => /^Packet {3}.* · stale\b/.test(l));
  if (at === -1) return out;
  for (let i = at + 1; i < lines.length && lines[i]!.startsWith('         '); i++) {
    if (lines[i]!.startsWith('         next: ')) lines[i] = '         next: withheld while the packet is stale, as at SessionStart (the user reviews it with handoff show)';
  }
  return { ...out, text: lines.join('\n') };
}
