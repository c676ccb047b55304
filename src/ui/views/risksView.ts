import * as vscode from 'vscode';
import type { Severity } from '../../core/packet/schema';
import { StateTreeProvider } from './stateTreeProvider';
import { badgeCount } from '../state/risks';
import type { UiRisk } from '../state/types';
import { groupRisks } from './grouping';
import { splitFix, splitLabel } from './rowText';
import { humanTime, parseTime } from '../format/when';
import type { RiskGroup } from './grouping';
import { escapeMarkdown } from '../markdownText';
import { safeTooltip } from '../tooltip';
import { stripControlLine } from '../../core/controlChars';

export type RiskNode =
  | { kind: 'group'; group: RiskGroup; count: number }
  | { kind: 'risk'; uiRisk: UiRisk; folderUri: vscode.Uri }
  /** Advice under a risk: how to fix it, or the command that verifies it. */
  | { kind: 'advice'; what: 'fix' | 'verify'; text: string; parentId: string };

const GROUP_LABEL: Record<RiskGroup, string> = {
  block: 'Block',
  high: 'High',
  warn: 'Warn',
  info: 'Info',
  acknowledged: 'Acknowledged',
};

const SEVERITY_ICON: Record<Severity, [string, string]> = {
  block: ['error', 'problemsErrorIcon.foreground'],
  high: ['warning', 'problemsErrorIcon.foreground'],
  warn: ['warning', 'problemsWarningIcon.foreground'],
  info: ['info', 'problemsInfoIcon.foreground'],
};

/**
 * The Open Risks view: the active packet's risks plus live ones, grouped by severity, with a badge
 * counting unacknowledged `block`/`high` risks.
 */
export class RisksProvider extends StateTreeProvider<RiskNode> {
  private readonly badgeChanged = this._register(new vscode.EventEmitter<number>());
  /** Fires with the new badge count when the shown risks change. */
  readonly onDidChangeBadge = this.badgeChanged.event;

  protected override onRedraw(): void {
    this.badgeChanged.fire(this.badge());
  }

  /** The number of unacknowledged block/high risks of the active folder. */
  badge(): number {
    const s = this.state();
    return s && s.trusted ? badgeCount(s.risks) : 0;
  }

  getChildren(node?: RiskNode): RiskNode[] {
    const s = this.state();
    if (!s || !s.trusted || s.phase === 'loading') return [];
    const groups = groupRisks(s.risks);
    if (!node) return groups.map((g) => ({ kind: 'group', group: g.group, count: g.risks.length }));
    if (node.kind === 'group') {
      const g = groups.find((x) => x.group === node.group);
      return (g?.risks ?? []).map((uiRisk) => ({ kind: 'risk', uiRisk, folderUri: s.folder.uri }));
    }
    if (node.kind === 'risk') return adviceOf(node.uiRisk).map((a) => ({ kind: 'advice', ...a, parentId: riskId(node.uiRisk) }));
    return [];
  }

  getTreeItem(node: RiskNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const item = new vscode.TreeItem(GROUP_LABEL[node.group], vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${node.group}`;
      item.description = String(node.count);
      item.contextValue = `riskGroup ${node.group}`;
      item.accessibilityInformation = { label: `${GROUP_LABEL[node.group]}: ${node.count} risks` };
      return item;
    }
    if (node.kind === 'advice') {
      const item = new vscode.TreeItem(stripControlLine(`${node.what === 'fix' ? 'Fix' : 'Verify'}: ${node.text}`), vscode.TreeItemCollapsibleState.None);
      item.id = `${node.parentId}:${node.what}`;
      item.iconPath = new vscode.ThemeIcon(node.what === 'fix' ? 'wrench' : 'beaker');
      item.tooltip = safeTooltip(`**${node.what === 'fix' ? 'Fix' : 'Verify'}:** ${escapeMarkdown(node.text)}`);
      item.contextValue = `riskAdvice ${node.what}`;
      return item;
    }
    const { risk, ack, location, origin } = node.uiRisk;
    // The finding is the label (short enough to stay whole at the default sidebar width), the rest of
    // its text continues in the description; the fix advice is a child row, not a cut-off tail.
    const { finding } = splitFix(stripControlLine(risk.detail));
    const { label, rest } = splitLabel(finding);
    const hasAdvice = adviceOf(node.uiRisk).length > 0;
    const item = new vscode.TreeItem(
      label,
      !hasAdvice ? vscode.TreeItemCollapsibleState.None : ack ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = riskId(node.uiRisk);
    // Under "Acknowledged" the group no longer says the severity: the row does, first.
    item.description = stripControlLine((ack ? [risk.severity, rest, `acknowledged by ${ack.by}`] : [rest, risk.source, risk.owner]).filter(Boolean).join(' · '));
    // The severity stays visible on every row, acknowledged or not: its icon and colour.
    const [icon, color] = SEVERITY_ICON[risk.severity];
    item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
    item.contextValue = ['risk', risk.severity, origin, ack ? 'acknowledged' : 'unacknowledged', location ? 'openable' : '']
      .filter(Boolean)
      .join(' ');
    const ackAt = ack ? parseTime(ack.at) : null;
    const tip = [
      `**${escapeMarkdown(risk.severity)}** · ${escapeMarkdown(risk.id)}`,
      escapeMarkdown(risk.detail),
      `*Source:* ${escapeMarkdown(risk.source + (origin === 'live' ? ' (live)' : ' (packet)'))}`,
      risk.owner ? `*Owner:* ${escapeMarkdown(risk.owner)}` : '',
      risk.verify ? `*Verify:* ${escapeMarkdown(risk.verify)}` : '',
      ack ? `*Acknowledged by* ${escapeMarkdown(`${ack.by}, ${ackAt === null ? ack.at : `${humanTime(ackAt, Date.now())} — ${ack.at}`}`)}` : '',
    ];
    item.tooltip = safeTooltip(tip.filter(Boolean).join('\n\n'));
    item.accessibilityInformation = {
      label: `${risk.severity} risk: ${risk.detail}. Source ${risk.source}${ack ? `. Acknowledged by ${ack.by}` : ''}`,
    };
    if (location) {
      item.command = { command: 'sessionHandoff.openLocation', title: 'Open Source', arguments: [location] };
    }
    return item;
  }
}

function riskId(r: UiRisk): string {
  return `risk:${r.origin}:${r.risk.id}`;
}

/** The child rows of a risk: its fix advice (clean-state risks) and the command that verifies it. */
function adviceOf(r: UiRisk): { what: 'fix' | 'verify'; text: string }[] {
  const out: { what: 'fix' | 'verify'; text: string }[] = [];
  const { fix } = splitFix(r.risk.detail);
  if (fix) out.push({ what: 'fix', text: fix });
  if (r.risk.verify) out.push({ what: 'verify', text: r.risk.verify });
  return out;
}
