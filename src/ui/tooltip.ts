import * as vscode from 'vscode';

/**
 * A Markdown tooltip whose variable parts were escaped with `escapeMarkdown`. Never trusted (no command
 * links) and never HTML, whatever the defaults of the VS Code version are.
 */
export function safeTooltip(markdown: string, themeIcons = false): vscode.MarkdownString {
  const md = new vscode.MarkdownString(markdown, themeIcons);
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}
