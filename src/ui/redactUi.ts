import * as vscode from 'vscode';
import { redact, redactDeep, type Redacted } from '../core/redact';

/** A Markdown tooltip with its source redacted as a whole; its trust and HTML flags are kept. */
export function redactedMarkdown(md: vscode.MarkdownString): vscode.MarkdownString {
  const out = new vscode.MarkdownString(redact(md.value), md.supportThemeIcons);
  out.isTrusted = md.isTrusted;
  out.supportHtml = md.supportHtml;
  return out;
}

function redactTooltip(t: string | vscode.MarkdownString | undefined): string | vscode.MarkdownString | undefined {
  if (t === undefined) return t;
  return typeof t === 'string' ? redact(t) : redactedMarkdown(t);
}

/** Every text of a tree item — label, description, tooltip, accessibility label — redacted. */
export function redactTreeItem(item: vscode.TreeItem): vscode.TreeItem {
  if (typeof item.label === 'string') item.label = redact(item.label);
  else if (item.label) {
    const label = redact(item.label.label);
    // Highlights are offsets into the old text: keep them only when the text did not change.
    item.label = label === item.label.label ? item.label : { label };
  }
  if (typeof item.description === 'string') item.description = redact(item.description);
  item.tooltip = redactTooltip(item.tooltip);
  if (item.accessibilityInformation) item.accessibilityInformation = { ...item.accessibilityInformation, label: redact(item.accessibilityInformation.label) };
  return item;
}

/**
 * The provider the tree view sees: every item it draws (and every item it resolves) goes through
 * {@link redactTreeItem}. The one choke point of the sidebar: a view added later cannot skip it.
 */
export function redactingProvider<T>(provider: vscode.TreeDataProvider<T>): vscode.TreeDataProvider<T> {
  return {
    onDidChangeTreeData: provider.onDidChangeTreeData,
    getChildren: (e) => provider.getChildren(e),
    getParent: provider.getParent ? (e) => provider.getParent!(e) : undefined,
    getTreeItem: async (e) => redactTreeItem(await provider.getTreeItem(e)),
    resolveTreeItem: provider.resolveTreeItem
      ? async (item, e, token) => {
          const resolved = await provider.resolveTreeItem!(item, e, token);
          return resolved ? redactTreeItem(resolved) : resolved;
        }
      : undefined,
  };
}

/** A webview message with every string in it redacted: the only form the panel posts. */
export function redactedMessage<T>(msg: T): T {
  return redactDeep(msg);
}

/** Text for a notification, the clipboard or the log. */
export function uiText(text: string): Redacted {
  return redact(text);
}
