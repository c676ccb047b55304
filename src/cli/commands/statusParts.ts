import * as path from 'node:path';
import type { SessionFacts } from '../../core/session/model';
import type { WorkbenchState } from '../../core/workflow/state';
import { readWorkbenchState } from '../../core/workflow/state';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import type { FlagValues } from '../types';

/**
 * Reads everything the status screen shows about the workbench (git, clean checks, packets), with the
 * agent session merged in when the caller read one (the statusline does not: it must stay a tail read).
 */
export function readState(workspaceDir: string, flags: FlagValues, session?: SessionFacts | null): Promise<WorkbenchState> {
  return readWorkbenchState(workspaceDir, optionsOf(flags), createGitClient(workspaceDir), session);
}

/** `clean` / `dirty (3)` / `no git`, for the one-line statusline. */
export function cleanWord(state: WorkbenchState): string {
  if (!state.clean) return 'no git';
  return state.clean.clean ? 'clean' : `dirty (${state.clean.findings.length})`;
}

/** `handoff fresh` / `handoff stale` / `no handoff`, for the one-line statusline. */
export function packetWord(state: WorkbenchState): string {
  if (!state.active) return 'no handoff';
  return state.active.freshness.stale ? 'handoff stale' : 'handoff fresh';
}

/** The clean-state and packet lines of `handoff status`. */
export function stateLines(state: WorkbenchState): string[] {
  const lines: string[] = [];
  if (!state.git.ok) lines.push(`Clean    unknown — ${state.git.error.message}`);
  else if (state.clean?.clean) lines.push(`Clean    clean — all ${state.clean.checks.length} checks pass`);
  else if (state.clean) {
    const failing = state.clean.checks.filter((c) => !c.passed);
    lines.push(`Clean    dirty — ${state.clean.findings.length} finding${state.clean.findings.length === 1 ? '' : 's'} (handoff check for details)`);
    for (const c of failing) lines.push(`         ✗ ${c.title}: ${c.summary}`);
  }
  const a = state.active;
  if (!a) {
    const branch = state.git.ok ? (state.git.facts.branch ?? 'detached HEAD') : 'no branch';
    lines.push(`Packet   none for ${branch} / ${state.topic} — run handoff generate`);
  } else {
    lines.push(`Packet   ${path.basename(a.dir)} (${a.packet.status}) · ${a.freshness.stale ? 'stale' : 'fresh'}`);
    for (const r of a.freshness.reasons.slice(0, 3)) lines.push(`         ${r}`);
    lines.push(`         next: ${a.packet.next_action}`);
  }
  if (state.diagnostics.length) {
    lines.push(`Inputs   ${state.diagnostics.length} problem${state.diagnostics.length === 1 ? '' : 's'} reading the workbench (handoff check)`);
    for (const d of state.diagnostics.slice(0, 3)) lines.push(`         ${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`);
  }
  return lines;
}

/** The same for `--json`. */
export function stateJson(state: WorkbenchState): Record<string, unknown> {
  return {
    git: state.git.ok ? { ok: true, branch: state.git.facts.branch, head: state.git.facts.head } : { ok: false, error: state.git.error.message },
    topic: state.topic,
    clean: state.clean,
    packet: state.active
      ? { id: path.basename(state.active.dir), dir: state.active.dir, status: state.active.packet.status, freshness: state.active.freshness, next_action: state.active.packet.next_action }
      : null,
    diagnostics: state.diagnostics,
  };
}
