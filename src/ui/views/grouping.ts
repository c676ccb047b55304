import { SEVERITIES } from '../../core/packet/schema';
import type { Severity } from '../../core/packet/schema';
import type { PacketEntry, UiRisk } from '../state/types';

/** The groups of the Open Risks view: the severities, then the acknowledged risks. */
export type RiskGroup = Severity | 'acknowledged';

/** Groups risks by severity, most severe first; acknowledged ones in their own group at the end. */
export function groupRisks(risks: readonly UiRisk[]): { group: RiskGroup; risks: UiRisk[] }[] {
  const groups: { group: RiskGroup; risks: UiRisk[] }[] = SEVERITIES.map((sev) => ({
    group: sev,
    risks: risks.filter((r) => !r.ack && r.risk.severity === sev),
  }));
  groups.push({ group: 'acknowledged', risks: risks.filter((r) => r.ack) });
  return groups.filter((g) => g.risks.length > 0);
}

const STATUS_ORDER = { active: 0, superseded: 1, archived: 2 } as const;

/**
 * Groups packets per branch + topic; within a group the active packet first, then superseded and
 * archived ones, newest first. The group of the current branch comes first.
 */
export function groupPackets(packets: readonly PacketEntry[], currentBranch: string | null): { key: string; label: string; entries: PacketEntry[] }[] {
  const groups = new Map<string, { key: string; label: string; entries: PacketEntry[] }>();
  for (const e of packets) {
    const key = `${e.packet.branch ?? ''}\u0000${e.packet.topic}`;
    const g = groups.get(key) ?? { key, label: `${e.packet.branch ?? '(no branch)'} · ${e.packet.topic}`, entries: [] };
    g.entries.push(e);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    g.entries.sort(
      (a, b) =>
        STATUS_ORDER[a.packet.status] - STATUS_ORDER[b.packet.status] ||
        b.packet.generated_at.localeCompare(a.packet.generated_at) ||
        a.id.localeCompare(b.id),
    );
  }
  return [...groups.values()].sort(
    (a, b) =>
      Number(b.entries[0]?.packet.branch === currentBranch) - Number(a.entries[0]?.packet.branch === currentBranch) ||
      a.label.localeCompare(b.label),
  );
}
