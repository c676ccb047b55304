import { loadWorkbench } from '../artifacts/loader';
import type { GitClient, GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { Packet } from '../packet/schema';
import { assessFreshness, type Freshness } from '../registry/freshness';
import { workbenchDirOf } from './paths';

/**
 * The freshness of one packet against the workbench as it is now — cheaper than a full state read:
 * git facts, one commit count and the artifacts' hashes. Without git only the inputs are compared.
 */
export async function freshnessNow(workspaceDir: string, options: HandoffOptions, packet: Packet, git: GitClient | null): Promise<Freshness> {
  const snapshot = await loadWorkbench(workbenchDirOf(workspaceDir, options), { feedbackK: options.feedbackK, maxCommands: options.maxCommands });
  let facts: GitFacts | null = null;
  if (git) facts = await git.facts().catch(() => null);
  const commitsSince =
    git && facts?.head && packet.head_commit ? await git.commitsBetween(packet.head_commit, facts.head).catch(() => null) : null;
  return assessFreshness(packet, { facts, commitsSince, inputs: snapshot.sources });
}
