import * as path from 'node:path';
import type { SessionFacts } from '../../core/session/model';
import { handoffTrust, possiblyYours, type PacketTrust } from '../../core/registry/trust';
import { newestPacket } from '../../core/workflow/readPackets';
import type { PacketWithFreshness, WorkbenchState } from '../../core/workflow/state';
import { readWorkbenchState } from '../../core/workflow/state';
import { createGitClient } from '../../git/gitClient';
import { optionsOf } from '../common';
import type { FlagValues } from '../types';

/** The workbench state with the packet the screen shows and what it may be called (the one trust rule). */
export interface StatusState extends WorkbenchState {
  /** The active packet for the branch + topic, else the newest: the one `handoff show` and the hooks use. */
  shown: PacketWithFreshness | null;
  /** Whether `shown` is ours and fresh (`instruction`), ours and stale, or not written here (`foreign`). */
  trust: PacketTrust | null;
}

/**
 * Reads everything the status screen shows about the workbench (git, clean checks, packets), with the
 * agent session merged in when the caller read one (the statusline does not: it must stay a tail read).
 */
export async function readState(workspaceDir: string, flags: FlagValues, session?: SessionFacts | null, packets: 'all' | 'chosen' = 'all'): Promise<StatusState> {
  const state = await readWorkbenchState(workspaceDir, optionsOf(flags), createGitClient(workspaceDir), session, packets);
  const newest = state.active ? null : newestPacket(state.packets);
  const shown = state.active ?? (newest ? (state.packets.find((p) => p.dir === newest.dir) ?? null) : null);
  if (!shown) return { ...state, shown: null, trust: null };
  const trust = await handoffTrust({ stored: shown, freshness: shown.freshness, facts: state.git.ok ? state.git.facts : null });
  return { ...state, shown, trust };
}

/** What the screen calls the packet's freshness: "fresh" only for a packet ours and fresh. */
function trustWord(trust: PacketTrust): string {
  return trust.kind === 'instruction' ? 'fresh' : trust.kind === 'stale' ? 'stale' : 'not written here';
}

/** `clean` / `dirty (3)` / `no git`, for the one-line statusline. */
export function cleanWord(state: WorkbenchState): string {
  if (!state.clean) return 'no git';
  return state.clean.clean ? 'clean' : `dirty (${state.clean.findings.length})`;
}

/** `handoff fresh` / `handoff stale` / `no handoff`, for the one-line statusline. */
export function packetWord(state: StatusState): string {
  if (!state.shown || !state.trust) return 'no handoff';
  return `handoff ${trustWord(state.trust)}`;
}

/** The clean-state and packet lines of `handoff status`. */
export function stateLines(state: StatusState): string[] {
  const lines: string[] = [];
  if (!state.git.ok) lines.push(`Clean    unknown — ${state.git.error.message}`);
  else if (state.clean?.clean) lines.push(`Clean    clean — all ${state.clean.checks.length} checks pass`);
  else if (state.clean) {
    const failing = state.clean.checks.filter((c) => !c.passed);
    lines.push(`Clean    dirty — ${state.clean.findings.length} finding${state.clean.findings.length === 1 ? '' : 's'} (handoff check for details)`);
    for (const c of failing) lines.push(`         ✗ ${c.title}: ${c.summary}`);
  }
  const a = state.shown;
  const branch = state.git.ok ? (state.git.facts.branch ?? 'detached HEAD') : 'no branch';
  if (!a || !state.trust) {
    lines.push(`Packet   none for ${branch} / ${state.topic} — run handoff generate`);
  } else if (state.trust.kind === 'foreign') {
    // Nothing of its content: it may have been planted (committed to the repository, copied in).
    lines.push(`Packet   ${path.basename(a.dir)} · not written here — review it with \`handoff show\``);
    lines.push(`         it is never handed to the next session; write one with handoff generate`);
    const possibly = possiblyYours(state.trust);
    if (possibly) lines.push(`         possibly yours: ${possibly}`);
  } else {
    lines.push(`Packet   ${path.basename(a.dir)} (${a.packet.status}) · ${trustWord(state.trust)}${state.active ? '' : ` (none for ${branch} / ${state.topic}; the newest)`}`);
    const reasons = state.trust.kind === 'stale' ? state.trust.reasons : [];
    for (const r of reasons.slice(0, 3)) lines.push(`         ${r}`);
    lines.push(`         next: ${a.packet.next_action}`);
  }
  if (state.diagnostics.length) {
    lines.push(`Inputs   ${state.diagnostics.length} problem${state.diagnostics.length === 1 ? '' : 's'} reading the workbench (handoff check)`);
    for (const d of state.diagnostics.slice(0, 3)) lines.push(`         ${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`);
  }
  return lines;
}

/** The same for `--json`. */
export function stateJson(state: StatusState): Record<string, unknown> {
  return {
    git: state.git.ok ? { ok: true, branch: state.git.facts.branch, head: state.git.facts.head } : { ok: false, error: state.git.error.message },
    topic: state.topic,
    clean: state.clean,
    packet: state.shown && state.trust
      ? {
          id: path.basename(state.shown.dir),
          dir: state.shown.dir,
          status: state.shown.packet.status,
          freshness: state.shown.freshness,
          trust: state.trust.kind === 'instruction' ? 'fresh' : state.trust.kind === 'stale' ? 'stale' : 'not-written-here',
          active_for_branch: state.active !== null,
          // A packet not written here is for review with `handoff show`: nothing of it is repeated.
          ...(state.trust.kind === 'foreign' ? {} : { next_action: state.shown.packet.next_action }),
          ...(possiblyYours(state.trust) ? { possibly_yours: possiblyYours(state.trust) } : {}),
        }
      : null,
    diagnostics: state.diagnostics,
  };
}
