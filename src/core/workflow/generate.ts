import * as path from 'node:path';
import { foldPendingAcks } from '../acks';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CleanFinding } from '../clean/types';
import type { ContextResult } from '../context/types';
import type { Diagnostic } from '../diagnostics';
import { readIfExists } from '../fsx';
import type { GitClient, GitError } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { BuildResult, GitInput, PacketInput } from '../packet/build';
import { buildPacket, deriveSessionId, safeSegment } from '../packet/build';
import type { Packet } from '../packet/schema';
import { PacketSchema } from '../packet/schema';
import { PACKET_JSON, PACKET_MD, packetContentHash, renderPacketFiles, writePacket } from '../packet/write';
import { withLock, type LockOptions } from '../registry/lock';
import { supersedeOthers } from '../registry/registry';
import type { SessionFacts } from '../session/model';
import { CLEAN_STATE_FILE, writeCleanState } from './check';
import { computeGitInput } from './gitInputs';
import { inspectWorkbench, loadMergedWorkbench, ownPathsOf } from './inspect';
import { assertOutputInside, outputDirOf, packetDirOf } from './paths';

export interface GenerateArgs {
  /** The workspace folder; the workbench and output dirs resolve against it. */
  workspaceDir: string;
  options: HandoffOptions;
  /** The user accepted a dirty workbench: findings become `block` risks instead of a refusal. */
  allowDirty?: boolean;
  /**
   * Git for the clean-state check and the packet's git fields (usually `createGitClient(workspaceDir)`).
   * Without it (or without a repository) the packet has no git facts.
   */
  gitClient?: GitClient | null;
  /** Overrides the git fields computed through `gitClient`. */
  git?: GitInput | null;
  /** Overrides the clean report computed through `gitClient`. */
  clean?: { clean: boolean; findings: CleanFinding[] } | null;
  context?: ContextResult | null;
  /** The person's goal for the next session; becomes `next_goal` and the prompt's first line. */
  goal?: string | null;
  /** The agent session working in the folder: fills in what the workbench files do not say. */
  session?: SessionFacts | null;
  lock?: LockOptions;
}

export type GenerateOutcome =
  | {
      kind: 'written' | 'unchanged';
      packetDir: string;
      packet: Packet;
      diagnostics: Diagnostic[];
      /** Packets of the same branch + topic this one superseded. */
      superseded?: string[];
    }
  | { kind: 'refused'; reason: string; diagnostics: Diagnostic[]; findings?: CleanFinding[] };

/** Everything the packet needs besides the artifacts. The one place git, clean and context are gathered. */
export interface GatheredInputs {
  snapshot: WorkbenchSnapshot;
  diagnostics: Diagnostic[];
  git: GitInput | null;
  clean: { clean: boolean; findings: CleanFinding[] } | null;
  context: ContextResult | null;
  /** Why git facts are missing, when a git client was given but git could not answer. */
  gitError: GitError | null;
}

/** Loads the workbench and collects git facts, the clean report and the context reading. */
export async function gatherInputs(args: GenerateArgs): Promise<GatheredInputs> {
  const { options } = args;
  const context = args.context ?? null;
  if (!args.gitClient) {
    const snapshot = await loadMergedWorkbench(args.workspaceDir, options, args.session);
    return { snapshot, diagnostics: [...snapshot.diagnostics], git: args.git ?? null, clean: args.clean ?? null, context, gitError: null };
  }
  const insp = await inspectWorkbench(args.workspaceDir, options, args.gitClient, { context, session: args.session });
  if (!insp.git.ok) {
    return { snapshot: insp.snapshot, diagnostics: insp.diagnostics, git: args.git ?? null, clean: args.clean ?? null, context, gitError: insp.git.error };
  }
  const clean = args.clean ?? (insp.clean ? { clean: insp.clean.clean, findings: insp.clean.findings } : null);
  const git =
    args.git ??
    (await computeGitInput({
      git: args.gitClient,
      facts: insp.git.facts,
      base: insp.git.base,
      snapshot: insp.snapshot,
      workbenchDir: insp.workbenchDir,
      ownPaths: ownPathsOf(insp.git.facts.root, insp.workbenchDir, insp.outputDir),
      // The last known good commit may come from this session's own active packet too.
      previous: insp.active?.packet ?? insp.previous?.packet ?? null,
      clean: clean?.clean ?? null,
      ...(insp.git.files ? { files: insp.git.files } : {}),
    }));
  return { snapshot: insp.snapshot, diagnostics: insp.diagnostics, git, clean, context, gitError: null };
}

/** Builds the packet; a missing last known good commit also becomes an open risk (issue 3). */
function build(input: PacketInput): BuildResult {
  const built = buildPacket(input);
  const reason = input.git && !input.git.lastKnownGoodCommit ? input.git.lkgUnknownReason : undefined;
  if (!built.ok || !reason || built.packet.open_risks.some((r) => r.id === 'git:no-last-known-good')) return built;
  const risk = {
    id: 'git:no-last-known-good',
    severity: 'warn' as const,
    detail: `No last known good commit: ${reason}. Do not assume HEAD is safe to build on.`,
    source: 'git',
    owner: 'agent' as const,
  };
  return { ok: true, packet: PacketSchema.parse({ ...built.packet, open_risks: [...built.packet.open_risks, risk] }) };
}

/**
 * Picks the packet's folder: the session id for the session's first packet; when that folder holds a
 * different packet, the session id plus a short content hash — a written packet is never replaced.
 */
async function choosePacketId(outputDir: string, base: PacketInput): Promise<PacketInput> {
  const first = { ...base, packetId: safeSegment(deriveSessionId(base)) };
  const built = build(first);
  if (!built.ok) return first;
  const dir = packetDirOf(outputDir, first.packetId);
  const existing = await readIfExists(path.join(dir, PACKET_JSON));
  if (existing === null) return first;
  const { json, md } = renderPacketFiles(built.packet);
  if (existing === json && (await readIfExists(path.join(dir, PACKET_MD))) === md) return first;
  return { ...base, packetId: `${first.packetId}-${packetContentHash(built.packet)}` };
}

/**
 * The generate workflow shared by the CLI and the extension: load the workbench, gather git/clean/
 * context inputs, refuse when dirty (unless allowed) or when there is no next action, then — under
 * the output dir's lock — write the packet (or report it unchanged) and supersede the previous
 * active packet of the same branch + topic.
 */
export async function generateHandoff(args: GenerateArgs): Promise<GenerateOutcome> {
  const { options } = args;
  const inputs = await gatherInputs(args);
  const { snapshot, diagnostics } = inputs;
  const allowDirty = args.allowDirty ?? false;
  if (inputs.clean && !inputs.clean.clean && !allowDirty) {
    const findings = inputs.clean.findings;
    const what = findings.map((f) => f.check).filter((c, i, a) => a.indexOf(c) === i).join(', ');
    return {
      kind: 'refused',
      reason: `the workbench is not clean (${findings.length} finding${findings.length === 1 ? '' : 's'}: ${what}); fix the findings or accept them with --allow-dirty`,
      diagnostics,
      findings,
    };
  }
  const outputDir = outputDirOf(args.workspaceDir, options);
  await assertOutputInside(args.workspaceDir, options);
  const base: PacketInput = { snapshot, options, packetId: '', git: inputs.git, clean: inputs.clean, allowDirty, context: inputs.context, nextGoal: args.goal ?? null };
  // Refuse before taking the lock: a refusal must not even create the output dir.
  const probe = build({ ...base, packetId: 'probe' });
  if (!probe.ok) return { kind: 'refused', reason: probe.reason, diagnostics };
  // Choosing the folder, writing and superseding happen under one lock: concurrent runs never leave
  // two active packets for one branch + topic, nor a torn file.
  const result = await withLock(
    outputDir,
    async () => {
      const input = await choosePacketId(outputDir, base);
      const built = build(input);
      if (!built.ok) return { kind: 'refused' as const, reason: built.reason, diagnostics };
      const written = await writePacket(outputDir, built.packet);
      if (written.kind === 'written') await foldPendingAcks(outputDir, written.packetDir);
      const superseded = await supersedeOthers(outputDir, built.packet);
      if (args.gitClient && inputs.clean && !args.clean) {
        await writeCleanState(path.join(outputDir, CLEAN_STATE_FILE), inputs.clean);
      }
      return { kind: written.kind, packetDir: written.packetDir, packet: built.packet, diagnostics, superseded };
    },
    args.lock,
  );
  if (result.kind !== 'refused' && inputs.gitError) {
    diagnostics.push({
      file: 'git',
      message: `${inputs.gitError.message} The packet has no git facts and the clean state was not checked.`,
    });
  }
  return result;
}
