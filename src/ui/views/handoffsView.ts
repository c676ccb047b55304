import * as vscode from 'vscode';
import { StateTreeProvider } from './stateTreeProvider';
import type { PacketEntry } from '../state/types';
import { groupPackets } from './grouping';
import { escapeMarkdown } from '../markdownText';
import { safeTooltip } from '../tooltip';
import { compactionNotice } from '../statusView';

/** The argument the Handoffs view passes to Open / Copy Restart Prompt / Archive. */
export interface PacketNode {
  kind: 'packet';
  packetId: string;
  folderUri: vscode.Uri;
  entry: PacketEntry;
}
export type HandoffNode = { kind: 'key'; key: string; label: string; entries: PacketEntry[] } | PacketNode | { kind: 'compacted'; text: string; folderUri: vscode.Uri };

/** The Handoffs view: every packet of the output dir, grouped per branch + topic. */
export class HandoffsProvider extends StateTreeProvider<HandoffNode> {
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
    const { packet, freshness } = node.entry;
    const item = new vscode.TreeItem(node.packetId, vscode.TreeItemCollapsibleState.None);
    item.id = `packet:${node.entry.dir}`;
    const stale = packet.status === 'active' && freshness.stale;
    item.description = [packet.status, stale ? `stale: ${freshness.reasons[0] ?? 'out of date'}` : '', packet.generated_at.slice(0, 16).replace('T', ' ')]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = stale
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : packet.status === 'active'
        ? new vscode.ThemeIcon('book', new vscode.ThemeColor('charts.green'))
        : new vscode.ThemeIcon(packet.status === 'archived' ? 'archive' : 'history', new vscode.ThemeColor('disabledForeground'));
    item.contextValue = ['packet', packet.status, stale ? 'stale' : 'fresh'].join(' ');
    const tip = [
      `**Next action:** ${escapeMarkdown(packet.next_action)}`,
      escapeMarkdown(packet.summary.slice(0, 400)),
      `*${packet.status}*${packet.superseded_by ? ` by ${escapeMarkdown(packet.superseded_by)}` : ''}`,
      stale ? `**Stale:** ${escapeMarkdown(freshness.reasons.join('; '))}` : '',
    ];
    item.tooltip = safeTooltip(tip.filter(Boolean).join('\n\n'));
    item.accessibilityInformation = {
      label: `Handoff ${node.packetId}, ${packet.status}${stale ? `, stale: ${freshness.reasons.join('; ')}` : ''}`,
    };
    item.command = { command: 'sessionHandoff.openPacket', title: 'Open Handoff', arguments: [node] };
    return item;
  }
}
