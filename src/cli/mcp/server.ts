// The Session Handoff MCP server (`handoff mcp`): the protocol over stdio, kept small so that it answers
// `initialize` and `tools/list` at once; the work behind the tools (packets, git, sessions) is loaded at
// the first call that needs it (mcpWork.ts, a bundle of its own) and runs the heavy reads as child
// processes, a few at a time, stopped when their call is called off or the client goes away.
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { requireWithCodeCache } from '../codeCache';
import type { FlagValues } from '../types';
import { Children, isBusy, type Ran } from './children';
import { ErrorCode } from './lineGuard';
import type { createWork } from './mcpWork';
import { RpcError, serveRpc, type RequestHandler } from './rpc';

/** Answer within this, by default: well inside every MCP client's request timeout. */
export const DEFAULT_ANSWER_WITHIN_MS = 2500;

/** The protocol versions this server speaks, newest first (as the MCP SDK's server negotiates them). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/** The agents handoff_prompt renders for (core/render/forAgent.ts's PROMPT_AGENTS; a test keeps them equal). */
export const PROMPT_AGENT_NAMES = ['claude', 'codex', 'gemini', 'qwen', 'copilot'] as const;

export interface HandoffMcpOptions {
  /** The folder the server serves (`--dir`, else where it was started); every `dir` must lie inside it. */
  workspaceDir: string;
  /**
   * The folder was named (`--dir`): every folder inside it is served. Started without it (an agent's
   * working directory, maybe the home folder), a `dir` must lie in the served folder's own repository.
   */
  explicitDir?: boolean;
  /** The command line's own flags passed on to each command (`--output-dir`, where sessions are). */
  flags: FlagValues;
  env: Record<string, string | undefined>;
  answerWithinMs: number;
  version: string;
}

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** What the lazily loaded work module provides. */
export interface Work {
  callTool(name: string, args: Record<string, string | undefined>, signal: AbortSignal): Promise<ToolResult>;
  readResource(file: 'handoff.json' | 'handoff.md'): Promise<{ text: string; mimeType?: string }>;
}

type ArgSpec = { name: string; description: string; max?: number; oneOf?: readonly string[] };
const DIR_ARG: ArgSpec = { name: 'dir', description: 'a folder inside the workspace (default: the workspace folder the server serves)' };

const TOOLS: { name: string; title: string; description: string; args: ArgSpec[] }[] = [
  {
    name: 'handoff_prompt',
    title: 'Handoff restart prompt',
    description:
      "The restart prompt of this folder's active handoff packet, to continue the previous session's work. Under the SessionStart rule: " +
      'only a packet written here and fresh is handed over; a stale one or one not written here is only described.',
    args: [DIR_ARG, { name: 'for', description: 'render it for this agent (its tool names): claude, codex, gemini, qwen or copilot', oneOf: PROMPT_AGENT_NAMES }],
  },
  {
    name: 'handoff_generate',
    title: 'Write a handoff packet',
    description: 'Write a handoff packet for this folder now (handoff.json + handoff.md); returns its path, its next action and the audit of what a fresh agent needs.',
    args: [DIR_ARG, { name: 'goal', description: "what the next session should achieve: the restart prompt's first line", max: 2000 }],
  },
  {
    name: 'handoff_status',
    title: 'Handoff status',
    description: "This folder's context usage and wrap-up level, its clean state and its active handoff packet.",
    args: [DIR_ARG],
  },
  {
    name: 'handoff_risks',
    title: 'Open risks',
    description: "This folder's open risks, most severe first: the active packet's and the workbench's (red tests, blockers, clean-state findings, credentials).",
    args: [DIR_ARG],
  },
];

const RESOURCES = [
  { file: 'handoff.json', mimeType: 'application/json' },
  { file: 'handoff.md', mimeType: 'text/markdown' },
] as const;

const INSTRUCTIONS =
  'Session Handoff keeps long agent work restartable. At the start of a session call handoff_prompt for the handoff of the previous one; ' +
  'call handoff_status to see how full the context is and handoff_generate to write a packet before it fills up.';

/** A tool's arguments as JSON Schema (what `tools/list` shows). */
function inputSchema(args: ArgSpec[]): Record<string, unknown> {
  const properties = Object.fromEntries(args.map((a) => [a.name, { type: 'string', ...(a.oneOf ? { enum: [...a.oneOf] } : {}), ...(a.max ? { maxLength: a.max } : {}), description: a.description }]));
  return { type: 'object', properties };
}

/** The arguments of a call checked against the tool's: each an optional string; the error says which is wrong. */
export function checkArgs(args: ArgSpec[], given: unknown): { ok: true; args: Record<string, string | undefined> } | { ok: false; message: string } {
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) return { ok: false, message: 'arguments must be an object' };
  const out: Record<string, string | undefined> = {};
  for (const a of args) {
    const v = (given as Record<string, unknown> | undefined)?.[a.name];
    if (v === undefined) continue;
    if (typeof v !== 'string') return { ok: false, message: `${a.name}: expected a string, got ${v === null ? 'null' : typeof v}` };
    if (a.max !== undefined && v.length > a.max) return { ok: false, message: `${a.name}: at most ${a.max} characters` };
    if (a.oneOf && !a.oneOf.includes(v)) return { ok: false, message: `${a.name}: one of ${a.oneOf.join(', ')}` };
    out[a.name] = v;
  }
  return { ok: true, args: out };
}

const toolError = (message: string): ToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/** The handler of every request the server answers; `children` runs (and stops) the `handoff` processes. */
export function createHandler(opts: HandoffMcpOptions, children: Children, loadWork: () => Work = () => loadWorkModule(opts, children)): RequestHandler {
  let work: Work | undefined;
  const theWork = () => (work ??= loadWork());
  return async (method, params, signal) => {
    switch (method) {
      case 'initialize': {
        const asked = params['protocolVersion'];
        const protocolVersion = typeof asked === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
        return {
          protocolVersion,
          capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
          serverInfo: { name: 'session-handoff', title: 'Session Handoff', version: opts.version },
          instructions: INSTRUCTIONS,
        };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: inputSchema(t.args) })) };
      case 'tools/call': {
        const tool = TOOLS.find((t) => t.name === params['name']);
        if (!tool) return toolError(`Tool ${String(params['name'])} not found`);
        const args = checkArgs(tool.args, params['arguments']);
        if (!args.ok) return toolError(`Input validation error: Invalid arguments for tool ${tool.name}: ${args.message}`);
        try {
          return await theWork().callTool(tool.name, args.args, signal);
        } catch (err) {
          if (isBusy(err)) return toolError((err as Error).message);
          throw err;
        }
      }
      case 'resources/list':
        return {
          resources: RESOURCES.map((r) => ({
            uri: `handoff://active/${r.file}`, name: r.file, title: `Active handoff: ${r.file}`, mimeType: r.mimeType,
            description: `The ${r.file} of this folder's active handoff packet (branch + topic, else the newest).`,
          })),
        };
      case 'resources/templates/list':
        return { resourceTemplates: [] };
      case 'resources/read': {
        const uri = params['uri'];
        const r = RESOURCES.find((x) => `handoff://active/${x.file}` === uri);
        if (!r) throw new RpcError(ErrorCode.InvalidParams, `Resource ${String(uri)} not found`);
        const read = await theWork().readResource(r.file);
        return { contents: [{ uri, mimeType: read.mimeType ?? r.mimeType, text: read.text }] };
      }
      default:
        throw new RpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  };
}

/** The work module, from beside this file (dist/mcpWork.js, or the transpiled module in tests). */
function loadWorkModule(opts: HandoffMcpOptions, children: Children): Work {
  // A path chosen at run time: the work stays a bundle of its own, loaded only here.
  const mod = requireWithCodeCache(path.join(__dirname, 'mcpWork.js')) as { createWork: typeof createWork };
  return mod.createWork(opts, (argv, signal): Promise<Ran> => children.run(argv, opts.env, opts.workspaceDir, signal));
}

/** The `handoff` script this server was started from (dist/cli.js). */
const cliScript = (): string => process.argv[1] ?? path.join(__dirname, 'cli.js');

/** Serves the MCP protocol over these streams until the input ends; then every process it started is stopped. */
export async function serve(input: Readable, output: Writable, opts: HandoffMcpOptions, children = new Children(cliScript())): Promise<void> {
  await serveRpc(input, output, createHandler(opts, children));
  await children.stopAll();
}

/** Serves the MCP protocol over this process's stdin and stdout until the client closes stdin (or the process is told to stop). */
export async function serveStdio(opts: HandoffMcpOptions): Promise<void> {
  const children = new Children(cliScript());
  const stop = () => void children.stopAll().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // A client gone away: writing to it fails; that ends the serving, never the process with a stack trace.
  process.stdout.on('error', () => undefined);
  await serve(process.stdin, process.stdout, opts, children);
}
