import type { Ack } from '../../core/acks';
import type { Audit } from '../../core/packet/auditSchema';
import { describeSources } from '../../core/packet/sources';
import { vscodeTaskAgent } from '../../core/render/prompt';
import { topicOf } from '../../core/artifacts/topic';
import { humanTime } from '../format/when';
import type { PanelAction, PanelEmpty, PanelModel } from '../protocol';
import type { PacketEntry, WorkbenchUiState } from '../state/types';

/**
 * The packet the panel shows: a pinned packet id when one was opened explicitly, else the active
 * packet of the folder's current branch + topic (so a regenerated packet replaces the old one live).
 */
export function selectEntry(state: WorkbenchUiState | undefined, packetId: string | undefined): PacketEntry | null {
  if (!state) return null;
  if (packetId) return state.packets.find((p) => p.id === packetId) ?? null;
  return state.activePacket;
}

/** The view model sent to the webview for one packet. */
export function toPanelModel(state: WorkbenchUiState, entry: PacketEntry, acks: readonly Ack[], pinned: boolean, audit?: Audit): PanelModel {
  return {
    ...(audit ? { audit } : {}),
    packet: entry.packet,
    packetDir: entry.dir,
    freshness: entry.freshness,
    acks: acks.map((a) => ({ id: a.risk_id, by: a.by, at: a.at })),
    folderName: state.folder.name,
    folderUri: state.folder.uri.toString(),
    pinned,
    derivedFrom: describeSources(entry.packet.sources),
    actions: actionsFor(entry),
    writtenAt: entry.writtenAt ?? null,
  };
}

/**
 * The buttons that work on a packet: an archived packet is history (its prompt would restart work
 * someone closed), so only Generate is offered; the others keep every action.
 */
export function actionsFor(entry: PacketEntry): PanelAction[] {
  if (entry.packet.status === 'archived') return ['generate'];
  // A packet from a Cline / Roo Code / Kilo Code task: the next session is a new task of that agent.
  const fromTask = vscodeTaskAgent(entry.packet) !== null;
  // One not written here (committed, copied, imported) can be trusted, after review, from here.
  const trust: PanelAction[] = entry.owned === false ? ['trustPacket'] : [];
  return [...trust, 'copyPrompt', ...(fromTask ? (['copyAsNewTask'] as const) : []), 'copyJson', 'copyPrSummary', 'openMarkdown', 'regenerate'];
}

/** The newest archived packet of the folder's current branch + topic, if the state knows both. */
function archivedHere(state: WorkbenchUiState): PacketEntry | null {
  const branch = state.git?.ok ? state.git.facts.branch : null;
  const topic = state.snapshot ? topicOf(state.snapshot) : null;
  if (topic === null) return null;
  const mine = state.packets.filter((p) => p.packet.status === 'archived' && p.packet.branch === branch && p.packet.topic === topic);
  return mine.sort((a, b) => (b.writtenAt ?? 0) - (a.writtenAt ?? 0))[0] ?? null;
}

/** What to say instead of a packet: loading, why nothing runs, or that none exists yet. */
export function emptyFor(state: WorkbenchUiState | undefined, packetId: string | undefined): PanelEmpty {
  if (!state || state.phase === 'loading') return { reason: 'Reading the workbench…', canGenerate: false };
  if (!state.trusted) {
    return { reason: 'This workspace is not trusted: Session Handoff runs no git and writes nothing here.', canGenerate: false };
  }
  if (packetId) return { reason: `Handoff packet ${packetId} is no longer in the output folder.`, canGenerate: true };
  if (state.phase !== 'ready' && state.phaseMessage) return { reason: state.phaseMessage, canGenerate: state.phase !== 'untrusted' };
  const branch = state.git?.ok ? state.git.facts.branch : null;
  const archived = archivedHere(state);
  if (archived) {
    const when = archived.writtenAt ? ` ${humanTime(archived.writtenAt, Date.now())}` : '';
    return {
      reason: `Handoff ${archived.id} was archived${when}. There is no active handoff${branch ? ` for branch ${branch}` : ''} now: generate a new one when the work is at a restartable point.`,
      canGenerate: true,
    };
  }
  return {
    reason: `No active handoff packet${branch ? ` for branch ${branch}` : ''} yet. Generate one when the work is at a restartable point.`,
    canGenerate: true,
  };
}
