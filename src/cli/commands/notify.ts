import * as path from 'node:path';
import { budgetLevel } from '../../core/context/budget';
import { asShown, shortPercent } from '../../core/context/format';
import { optionsOf } from '../common';
import { readContext } from '../context';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { EXIT_OK } from '../types';
import { generateForEvent, logForFolder } from './hook';
import { runChainedNotify } from './notifyChain';
import { budgetOf } from './statusline';

async function runNotify(payload: string | undefined, flags: FlagValues, io: CliIO): Promise<void> {
  let event: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(payload ?? '');
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
    event = v as Record<string, unknown>;
  } catch {
    await logForFolder(io.cwd, optionsOf(flags), `notify: the argument is not a Codex notification (${payload?.length ?? 0} chars); nothing done`, io.env);
    return;
  }
  if (event['type'] !== 'agent-turn-complete') return;
  const workspaceDir = path.resolve(io.cwd, typeof event['cwd'] === 'string' && event['cwd'] ? event['cwd'] : '.');
  const reading = asShown((await readContext(workspaceDir, flags, io.env)).current);
  const level = budgetLevel(reading, budgetOf(flags));
  // Below the wrap-up threshold (or without a reading) a turn changes nothing: no packet per turn.
  if (level !== 'wrap-up' && level !== 'urgent') return;
  const turn = typeof event['turn-id'] === 'string' ? ` (turn ${event['turn-id']})` : '';
  await generateForEvent(workspaceDir, flags, io, `notify at ${shortPercent(reading)}${turn}:`);
}

/**
 * `handoff notify '<json>'`: Codex CLI's `notify` program. After each agent turn past the wrap-up
 * threshold it regenerates the packet of the turn's folder (an unchanged packet is not rewritten).
 * Problems go to `<outputDir>/hook.log`; the exit code is always 0.
 */
export const notifyCommand: CommandSpec = {
  name: 'notify',
  summary: 'Codex CLI notify program: regenerates the packet after a turn past the wrap-up threshold (always exits 0)',
  usage: "notify [--warn-at F] [--output-dir DIR] '<codex notification json>'",
  positionals: { min: 0, max: 1, names: 'the notification JSON Codex passes' },
  flags: [
    { name: 'warn-at', type: 'number', placeholder: 'F', help: 'regenerate from this fraction of the window on (default 0.5)' },
    { name: 'urge-at', type: 'number', placeholder: 'F', help: 'urgent threshold as a fraction (default 0.75)' },
    { name: 'output-dir', type: 'string', placeholder: 'DIR', help: 'where packets go, relative to the workbench (default: outputs/handoff)' },
    { name: 'codex-home', type: 'string', placeholder: 'DIR', help: 'Codex home (default: $CODEX_HOME or ~/.codex)' },
    { name: 'chain-json', type: 'string', placeholder: 'ARGV', help: 'your own notify program as a JSON list, run first with the same payload (setup writes it)' },
  ],
  async run({ flags, positionals, io }) {
    if (flags['chain-json'] !== undefined && !runChainedNotify(flags['chain-json'], positionals[0], io.env)) {
      await logForFolder(io.cwd, optionsOf(flags), `notify: the chained notify program ${String(flags['chain-json'])} could not be started`, io.env);
    }
    try {
      await runNotify(positionals[0], flags, io);
    } catch (err) {
      await logForFolder(io.cwd, { workbenchDir: '.', outputDir: 'outputs/handoff' }, `notify: ${(err as Error)?.message ?? String(err)}`, io.env);
    }
    return EXIT_OK;
  },
};
