import * as path from 'node:path';
import { loadWorkbench } from '../artifacts/loader';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CleanFinding } from '../clean/types';
import type { ContextResult } from '../context/types';
import type { Diagnostic } from '../diagnostics';
import { readIfExists } from '../fsx';
import type { HandoffOptions } from '../options';
import type { GitInput, PacketInput } from '../packet/build';
import { buildPacket, deriveSessionId, safeSegment } from '../packet/build';
import type { Packet } from '../packet/schema';
import { PACKET_JSON, PACKET_MD, packetContentHash, renderPacketFiles, writePacket } from '../packet/write';
import { outputDirOf, packetDirOf, workbenchDirOf } from './paths';

export interface GenerateArgs {
  /** The workspace folder; the workbench and output dirs resolve against it. */
  workspaceDir: string;
  options: HandoffOptions;
  /** The user accepted a dirty workbench: findings become `block` risks instead of a refusal. */
  allowDirty?: boolean;
  git?: GitInput | null;
  clean?: { clean: boolean; findings: CleanFinding[] } | null;
  context?: ContextResult | null;
}

export type GenerateOutcome =
  | { kind: 'written' | 'unchanged'; packetDir: string; packet: Packet; diagnostics: Diagnostic[] }
  | { kind: 'refused'; reason: string; diagnostics: Diagnostic[] };

/** Everything the packet needs besides the artifacts. The one place to add git, clean and context sources. */
export interface GatheredInputs {
  git: GitInput | null;
  clean: { clean: boolean; findings: CleanFinding[] } | null;
  context: ContextResult | null;
}

/** Collects the non-artifact inputs; today they come from the caller as plain data. */
export async function gatherInputs(args: GenerateArgs, _snapshot: WorkbenchSnapshot): Promise<GatheredInputs> {
  return { git: args.git ?? null, clean: args.clean ?? null, context: args.context ?? null };
}

/**
 * Picks the packet's folder: the session id for the session's first packet; when that folder holds a
 * different packet, the session id plus a short content hash — a written packet is never replaced.
 */
async function choosePacketId(outputDir: string, base: PacketInput): Promise<PacketInput> {
  const first = { ...base, packetId: safeSegment(deriveSessionId(base)) };
  const built = buildPacket(first);
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
 * context inputs, refuse when dirty (unless allowed) or when there is no next action, then write the
 * packet — or report it unchanged.
 */
export async function generateHandoff(args: GenerateArgs): Promise<GenerateOutcome> {
  const { options } = args;
  const snapshot = await loadWorkbench(workbenchDirOf(args.workspaceDir, options), {
    feedbackK: options.feedbackK,
    maxCommands: options.maxCommands,
  });
  const diagnostics = [...snapshot.diagnostics];
  const inputs = await gatherInputs(args, snapshot);
  const allowDirty = args.allowDirty ?? false;
  if (inputs.clean && !inputs.clean.clean && !allowDirty) {
    const what = inputs.clean.findings.map((f) => f.check).filter((c, i, a) => a.indexOf(c) === i).join(', ');
    return { kind: 'refused', reason: `the workbench is not clean (${what}); fix the findings or accept them with --allow-dirty`, diagnostics };
  }
  const outputDir = outputDirOf(args.workspaceDir, options);
  const base: PacketInput = { snapshot, options, packetId: '', git: inputs.git, clean: inputs.clean, allowDirty, context: inputs.context };
  const input = await choosePacketId(outputDir, base);
  const built = buildPacket(input);
  if (!built.ok) return { kind: 'refused', reason: built.reason, diagnostics };
  const written = await writePacket(outputDir, built.packet);
  return { kind: written.kind, packetDir: written.packetDir, packet: built.packet, diagnostics };
}
