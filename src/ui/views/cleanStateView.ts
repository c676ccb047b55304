import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckResult, CleanFinding } from '../../core/clean/types';
import { StateTreeProvider } from './stateTreeProvider';
import { escapeMarkdown } from '../markdownText';
import { safeTooltip } from '../tooltip';
import { stripControlLine } from '../../core/controlChars';

export type CleanNode =
  | { kind: 'check'; check: CheckResult; folderUri: vscode.Uri }
  | { kind: 'finding'; finding: CleanFinding; folderUri: vscode.Uri }
  | { kind: 'path'; path: string; file: string; parentId: string; folderUri: vscode.Uri };

/**
 * The Clean State view: the five checks of the active folder, each with its findings and their
 * paths. Empty (and so showing a welcome message) until the state is `ready`.
 */
export class CleanStateProvider extends StateTreeProvider<CleanNode> {
  getChildren(node?: CleanNode): CleanNode[] {
    const s = this.state();
    if (!s || s.phase !== 'ready' || !s.clean) return [];
    const folderUri = s.folder.uri;
    if (!node) return s.clean.checks.map((check) => ({ kind: 'check', check, folderUri }));
    if (node.kind === 'check') return node.check.findings.map((finding) => ({ kind: 'finding', finding, folderUri }));
    if (node.kind === 'finding') {
      const root = s.git?.ok ? s.git.facts.root : s.folder.uri.fsPath;
      return (node.finding.paths ?? []).map((p) => ({ kind: 'path', path: p, file: path.resolve(root, p), parentId: findingId(node.finding), folderUri }));
    }
    return [];
  }

  getTreeItem(node: CleanNode): vscode.TreeItem {
    if (node.kind === 'check') {
      const { check } = node;
      const item = new vscode.TreeItem(
        check.title,
        check.findings.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      // The verdict is part of the id: a check that starts failing is drawn anew, expanded.
      const verdict = check.unknown ? 'unknown' : check.passed ? 'passing' : 'failing';
      item.id = `check:${check.check}:${check.unknown ? 'unknown' : check.passed ? 'pass' : 'fail'}`;
      item.description = stripControlLine(check.summary);
      item.iconPath = check.unknown
        ? new vscode.ThemeIcon('question', new vscode.ThemeColor('descriptionForeground'))
        : check.passed
          ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
          : new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
      item.contextValue = `check ${check.unknown ? 'unknown' : check.passed ? 'passed' : 'failed'}`;
      item.tooltip = safeTooltip(`**${escapeMarkdown(check.title)}**: ${verdict}\n\n${escapeMarkdown(check.summary)}`);
      item.accessibilityInformation = { label: `${check.title}, ${verdict}: ${check.summary}` };
      return item;
    }
    if (node.kind === 'finding') {
      const { finding } = node;
      const hasPaths = (finding.paths?.length ?? 0) > 0;
      const item = new vscode.TreeItem(
        stripControlLine(finding.detail),
        hasPaths ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      item.id = findingId(finding);
      item.iconPath = new vscode.ThemeIcon('circle-small-filled', new vscode.ThemeColor('problemsErrorIcon.foreground'));
      item.contextValue = finding.fix ? 'finding fixable' : 'finding';
      item.tooltip = safeTooltip(`${escapeMarkdown(finding.detail)}${finding.fix ? `\n\n**Fix:** ${escapeMarkdown(finding.fix)}` : ''}`);
      return item;
    }
    const item = new vscode.TreeItem(vscode.Uri.file(node.file), vscode.TreeItemCollapsibleState.None);
    item.id = `${node.parentId}:${node.file}`;
    // A file name may hold an escape sequence or a line break; a label is one line of plain text.
    item.label = stripControlLine(node.path);
    item.contextValue = 'path openable';
    item.command = { command: 'sessionHandoff.openLocation', title: 'Open', arguments: [{ file: node.file }] };
    return item;
  }
}

function findingId(f: CleanFinding): string {
  return `finding:${f.check}:${f.detail}`;
}
