import type { Budget } from '../../core/context/budget';
import { budgetLevel, checkBudget, DEFAULT_BUDGET } from '../../core/context/budget';
import { agentLabel, describeReading } from '../../core/context/format';
import { DIR_FLAGS, JSON_FLAG, workspaceDirOf } from '../common';
import { CONTEXT_FLAGS, printContextWarnings, readContext, sessionForCli } from '../context';
import { readState, stateJson, stateLines } from './statusParts';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { EXIT_OK, UsageError } from '../types';

/** The workbench part of the status screen (clean state, active packet); absent when it cannot be read. */
export interface WorkbenchSummary {
  /** Lines for people, e.g. `Clean    clean`. */
  lines: string[];
  /** The same for `--json`. */
  json: Record<string, unknown>;
}

export type WorkbenchSummarizer = (workspaceDir: string, flags: FlagValues) => Promise<WorkbenchSummary>;

function budgetFrom(flags: FlagValues): Budget {
  return {
    warnAt: typeof flags['warn-at'] === 'number' ? flags['warn-at'] : DEFAULT_BUDGET.warnAt,
    urgeAt: typeof flags['urge-at'] === 'number' ? flags['urge-at'] : DEFAULT_BUDGET.urgeAt,
  };
}

/** The clean-state and packet part, from the workbench state (git, clean checks, packets). */
export const summarizeWorkbench: WorkbenchSummarizer = async (workspaceDir, flags) => {
  // The clean checks read the agent session as `handoff check` does, so the two never disagree.
  const state = await readState(workspaceDir, flags, await sessionForCli(workspaceDir, flags, process.env));
  return { lines: stateLines(state), json: stateJson(state) };
};

/** Builds `handoff status`; `summarize` supplies the clean-state and packet part (null: the context reading only). */
export function statusCommand(summarize: WorkbenchSummarizer | null = summarizeWorkbench): CommandSpec {
  return {
    name: 'status',
    summary: 'context usage, wrap-up level, clean state and the active packet on one screen',
    usage: 'status [--dir DIR] [--json] [--warn-at F] [--urge-at F] [--claude-config-dir DIR] [--codex-home DIR] [--window TOKENS]',
    flags: [...DIR_FLAGS, JSON_FLAG, ...CONTEXT_FLAGS],
    async run({ flags, io }) {
      return statusOutput(await workspaceDirOf(flags, io), flags, io, summarize);
    },
  };
}

/** Prints the status screen of a folder (`--json`: its JSON), the context reading and, with `summarize`, the workbench part. */
export async function statusOutput(workspaceDir: string, flags: FlagValues, io: CliIO, summarize: WorkbenchSummarizer | null): Promise<number> {
  const budget = budgetFrom(flags);
  const [context, workbench] = await Promise.all([
    readContext(workspaceDir, flags, io.env),
    summarize ? summarize(workspaceDir, flags) : Promise.resolve(undefined),
  ]);
  printContextWarnings(io, context);
  const check = checkBudget(budget, context.current);
  if (!check.ok) throw new UsageError(check.error);
  const level = budgetLevel(context.current, budget);
  if (flags['json']) {
    const out = { folder: workspaceDir, context, level: level ?? null, budget: { ...budget, warnings: check.warnings }, ...(workbench?.json ?? {}) };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines = [`Session Handoff — ${workspaceDir}`, `Context  ${describeReading(context.current)}`];
  const cur = context.current;
  if (cur.sessionId || cur.file) lines.push(`         session ${cur.sessionId ?? '?'}${cur.file ? ` · ${cur.file}` : ''}${cur.known && cur.at ? ` · at ${cur.at}` : ''}`);
  for (const other of context.candidates.slice(1)) {
    const r = other.result;
    lines.push(`         also: ${agentLabel(r)} ${r.known ? `${r.percent.toFixed(1)} %` : 'unknown'} (session ${r.sessionId ?? other.sessionId ?? '?'}, updated earlier)`);
  }
  const pct = (f: number) => `${Math.round(f * 100)} %`;
  const levelText = level === 'urgent' ? 'urgent — wrap up now: run handoff generate' : level === 'wrap-up' ? 'wrap-up — run handoff generate' : (level ?? 'unknown');
  lines.push(`Level    ${levelText} (wrap up at ${pct(budget.warnAt)}, urgent at ${pct(budget.urgeAt)})`);
  for (const w of check.warnings) lines.push(`         warning: ${w}`);
  lines.push(...(workbench?.lines ?? []));
  io.stdout(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
