import * as path from 'node:path';
import { ownedOrUnknown } from '../../core/registry/trustPacket';
import { acksForRisks } from '../../core/acks';
import { readRegular } from '../../core/fsx';
import type { GitClient } from '../../core/gitPort';
import { collectRisks } from '../../core/packet/risks';
import type { Freshness } from '../../core/registry/freshness';
import { activePacketFor, listPackets } from '../../core/registry/registry';
import { topicOf } from '../../core/artifacts/topic';
import type { SessionFacts } from '../../core/session/model';
import { freshnessOf } from '../../core/workflow/freshness';
import { inspectWorkbench, loadMergedWorkbench } from '../../core/workflow/inspect';
import type { Inspection } from '../../core/workflow/inspect';
import { outputDirOf, uncontainedDir, workbenchDirOf } from '../../core/workflow/paths';
import type { LoadInput } from './ports';
import { locateRisk, mergeRisks, sourceFileOf } from './risks';
import type { PacketEntry, UiPhase, WorkbenchUiState } from './types';

/** Artifacts bigger than this are not read again just to find a risk's line. */
const MAX_LOCATE_BYTES = 2 * 1024 * 1024;

export interface LoadDeps {
  /** A git client for the folder (only called in a trusted workspace). */
  git(folder: string): GitClient;
  budget: (input: LoadInput) => WorkbenchUiState['budget'];
}

/** What a state holds before (or instead of) a full refresh: nothing read from the workbench. */
function nothingRead(): Pick<WorkbenchUiState, 'snapshot' | 'diagnostics' | 'git' | 'clean' | 'packets' | 'activePacket' | 'risks'> {
  return { snapshot: null, diagnostics: [], git: null, clean: null, packets: [], activePacket: null, risks: [] };
}

/**
 * The state to show while the first full refresh still runs (git can take seconds on a busy
 * machine): the context reading, nothing else yet. The views keep saying "Checking the workbench…".
 */
export function loadingState(input: LoadInput, budget: WorkbenchUiState['budget']): WorkbenchUiState {
  const folderPath = input.folder.uri.fsPath;
  return {
    folder: input.folder,
    trusted: input.trusted,
    phase: 'loading',
    phaseMessage: null,
    workbenchDir: workbenchDirOf(folderPath, input.settings.options),
    outputDir: outputDirOf(folderPath, input.settings.options),
    ...nothingRead(),
    context: input.context.result,
    candidates: input.context.candidates,
    session: input.context.session,
    budget,
    updatedAt: Date.now(),
  };
}

/**
 * One full refresh of a folder: the core's inspection (artifacts, packets, git facts, clean report)
 * turned into the UI state. In an untrusted workspace git never runs: only files are read.
 * Never throws; a failure becomes `phase: 'error'` with one sentence.
 */
export async function loadFolderState(input: LoadInput, deps: LoadDeps): Promise<WorkbenchUiState> {
  const folderPath = input.folder.uri.fsPath;
  const options = input.settings.options;
  // A setting leading outside the folder is refused by the settings reader; should one get here anyway,
  // nothing outside is read and the error state says why.
  const outside = uncontainedDir(folderPath, options);
  const workbenchDir = outside ? folderPath : workbenchDirOf(folderPath, options);
  const outputDir = outside ? folderPath : outputDirOf(folderPath, options);
  const base = {
    folder: input.folder,
    trusted: input.trusted,
    workbenchDir,
    outputDir,
    context: input.context.result,
    candidates: input.context.candidates,
    session: input.context.session,
    budget: deps.budget(input),
    updatedAt: Date.now(),
  };
  try {
    if (outside) throw outside;
    // One client per refresh: creating one resolves the repository root again.
    const gitClient = input.trusted ? deps.git(folderPath) : null;
    const session = input.context.session;
    const inspection = gitClient ? await inspectWorkbench(folderPath, options, gitClient, { session }) : await readOnly(folderPath, outputDir, options, session);
    const git = inspection.git.ok ? { ok: true as const, facts: inspection.git.facts } : inspection.git.error ? { ok: false as const, code: inspection.git.error.code, message: inspection.git.error.message } : null;
    const facts = inspection.git.ok ? inspection.git.facts : null;
    const fresh = await freshnessOf(inspection.packets.map((p) => p.packet), { facts, inputs: inspection.snapshot.sources }, gitClient);
    const owned = await Promise.all(inspection.packets.map((p) => ownedOrUnknown(p)));
    const packets: PacketEntry[] = inspection.packets.map((p, i) => ({ id: path.basename(p.dir), dir: p.dir, packet: p.packet, freshness: fresh[i] as Freshness, writtenAt: p.mtimeMs, owned: owned[i] !== false, ...(p.sha256 ? { sha256: p.sha256 } : {}) }));
    const activePacket = inspection.active ? packets.find((p) => p.dir === inspection.active?.dir) ?? null : null;
    const live = collectRisks(inspection.snapshot, inspection.clean ? { findings: inspection.clean.findings } : null);
    const acked = await acksForRisks(outputDir, activePacket?.dir ?? null, [...(activePacket?.packet.open_risks ?? []), ...live]);
    const acks = new Map(acked.acks.map((a) => [a.risk_id, a]));
    const dirs = { folder: folderPath, repoRoot: git?.ok ? git.facts.root : null, workbenchDir };
    const texts = await readSources(folderPath, [...(activePacket?.packet.open_risks ?? []), ...live].map((r) => sourceFileOf(r, dirs)));
    const risks = mergeRisks(activePacket?.packet.open_risks ?? [], live, acks, (r) => locateRisk(r, dirs, texts));
    const { phase, phaseMessage } = phaseOf(input.trusted, inspection);
    return {
      ...base,
      phase,
      phaseMessage,
      snapshot: inspection.snapshot,
      diagnostics: [...inspection.diagnostics, ...acked.diagnostics],
      git,
      clean: inspection.clean ? { clean: inspection.clean.clean, checks: inspection.clean.checks, findings: inspection.clean.findings } : null,
      packets,
      activePacket,
      risks,
    };
  } catch (err) {
    return {
      ...base,
      phase: 'error',
      phaseMessage: `Reading the workbench failed: ${err instanceof Error ? err.message : String(err)}`,
      ...nothingRead(),
    };
  }
}

type ReadOnlyInspection = Pick<Inspection, 'snapshot' | 'diagnostics' | 'packets' | 'active' | 'clean'> & { git: { ok: false; error: null } };

/** The untrusted path: artifacts and packets are read, git is not run, nothing is written. */
async function readOnly(folderPath: string, outputDir: string, options: LoadInput['settings']['options'], session: SessionFacts | null): Promise<ReadOnlyInspection> {
  const [snapshot, listed] = await Promise.all([loadMergedWorkbench(folderPath, options, session), listPackets(outputDir)]);
  const active = activePacketFor(listed.packets, snapshot.agentState?.branch ?? null, topicOf(snapshot));
  return { snapshot, diagnostics: [...snapshot.diagnostics, ...listed.diagnostics], packets: listed.packets, active, clean: null, git: { ok: false, error: null } };
}

function phaseOf(trusted: boolean, i: Inspection | ReadOnlyInspection): { phase: UiPhase; phaseMessage: string | null } {
  if (!trusted) return { phase: 'untrusted', phaseMessage: 'This workspace is not trusted, so Session Handoff runs no git and writes nothing.' };
  if (i.git.ok) return { phase: 'ready', phaseMessage: null };
  const err = i.git.error;
  if (!err) return { phase: 'error', phaseMessage: 'Git facts are unavailable.' };
  const phase: UiPhase = err.code === 'not-a-repository' ? 'notRepo' : err.code === 'git-missing' ? 'gitMissing' : 'error';
  return { phase, phaseMessage: err.message };
}

/**
 * Reads the risk source artifacts once per refresh (already confined to the folder; bounded in size).
 * A FIFO, device or symlink leading out of the folder is not read: that source just has no line.
 */
async function readSources(folderPath: string, files: (string | null)[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const file of new Set(files)) {
    if (!file) continue;
    const r = await readRegular(file, { root: folderPath, maxBytes: MAX_LOCATE_BYTES });
    if (r.ok) texts.set(file, r.bytes.toString('utf8'));
  }
  return texts;
}
