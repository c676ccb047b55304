import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { resolveInside } from '../../core/safePath';
import { stripControl } from '../../core/controlChars';
import { serializePacket } from '../../core/packet/build';
import type { Packet } from '../../core/packet/schema';
import { PROMPT_AGENTS, type PromptAgent } from '../../core/render/forAgent';
import { renderMarkdown } from '../../core/render/markdown';
import { outputDirOf } from '../../core/workflow/paths';
import { currentWithTrust, handoverOf } from '../../core/workflow/restartPrompt';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import { redactOutput } from '../redactOutput';
import { runCli } from '../run';
import { statusCommand } from '../commands/status';
import { readContext } from '../context';
import type { FlagValues, ProcessIO } from '../types';
import { EXIT_USAGE } from '../types';
import type { Redacted } from '../../core/redact';
import { LineGuard } from './lineGuard';

/** Answer within this, by default: well inside every MCP client's request timeout. */
export const DEFAULT_ANSWER_WITHIN_MS = 2500;
/** A result that finished after its call answered waits this long for the next call of the same tool. */
const KEEP_LATE_RESULT_MS = 5 * 60_000;

export interface HandoffMcpOptions {
  /** The folder the server serves (`--dir`, else where it was started); every `dir` must lie inside it. */
  workspaceDir: string;
  /** The command line's own flags passed on to each command (`--output-dir`, where sessions are). */
  flags: FlagValues;
  env: Record<string, string | undefined>;
  answerWithinMs: number;
  version: string;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const FLAG_PASS = ['output-dir', 'claude-config-dir', 'codex-home', 'cline-dir', 'roo-dir', 'kilo-dir', 'roo-model', 'window', 'workbench-dir'];

/**
 * Runs one `handoff` command in this process and captures what it prints: the same runner as the
 * command line, so every answer passes the one redaction (`runCli`'s output choke point).
 */
async function runHere(argv: string[], env: Record<string, string | undefined>, cwd: string, commands?: Parameters<typeof runCli>[2]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const io: ProcessIO = {
    stdout: (t: Redacted) => void (stdout += t),
    stderr: (t: Redacted) => void (stderr += t),
    cwd,
    env,
  };
  const code = await runCli(argv, io, commands);
  return { code, stdout, stderr };
}

/**
 * Runs one `handoff` command as a process of its own (this same CLI), so that reading a huge session
 * never holds up this process: it keeps answering, and its deadlines fire on time on a loaded machine.
 * The command redacts what it prints, as on the command line.
 */
function runApart(argv: string[], env: Record<string, string | undefined>, cwd: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliScript(), ...argv], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => resolve({ code: EXIT_USAGE, stdout: '', stderr: redactOutput(`handoff mcp: ${e.message}`) }));
    child.on('close', (code) => resolve({ code: code ?? EXIT_USAGE, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** The `handoff` script this server was started from (dist/cli.js). */
const cliScript = (): string => process.argv[1] ?? path.join(__dirname, 'cli.js');

type Late<T> = { promise: Promise<T>; done?: { value: T; at: number } };

/**
 * The work of each tool call runs against a deadline: past it the call answers with what is known and
 * the work goes on; the next call of the same tool (and folder) gets its result once it is done.
 */
class Deadlines {
  private readonly jobs = new Map<string, Late<unknown>>();

  async within<T>(key: string, start: () => Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
    let job = this.jobs.get(key) as Late<T> | undefined;
    if (job?.done) {
      this.jobs.delete(key);
      if (Date.now() - job.done.at <= KEEP_LATE_RESULT_MS) return { done: true, value: job.done.value };
      job = undefined;
    }
    if (!job) {
      const fresh: Late<T> = { promise: start() };
      fresh.promise.then((value) => (fresh.done = { value, at: Date.now() }), () => this.jobs.delete(key));
      this.jobs.set(key, fresh);
      job = fresh;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
    try {
      const r = await Promise.race([job.promise, timeout]);
      if (r === 'timeout') return { done: false };
      this.jobs.delete(key);
      return { done: true, value: r as T };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A tool's answer: whatever it holds (a command's output, a path, a refusal) passes the one redaction here. */
const text = (t: string, isError = false) => ({ content: [{ type: 'text' as const, text: redactOutput(t) as string }], ...(isError ? { isError: true } : {}) });

/** The folder a call asks about: the served folder, or one inside it; anything else is refused. */
export async function folderOf(root: string, dir: string | undefined): Promise<{ ok: true; dir: string } | { ok: false; message: string }> {
  if (dir === undefined || dir === '' || path.resolve(root, dir) === root) return { ok: true, dir: root };
  const inside = resolveInside(root, dir);
  const refused = { ok: false as const, message: `refused: ${stripControl(dir)} is outside the workspace folder ${root}; this server answers only for that folder and the folders inside it` };
  if (!inside) return refused;
  // A link inside that leads out is outside too.
  const [realRoot, real] = await Promise.all([fs.realpath(root), fs.realpath(inside).catch(() => null)]);
  if (!real) return { ok: false, message: `no such folder: ${stripControl(dir)} (in ${root})` };
  if (real !== realRoot && !resolveInside(realRoot, real)) return refused;
  return { ok: true, dir: inside };
}

/** What is still being read, for an answer past the deadline: the agent session, with its size. */
async function stillReading(workspaceDir: string, opts: HandoffMcpOptions): Promise<string> {
  const reading = await readContext(workspaceDir, opts.flags, opts.env).catch(() => null);
  const file = reading?.current.file;
  const size = file ? await fs.stat(file).then((s) => s.size, () => null) : null;
  const mb = size === null ? '' : ` (${(size / 1024 / 1024).toFixed(0)} MB)`;
  return file ? `the agent session ${file}${mb} and the workbench` : 'the workbench and its agent session';
}

/** The Session Handoff MCP server: four tools and the active packet's two files as resources. */
export function createHandoffServer(opts: HandoffMcpOptions): McpServer {
  const server = new McpServer(
    { name: 'session-handoff', title: 'Session Handoff', version: opts.version },
    {
      instructions:
        'Session Handoff keeps long agent work restartable. At the start of a session call handoff_prompt for the handoff of the previous one; ' +
        'call handoff_status to see how full the context is and handoff_generate to write a packet before it fills up.',
    },
  );
  const deadlines = new Deadlines();
  const passed = (): string[] => FLAG_PASS.flatMap((f) => (opts.flags[f] === undefined ? [] : [`--${f}`, String(opts.flags[f])]));
  const run = (argv: string[]) => runApart([...argv, ...passed()], opts.env, opts.workspaceDir);
  const dirArg = { dir: z.string().optional().describe('a folder inside the workspace (default: the workspace folder the server serves)') };

  /** One tool call: the folder checked, the work against the deadline, `partial` past it. */
  const call = async (name: string, dir: string | undefined, work: (dir: string) => Promise<{ text: string; isError?: boolean }>, partial: (dir: string) => Promise<string>, args: unknown = null) => {
    const folder = await folderOf(opts.workspaceDir, dir);
    if (!folder.ok) return text(folder.message, true);
    // A late result is handed only to a call that asked the same (the same folder, goal, agent).
    const r = await deadlines.within(`${name}\0${folder.dir}\0${JSON.stringify(args)}`, () => work(folder.dir), opts.answerWithinMs);
    if (r.done) return text(r.value.text, r.value.isError === true);
    return text(await partial(folder.dir));
  };
  const outputOf = (r: Ran) => ({ text: `${r.stdout}${r.code === 0 ? '' : r.stderr}`.trim() || r.stderr.trim(), isError: r.code !== 0 });

  server.registerTool(
    'handoff_prompt',
    {
      title: 'Handoff restart prompt',
      description:
        "The restart prompt of this folder's active handoff packet, to continue the previous session's work. Under the SessionStart rule: " +
        'only a packet written here and fresh is handed over; a stale one or one not written here is only described.',
      inputSchema: { ...dirArg, for: z.enum(PROMPT_AGENTS as [string, ...string[]]).optional().describe('render it for this agent (its tool names): claude or codex') },
    },
    async ({ dir, for: target }) =>
      call('handoff_prompt', dir, async (d) => {
        const options = optionsOf(opts.flags);
        const { current } = await currentWithTrust(d, options, createGitClient(d));
        if (!current) return { text: `No handoff packet in ${outputDirOf(d, options)} yet: call handoff_generate to write one.` };
        const { text: prompt } = await handoverOf(d, options, current, { door: 'mcp', ...(target ? { target: target as PromptAgent } : {}) });
        return { text: prompt };
      }, async () => 'Still reading the handoff packet and its inputs; call handoff_prompt again in a few seconds.', target ?? null),
  );

  server.registerTool(
    'handoff_generate',
    {
      title: 'Write a handoff packet',
      description: 'Write a handoff packet for this folder now (handoff.json + handoff.md); returns its path, its next action and the audit of what a fresh agent needs.',
      inputSchema: { ...dirArg, goal: z.string().max(2000).optional().describe("what the next session should achieve: the restart prompt's first line") },
    },
    async ({ dir, goal }) =>
      call(
        'handoff_generate',
        dir,
        async (d) => outputOf(await run(['generate', '--dir', d, '--json', ...(goal ? ['--goal', goal] : [])])),
        async (d) => `Still writing the packet: reading ${await stillReading(d, opts)}. It goes on in the background; call handoff_generate again for its path, next action and audit.`,
        goal ?? null,
      ),
  );

  server.registerTool(
    'handoff_status',
    {
      title: 'Handoff status',
      description: "This folder's context usage and wrap-up level, its clean state and its active handoff packet.",
      inputSchema: dirArg,
    },
    async ({ dir }) =>
      call('handoff_status', dir, async (d) => outputOf(await run(['status', '--dir', d])), async (d) => {
        // The context reading is a tail read: it answers at once, whatever the session's size.
        const [quick, reading] = await Promise.all([runHere(['status', '--dir', d, ...passed()], opts.env, opts.workspaceDir, [statusCommand(null)]), stillReading(d, opts)]);
        return `${quick.stdout.trim()}\nStill reading ${reading} for the clean state and the active packet: call handoff_status again in a few seconds.`;
      }),
  );

  server.registerTool(
    'handoff_risks',
    {
      title: 'Open risks',
      description: "This folder's open risks, most severe first: the active packet's and the workbench's (red tests, blockers, clean-state findings, credentials).",
      inputSchema: dirArg,
    },
    async ({ dir }) =>
      call('handoff_risks', dir, async (d) => outputOf(await run(['risks', '--dir', d])), async (d) => `Still reading ${await stillReading(d, opts)}; call handoff_risks again in a few seconds.`),
  );

  // The active packet's files, read again at every request: a packet written meanwhile is the one served.
  const resource = (file: 'handoff.json' | 'handoff.md', mimeType: string, render: (p: Packet) => string) =>
    server.registerResource(
      file,
      `handoff://active/${file}`,
      { title: `Active handoff: ${file}`, description: `The ${file} of this folder's active handoff packet (branch + topic, else the newest).`, mimeType },
      async (uri) => {
        const options = optionsOf(opts.flags);
        const { current } = await currentWithTrust(opts.workspaceDir, options, createGitClient(opts.workspaceDir));
        // One not written here: nothing of it, as at SessionStart.
        const body = !current
          ? `No handoff packet in ${outputDirOf(opts.workspaceDir, options)} yet: call handoff_generate to write one.`
          : current.trust.kind === 'foreign' ? current.trust.notice : null;
        if (body !== null || !current) return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: redactOutput(body ?? '') }] };
        return { contents: [{ uri: uri.href, mimeType, text: redactOutput(render(current.stored.packet)) }] };
      },
    );
  resource('handoff.json', 'application/json', serializePacket);
  resource('handoff.md', 'text/markdown', renderMarkdown);
  return server;
}

/** Serves the MCP protocol over this process's stdin and stdout until the client closes stdin. */
export async function serveStdio(opts: HandoffMcpOptions): Promise<void> {
  const reply = (t: string) => void process.stdout.write(t);
  const guard = new LineGuard(reply);
  process.stdin.pipe(guard);
  const transport = new StdioServerTransport(guard, process.stdout);
  const server = createHandoffServer(opts);
  // A failure of one request is answered as such by the SDK; nothing else may end the server.
  transport.onerror = (err) => process.stderr.write(`handoff mcp: ${err.message}\n`);
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.close().catch(() => undefined);
}
