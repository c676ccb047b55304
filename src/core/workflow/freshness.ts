import { loadWorkbench } from '../artifacts/loader';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { topicOf } from '../artifacts/topic';
import type { Diagnostic } from '../diagnostics';
import type { GitClient, GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { Packet } from '../packet/schema';
import { assessFreshness, type Freshness } from '../registry/freshness';
import { activePacketFor, listPackets } from '../registry/registry';
import { outputDirOf, workbenchDirOf } from './paths';
import { newestPacket, type StoredPacket } from './readPackets';

async function freshnessWith(snapshot: WorkbenchSnapshot, facts: GitFacts | null, packet: Packet, git: GitClient | null): Promise<Freshness> {
  const commitsSince =
    git && facts?.head && packet.head_commit ? await git.commitsBetween(packet.head_commit, facts.head).catch(() => null) : null;
  return assessFreshness(packet, { facts, commitsSince, inputs: snapshot.sources });
}

function load(workspaceDir: string, options: HandoffOptions): Promise<WorkbenchSnapshot> {
  return loadWorkbench(workbenchDirOf(workspaceDir, options), { feedbackK: options.feedbackK, maxCommands: options.maxCommands, root: workspaceDir });
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
): Promise<{ current: { stored: StoredPacket; freshness: Freshness } | null; diagnostics: Diagnostic[] }> {
  const [snapshot, listed] = await Promise.all([load(workspaceDir, options), listPackets(outputDirOf(workspaceDir, options))]);
  const facts = git ? await git.facts().catch(() => null) : null;
  const branch = facts ? facts.branch : (snapshot.agentState?.branch ?? null);
  const preferred = prefer ? listed.packets.find((p) => p.dir === prefer && p.packet.status === 'active') : undefined;
  const stored = preferred ?? activePacketFor(listed.packets, branch, topicOf(snapshot)) ?? newestPacket(listed.packets);
  if (!stored) return { current: null, diagnostics: listed.diagnostics };
  return { current: { stored, freshness: await freshnessWith(snapshot, facts, stored.packet, git) }, diagnostics: listed.diagnostics };
}
