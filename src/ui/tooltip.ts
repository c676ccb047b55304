import * as vscode from 'vscode';

/**
 * A Markdown tooltip whose variable parts were escaped with `escapeMarkdown`. Never trusted (no command
 * links beyond the ones the caller names) and never HTML, whatever the defaults of the VS Code version are.
 */
export function safeTooltip(markdown: string, themeIcons = false, enabledCommands: string[] = []): vscode.MarkdownString {
  const md = new vscode.MarkdownString(markdown, themeIcons);
  // Only our own command links, when the caller names them; artifact text is escaped and has none.
  md.isTrusted = enabledCommands.length ? { enabledCommands } : false;
  md.supportHtml = false;
  return md;
}
