import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CleanReport } from '../clean/types';
import type { Diagnostic } from '../diagnostics';
import type { GitClient, GitError, GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { Freshness } from '../registry/freshness';
import type { SessionFacts } from '../session/model';
import { freshnessOf } from './freshness';
import { inspectWorkbench } from './inspect';
import type { StoredPacket } from './readPackets';

export interface PacketWithFreshness extends StoredPacket {
  freshness: Freshness;
}

/** Everything one refresh of the UI needs, read in one call. */
export interface WorkbenchState {
  workbenchDir: string;
  outputDir: string;
  snapshot: WorkbenchSnapshot;
  diagnostics: Diagnostic[];
  /** The current branch + topic's topic. */
  topic: string;
  git: { ok: true; facts: GitFacts } | { ok: false; error: GitError };
  /** Null without git: the checks need it. */
  clean: CleanReport | null;
  /**
   * All packets in list order (active first per branch + topic), each with its freshness; read with
   * `packets: 'chosen'`, only the active one for the branch + topic, the previous one there and the newest.
   */
  packets: PacketWithFreshness[];
  /** The active packet for the current branch + topic. */
  active: PacketWithFreshness | null;
}

/**
 * Reads the workbench, git facts, the clean report and every packet with its freshness in one
 * call. Never throws for a missing git or a non-repository (see `git.ok`); the clean report is
 * then null. `git` is usually `createGitClient(workspaceDir)`.
 */
export async function readWorkbenchState(
  workspaceDir: string,
  options: HandoffOptions,
  git: GitClient,
  session?: SessionFacts | null,
  which: 'all' | 'chosen' = 'all',
): Promise<WorkbenchState> {
  const inspection = await inspectWorkbench(workspaceDir, options, git, { session, packets: which });
  const facts = inspection.git.ok ? inspection.git.facts : null;
  const fresh = await freshnessOf(inspection.packets.map((p) => p.packet), { facts, inputs: inspection.snapshot.sources }, git);
  const packets = inspection.packets.map((p, i) => ({ ...p, freshness: fresh[i] as Freshness }));
  let clean: CleanReport | null = null;
  if (inspection.clean) {
    const { diagnostics: _d, ...report } = inspection.clean;
    clean = report;
  }
  return {
    workbenchDir: inspection.workbenchDir,
    outputDir: inspection.outputDir,
    snapshot: inspection.snapshot,
    diagnostics: inspection.diagnostics,
    topic: inspection.topic,
    git: inspection.git.ok ? { ok: true, facts: inspection.git.facts } : inspection.git,
    clean,
    packets,
    active: packets.find((p) => p.dir === inspection.active?.dir) ?? null,
  };
}
