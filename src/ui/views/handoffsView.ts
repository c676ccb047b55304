import * as vscode from 'vscode';
import { StateTreeProvider } from './stateTreeProvider';
import type { PacketEntry } from '../state/types';
import { groupPackets } from './grouping';
import { escapeMarkdown } from '../markdownText';
import { redact } from '../../core/redact';
import { safeTooltip } from '../tooltip';
import { compactionNotice } from '../statusView';
import { humanTime, isoTime, parseTime, relativeTime } from '../format/when';
import { toDisposable } from '../disposable';
import type { Services } from '../services';

/** The argument the Handoffs view passes to Open / Copy Restart Prompt / Archive. */
export interface PacketNode {
  kind: 'packet';
  packetId: string;
  folderUri: vscode.Uri;
  entry: PacketEntry;
}
export type HandoffNode =
  | { kind: 'key'; key: string; label: string; entries: PacketEntry[] }
  | PacketNode
  | { kind: 'compacted'; text: string; folderUri: vscode.Uri }
  | { kind: 'reason'; text: string; parentId: string };

/** How often "written 5 min ago" is redrawn. */
const CLOCK_MS = 60_000;

/** The Handoffs view: every packet of the output dir, grouped per branch + topic. */
export class HandoffsProvider extends StateTreeProvider<HandoffNode> {
  constructor(services: Services) {
    super(services);
    // Relative times age: redraw them once a minute while there is a packet to show.
    const timer = setInterval(() => {
      if (this.state()?.packets.length) this.redraw();
    }, CLOCK_MS);
    this._register(toDisposable(() => clearInterval(timer)));
  }

  getChildren(node?: HandoffNode): HandoffNode[] {
    const s = this.state();
    if (!s || !s.trusted || s.phase === 'loading') return [];
    if (!node) {
      const branch = s.git?.ok ? s.git.facts.branch : null;
      const groups: HandoffNode[] = groupPackets(s.packets, branch).map((g) => ({ kind: 'key', ...g }));
      const lost = compactionNotice(s);
      return lost ? [{ kind: 'compacted', text: lost, folderUri: s.folder.uri }, ...groups] : groups;
    }
    if (node.kind === 'key') {
      return node.entries.map((entry) => ({ kind: 'packet', packetId: entry.id, folderUri: s.folder.uri, entry }));
    }
    // Why an active packet is stale, one reason a row: too long for the packet row itself.
    if (node.kind === 'packet' && isStale(node.entry)) {
      return node.entry.freshness.reasons.map((text) => ({ kind: 'reason', text, parentId: `packet:${node.entry.dir}` }));
    }
    return [];
  }

  getTreeItem(node: HandoffNode): vscode.TreeItem {
    if (node.kind === 'compacted') {
      const label = node.text.charAt(0).toUpperCase() + node.text.slice(1);
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
      item.id = 'compacted';
      item.description = 'Generate Handoff';
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      item.tooltip = `The agent ${node.text}: what the compaction dropped is only in the agent's transcript now. Generate a handoff so the next session starts from the facts.`;
      item.contextValue = 'compacted';
      item.accessibilityInformation = { label: `${label}. Generate Handoff` };
      item.command = { command: 'sessionHandoff.generateHandoff', title: 'Generate Handoff', arguments: [{ folderUri: node.folderUri }] };
      return item;
    }
    if (node.kind === 'key') {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `key:${node.key}`;
      item.iconPath = new vscode.ThemeIcon('git-branch');
      item.contextValue = 'handoffKey';
      return item;
    }
    if (node.kind === 'reason') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.id = `${node.parentId}:reason:${node.text}`;
      item.iconPath = new vscode.ThemeIcon('circle-small-filled', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      item.tooltip = node.text;
      return item;
    }
    const { packet, freshness } = node.entry;
    const stale = isStale(node.entry);
    const item = new vscode.TreeItem(node.packetId, stale ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    // The verdict is part of the id: a packet that turns stale is drawn anew, expanded.
    item.id = `packet:${node.entry.dir}${stale ? ':stale' : ''}`;
    const now = Date.now();
    const written = node.entry.writtenAt;
    item.description = [stale ? `${packet.status}, stale` : packet.status, written ? `written ${relativeTime(written, now)}` : ''].filter(Boolean).join(' · ');
    item.iconPath = stale
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : packet.status === 'active'
        ? new vscode.ThemeIcon('book', new vscode.ThemeColor('charts.green'))
        : new vscode.ThemeIcon(packet.status === 'archived' ? 'archive' : 'history', new vscode.ThemeColor('disabledForeground'));
    // `foreign`: not written here and not trusted yet (committed, copied or imported): Trust This Packet applies.
    const foreign = node.entry.owned === false;
    item.contextValue = ['packet', packet.status, stale ? 'stale' : 'fresh', ...(foreign ? ['foreign'] : [])].join(' ');
    if (foreign) item.description = `${item.description} · not written here`;
    const asOf = parseTime(packet.generated_at);
    const tip = [
      `**Next action:** ${escapeMarkdown(packet.next_action)}`,
      // Redacted before the cut (a packet from disk may predate a rule): never part of a secret.
      escapeMarkdown(redact(packet.summary).slice(0, 400)),
      `*${packet.status}*${packet.superseded_by ? ` by ${escapeMarkdown(packet.superseded_by)}` : ''}`,
      stale ? `**Stale:** ${escapeMarkdown(freshness.reasons.join('; '))}` : '',
      written ? `*Written:* ${escapeMarkdown(`${humanTime(written, now)} — ${isoTime(written) ?? ''}`)}` : '',
      `*As of the last recorded command:* ${escapeMarkdown(asOf === null ? packet.generated_at : `${humanTime(asOf, now)} — ${packet.generated_at}`)}`,
    ];
    item.tooltip = safeTooltip(tip.filter(Boolean).join('\n\n'));
    item.accessibilityInformation = {
      label: `Handoff ${node.packetId}, ${packet.status}${stale ? `, stale: ${freshness.reasons.join('; ')}` : ''}${written ? `, written ${humanTime(written, now)}` : ''}`,
    };
    item.command = { command: 'sessionHandoff.openPacket', title: 'Open Handoff', arguments: [node] };
    return item;
  }
}

/** An active packet that no longer matches the repository. */
function isStale(entry: PacketEntry): boolean {
  return entry.packet.status === 'active' && entry.freshness.stale;
}
