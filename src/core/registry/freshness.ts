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
 */
export function assessFreshness(packet: Packet, now: FreshnessInputs): Freshness {
  const reasons: string[] = [];
  let commitsBehind: number | undefined;
  const { facts } = now;
  if (facts) {
    if (packet.head_commit && facts.head && packet.head_commit !== facts.head) {
      if (now.commitsSince !== null && now.commitsSince > 0) {
        commitsBehind = now.commitsSince;
        reasons.push(
          `HEAD moved ${now.commitsSince} commit${now.commitsSince === 1 ? '' : 's'} since the packet (${short(packet.head_commit)} → ${short(facts.head)}).`,
        );
      } else {
        reasons.push(`HEAD is ${short(facts.head)}, not the packet's ${short(packet.head_commit)}.`);
      }
    }
    if (packet.branch && facts.branch !== packet.branch) {
      reasons.push(`The branch is ${facts.branch ?? 'a detached HEAD'}, but the packet was made on ${packet.branch}.`);
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
