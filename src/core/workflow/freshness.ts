import { loadWorkbench } from '../artifacts/loader';
import type { ArtifactSource, WorkbenchSnapshot } from '../artifacts/snapshot';
import { topicOf } from '../artifacts/topic';
import type { Diagnostic } from '../diagnostics';
import type { GitClient, GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { Packet } from '../packet/schema';
import { assessFreshness, type Freshness } from '../registry/freshness';
import { activePacketFor, listPackets, packetKey } from '../registry/registry';
import { ownedOrUnknown } from '../registry/trustPacket';
import { outputDirOf, workbenchDirOf } from './paths';
import { newestPacket, type StoredPacket } from './readPackets';

/** What packets are compared with: HEAD and the branch (null without git) and the artifacts as they are now. */
export interface FreshnessNow {
  facts: Pick<GitFacts, 'head' | 'branch'> | null;
  inputs: readonly ArtifactSource[];
}

/**
 * The freshness of packets, with the reasons: the one rule the CLI, the hook, the statusline and the
 * views share. A packet is stale when HEAD moved since its head_commit (with how many commits, asked of
 * git once per distinct head_commit), when the branch differs, or when an input changed.
 */
export async function freshnessOf(packets: readonly Packet[], now: FreshnessNow, git: GitClient | null): Promise<Freshness[]> {
  const head = now.facts?.head ?? null;
  const counts = new Map<string, Promise<number | null>>();
  const countFrom = (from: string | null): Promise<number | null> => {
    if (!git || !head || !from || from === head) return Promise.resolve(null);
    if (!counts.has(from)) counts.set(from, git.commitsBetween(from, head).catch(() => null));
    return counts.get(from) as Promise<number | null>;
  };
  return Promise.all(
    packets.map(async (p) => assessFreshness(p, { facts: now.facts, commitsSince: await countFrom(p.head_commit), inputs: now.inputs })),
  );
}

/**
 * What freshness needs, without a clean inspection: the artifacts' hashes and HEAD + branch (no
 * status, no untracked files). The snapshot has no feedback records (the log is only hashed). Without
 * git, or when git cannot answer, `facts` is null.
 */
export async function readFreshnessNow(
  workspaceDir: string,
  options: HandoffOptions,
  git: GitClient | null,
): Promise<{ snapshot: WorkbenchSnapshot; now: FreshnessNow }> {
  const [snapshot, facts] = await Promise.all([
    // Freshness compares hashes: the feedback log is hashed, never parsed (a million records stay fast).
    loadWorkbench(workbenchDirOf(workspaceDir, options), { feedbackK: options.feedbackK, maxCommands: options.maxCommands, root: workspaceDir, feedback: 'hash' }),
    git ? git.head().catch(() => null) : Promise.resolve(null),
  ]);
  return { snapshot, now: { facts, inputs: snapshot.sources } };
}

/**
 * The packet a restart should use: the active packet of the current branch + topic, else the newest
 * packet; with its freshness. Null when the output dir holds no readable packet. `prefer` (a packet
 * folder) wins while it is still active: the packet a hook just wrote for this session.
 */
export async function currentPacket(
  workspaceDir: string,
  options: HandoffOptions,
  git: GitClient | null,
  prefer?: string,
): Promise<{ current: { stored: StoredPacket; freshness: Freshness } | null; diagnostics: Diagnostic[]; now?: FreshnessNow }> {
  const [{ snapshot, now }, listed] = await Promise.all([readFreshnessNow(workspaceDir, options, git), listPackets(outputDirOf(workspaceDir, options))]);
  const branch = now.facts ? now.facts.branch : (snapshot.agentState?.branch ?? null);
  const preferred = prefer ? listed.packets.find((p) => p.dir === prefer && p.packet.status === 'active') : undefined;
  const stored = preferred ?? (await ownActiveFirst(listed.packets, branch, topicOf(snapshot))) ?? activePacketFor(listed.packets, branch, topicOf(snapshot)) ?? newestPacket(listed.packets);
  if (!stored) return { current: null, diagnostics: listed.diagnostics, now };
  const [freshness] = await freshnessOf([stored.packet], now, git);
  return { current: { stored, freshness: freshness as Freshness }, diagnostics: listed.diagnostics, now };
}

/**
 * Of several active packets of this branch + topic, the newest one this user owns (wrote or trusted
 * here): a packet imported or committed from elsewhere, not trusted, never displaces the user's own.
 * Null when none is owned (then the newest active one stands, shown as not written here).
 */
async function ownActiveFirst(packets: readonly StoredPacket[], branch: string | null, topic: string): Promise<StoredPacket | null> {
  const key = packetKey({ branch, topic });
  const active = packets.filter((p) => p.packet.status === 'active' && packetKey(p.packet) === key);
  if (active.length < 2) return null;
  for (const p of active) if (await ownedOrUnknown(p)) return p;
  return null;
}
