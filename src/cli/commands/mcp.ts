import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DIR_FLAGS, workspaceDirOf } from '../common';
import { SESSION_FLAGS } from '../contextFlags';
import type { CommandSpec } from '../types';
import { EXIT_OK, UsageError } from '../types';

/**
 * `handoff mcp`: a Model Context Protocol server over stdio for the folder it is started in (or
 * `--dir`), so any agent that speaks MCP gets the handoff. `handoff mcp` runs it from its own small
 * bundle (dist/mcp.js, see ../mcp.ts); the full command line serves it the same way for `--help` and errors.
 */
export const mcpCommand: CommandSpec = {
  name: 'mcp',
  summary: 'a Model Context Protocol server over stdio: the handoff prompt, status, risks and a packet written on request, for any MCP agent',
  usage: 'mcp [--dir DIR] [--output-dir DIR] [--answer-within MS]',
  flags: [
    ...DIR_FLAGS,
    ...SESSION_FLAGS,
    { name: 'answer-within', type: 'number', placeholder: 'MS', help: 'answer each call within this many milliseconds, with what is known so far (default 2500)' },
  ],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const { DEFAULT_ANSWER_WITHIN_MS, serveStdio } = await import('../mcp/server');
    const within = flags['answer-within'] ?? DEFAULT_ANSWER_WITHIN_MS;
    if (typeof within !== 'number' || !Number.isInteger(within) || within < 100 || within > 600_000) throw new UsageError('--answer-within must be a whole number of milliseconds from 100 to 600000');
    const { dir: _dir, ...rest } = flags;
    await serveStdio({ workspaceDir, explicitDir: typeof flags['dir'] === 'string', flags: rest, env: io.env, answerWithinMs: within, version: await ownVersion() });
    return EXIT_OK;
  },
};

/** The version of the package this bundle ships in (dist/ sits beside its package.json). */
async function ownVersion(): Promise<string> {
  const text = await fs.readFile(path.join(__dirname, '..', 'package.json'), 'utf8').catch(() => '');
  const m = /"version"\s*:\s*"([^"]+)"/.exec(text);
  return m?.[1] ?? '0.0.0';
}
