import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export const PANEL_VIEW_TYPE = 'sessionHandoff.panel';

/** A fresh script nonce per document: cryptographically random, never `Math.random`. */
export function createNonce(): string {
  return randomBytes(18).toString('base64');
}

/** Webview options: scripts on, and local resources limited to the bundle and media folders. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media'), vscode.Uri.joinPath(extensionUri, 'dist')],
    // The page keeps its own state in setState and re-renders on demand; no need to keep it alive hidden.
    retainContextWhenHidden: false,
  };
}

/** The CSP the panel runs under: nothing but our nonce'd script, our styles and the codicon font (no images at all). */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
  ].join('; ');
}

/**
 * The panel document. It is static: all packet content arrives later as validated messages and is
 * drawn with DOM APIs, so no packet text is ever part of this HTML.
 */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string): string {
  const uri = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(webview.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${uri('dist', 'codicons', 'codicon.css')}">
<link rel="stylesheet" href="${uri('media', 'panel.css')}">
<title>Session Handoff</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${uri('dist', 'panel.js')}"></script>
</body>
</html>`;
}
