import type { ArtifactSource } from '../artifacts/snapshot';
import type { GitFacts } from '../gitPort';
import type { Packet } from '../packet/schema';

export interface Freshness {
  stale: boolean;
  /** One short sentence per reason, most important first. */
  reasons: string[];
  /** Commits HEAD is ahead of the packet's head_commit, when known. */
  commitsBehind?: number;
}

export interface FreshnessInputs {
  /** Current git facts, or null without git (then only the inputs are compared). */
  facts: Pick<GitFacts, 'head' | 'branch'> | null;
  /** Commits from the packet's head_commit to HEAD (null when unknown). */
  commitsSince: number | null;
  /** The artifacts as they are now (the loader's `sources`). */
  inputs: readonly ArtifactSource[];
}

const short = (sha: string): string => sha.slice(0, 7);

/**
 * Whether a packet still describes the workbench: stale when HEAD moved since its head_commit (with
 * how many commits), when the branch differs, or when an input artifact changed, appeared or vanished.
 * With git, a head_commit or branch the packet lacks is a difference, never a match.
 */
export function assessFreshness(packet: Packet, now: FreshnessInputs): Freshness {
  const reasons: string[] = [];
  let commitsBehind: number | undefined;
  const { facts } = now;
  if (facts) {
    // A field one side does not know never matches: a packet without a head_commit or a branch (a
    // planted one, or one written elsewhere) is not "the packet of this HEAD".
    const was = packet.head_commit || null;
    const head = facts.head || null;
    if (was !== head) {
      if (!was) reasons.push(`The packet records no HEAD commit, so it cannot be matched with HEAD ${short(head as string)}.`);
      else if (!head) reasons.push(`The repository has no commit yet, but the packet was made at ${short(was)}.`);
      else if (now.commitsSince !== null && now.commitsSince > 0) {
        commitsBehind = now.commitsSince;
        reasons.push(`HEAD moved ${now.commitsSince} commit${now.commitsSince === 1 ? '' : 's'} since the packet (${short(was)} → ${short(head)}).`);
      } else {
        reasons.push(`HEAD is ${short(head)}, not the packet's ${short(was)}.`);
      }
    }
    const branch = packet.branch || null;
    if (branch !== (facts.branch || null)) {
      reasons.push(
        branch
          ? `The branch is ${facts.branch ?? 'a detached HEAD'}, but the packet was made on ${branch}.`
          : `The packet records no branch, so it cannot be matched with the branch ${facts.branch as string}.`,
      );
    }
  }
  const before = new Map(packet.inputs.map((i) => [i.file, i.sha256]));
  const current = new Map(now.inputs.map((i) => [i.file, i.sha256]));
  const changed: string[] = [];
  for (const [file, sha] of before) if (current.get(file) !== sha) changed.push(current.has(file) ? file : `${file} (removed)`);
  for (const file of current.keys()) if (!before.has(file)) changed.push(`${file} (new)`);
  if (changed.length) {
    reasons.push(`${changed.length === 1 ? 'An input changed' : 'Inputs changed'} after the packet: ${changed.join(', ')}.`);
  }
  const stale = reasons.length > 0;
  return commitsBehind === undefined ? { stale, reasons } : { stale, reasons, commitsBehind };
}
