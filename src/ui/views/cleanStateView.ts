import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SecretFinding } from '../../core/artifacts/snapshot';
import type { CheckResult, CleanFinding } from '../../core/clean/types';
import { secretRisks } from '../../core/packet/secretRisks';
import { StateTreeProvider } from './stateTreeProvider';
import { escapeMarkdown } from '../markdownText';
import { safeTooltip } from '../tooltip';
import { stripControlLine } from '../../core/controlChars';
import { splitLabel } from './rowText';

export type CleanNode =
  | { kind: 'check'; check: CheckResult; folderUri: vscode.Uri }
  | { kind: 'finding'; finding: CleanFinding; folderUri: vscode.Uri }
  | { kind: 'path'; path: string; file: string; parentId: string; folderUri: vscode.Uri }
  | { kind: 'secrets'; secrets: readonly SecretFinding[]; folderUri: vscode.Uri }
  | { kind: 'secret'; secret: SecretFinding; file: string; line?: number; folderUri: vscode.Uri }
  /** A finding's fix advice, or a passing check's note, as its own row (too long for the end of a row). */
  | { kind: 'fix'; text: string; parentId: string }
  | { kind: 'note'; text: string; parentId: string };

/**
 * The Clean State view: the five checks of the active folder, each with its findings and their
 * paths. Empty (and so showing a welcome message) until the state is `ready`.
 */
export class CleanStateProvider extends StateTreeProvider<CleanNode> {
  getChildren(node?: CleanNode): CleanNode[] {
    const s = this.state();
    if (!s || s.phase !== 'ready' || !s.clean) return [];
    const folderUri = s.folder.uri;
    if (!node) {
      const checks: CleanNode[] = s.clean.checks.map((check) => ({ kind: 'check', check, folderUri }));
      // A credential in a workbench file is a finding of its own: masking it in the packet is not enough.
      const secrets = s.snapshot?.secrets ?? [];
      return secrets.length ? [...checks, { kind: 'secrets', secrets, folderUri }] : checks;
    }
    if (node.kind === 'secrets') {
      return node.secrets.map((secret) => ({ kind: 'secret', secret, file: path.resolve(s.workbenchDir, secret.file), line: secret.line ?? undefined, folderUri }));
    }
    if (node.kind === 'check') {
      if (node.check.passed && node.check.note) return [{ kind: 'note', text: node.check.note, parentId: `check:${node.check.check}` }];
      return node.check.findings.map((finding) => ({ kind: 'finding', finding, folderUri }));
    }
    if (node.kind === 'finding') {
      const root = s.git?.ok ? s.git.facts.root : s.folder.uri.fsPath;
      const paths: CleanNode[] = (node.finding.paths ?? []).map((p) => ({ kind: 'path', path: p, file: path.resolve(root, p), parentId: findingId(node.finding), folderUri }));
      return node.finding.fix ? [...paths, { kind: 'fix', text: node.finding.fix, parentId: findingId(node.finding) }] : paths;
    }
    return [];
  }

  getTreeItem(node: CleanNode): vscode.TreeItem {
    if (node.kind === 'secrets') return secretsItem(node.secrets);
    if (node.kind === 'secret') return secretItem(node.secret, node.file);
    if (node.kind === 'check') {
      const { check } = node;
      const item = new vscode.TreeItem(
        check.title,
        check.findings.length || (check.passed && check.note) ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      // The verdict is part of the id: a check that starts failing is drawn anew, expanded.
      const verdict = check.unknown ? 'unknown' : check.passed ? 'passing' : 'failing';
      item.id = `check:${check.check}:${check.unknown ? 'unknown' : check.passed ? 'pass' : 'fail'}`;
      // Short, so the row is never cut off: the findings below say what is wrong, the tooltip why.
      const n = check.findings.length;
      item.description = check.unknown ? 'unknown' : check.passed ? 'passing' : `${n} finding${n === 1 ? '' : 's'}`;
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
      const hasChildren = (finding.paths?.length ?? 0) > 0 || !!finding.fix;
      const { label, rest } = splitLabel(stripControlLine(finding.detail).replace(/\.$/, ''));
      const item = new vscode.TreeItem(label, hasChildren ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      item.description = rest;
      item.id = findingId(finding);
      const doubtful = finding.severity === 'warn';
      item.iconPath = new vscode.ThemeIcon('circle-small-filled', new vscode.ThemeColor(doubtful ? 'problemsWarningIcon.foreground' : 'problemsErrorIcon.foreground'));
      item.contextValue = finding.fix ? 'finding fixable' : 'finding';
      const silence = finding.silence ? `\n\n**If it is wrong:** ${escapeMarkdown(finding.silence)}` : '';
      item.tooltip = safeTooltip(`${escapeMarkdown(finding.detail)}${finding.fix ? `\n\n**Fix:** ${escapeMarkdown(finding.fix)}` : ''}${silence}`);
      item.accessibilityInformation = { label: stripControlLine(`${finding.detail}${finding.fix ? ` Fix: ${finding.fix}` : ''}`) };
      return item;
    }
    if (node.kind === 'fix' || node.kind === 'note') {
      const fix = node.kind === 'fix';
      const item = new vscode.TreeItem(stripControlLine(fix ? `Fix: ${node.text}` : node.text), vscode.TreeItemCollapsibleState.None);
      item.id = `${node.parentId}:${node.kind}`;
      item.iconPath = new vscode.ThemeIcon(fix ? 'wrench' : 'info');
      item.tooltip = safeTooltip(fix ? `**Fix:** ${escapeMarkdown(node.text)}` : escapeMarkdown(node.text));
      item.contextValue = fix ? 'fixAdvice' : 'checkNote';
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

function secretsItem(secrets: readonly SecretFinding[]): vscode.TreeItem {
  const n = secrets.length;
  const item = new vscode.TreeItem('Credentials in workbench files', vscode.TreeItemCollapsibleState.Expanded);
  item.id = 'check:secrets:fail';
  item.description = `${n} masked credential${n === 1 ? '' : 's'}: rotate, then remove`;
  item.iconPath = new vscode.ThemeIcon('key', new vscode.ThemeColor('testing.iconFailed'));
  item.contextValue = 'check failed secrets';
  item.tooltip = new vscode.MarkdownString().appendText(`${n} credential${n === 1 ? '' : 's'} found in the workbench's input files. The packet masks them, but they stay in the files (and in git history if committed).`);
  item.accessibilityInformation = { label: `Credentials in workbench files, failing: ${n} found` };
  return item;
}

function secretItem(secret: SecretFinding, file: string): vscode.TreeItem {
  const [risk] = secretRisks([secret]);
  const where = secret.line ? `${secret.file} line ${secret.line}` : secret.file;
  const label = `${secret.label.charAt(0).toUpperCase()}${secret.label.slice(1)} in ${where}`;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `secret:${where}:${secret.rule}`;
  item.iconPath = new vscode.ThemeIcon('circle-small-filled', new vscode.ThemeColor('problemsErrorIcon.foreground'));
  item.contextValue = 'finding secret openable';
  item.tooltip = new vscode.MarkdownString().appendText(risk?.detail ?? label);
  item.command = { command: 'sessionHandoff.openLocation', title: 'Open', arguments: [{ file, line: secret.line ?? undefined }] };
  return item;
}

function findingId(f: CleanFinding): string {
  return `finding:${f.check}:${f.detail}`;
}
