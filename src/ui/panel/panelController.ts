import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { HostMessage } from '../protocol';
import { parsePanelState } from '../protocol';
import type { Services } from '../services';
import { HandoffPanel } from './handoffPanel';
import type { PanelTarget } from './handoffPanel';
import { PANEL_VIEW_TYPE, webviewOptions } from './html';

/**
 * Owns the single handoff panel: opens it or reveals the open one, and restores it after a window
 * reload through a WebviewPanelSerializer (the page's `setState` holds the folder and pinned packet).
 */
export class PanelController extends Disposable {
  private current: HandoffPanel | undefined;

  constructor(private readonly services: Services) {
    super();
    this._register(
      vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, raw) => {
          const saved = parsePanelState(raw);
          const uri = saved.folderUri ? vscode.Uri.parse(saved.folderUri) : undefined;
          const folder = (uri && vscode.workspace.getWorkspaceFolder(uri)) ?? services.folderFor();
          if (!folder) {
            panel.dispose();
            return;
          }
          panel.webview.options = webviewOptions(services.extensionUri);
          this.adopt(panel, { folder, packetId: saved.packetId });
          services.log.info('panel', `restored the handoff panel for ${folder.name}`);
        },
      }),
    );
    this._register({ dispose: () => this.current?.dispose() });
  }

  /** The open panel, if any. */
  get panel(): HandoffPanel | undefined {
    return this.current;
  }

  /**
   * Shows `target` in the panel (creating or revealing it) and resolves with the first message the
   * page receives for it — or null when the page did not answer within `timeoutMs`.
   */
  async show(target: PanelTarget, timeoutMs = 15_000): Promise<HostMessage | null> {
    let view = this.current;
    if (view) {
      view.panel.reveal(undefined, false);
    } else {
      const column = vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
      const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'Session Handoff', column, webviewOptions(this.services.extensionUri));
      view = this.adopt(panel, target);
    }
    const posted = nextPost(view, timeoutMs);
    view.retarget(target);
    return posted;
  }

  private adopt(panel: vscode.WebviewPanel, target: PanelTarget): HandoffPanel {
    // One panel: a restored one arriving after a new one was opened (or the reverse) closes the
    // other tab too, instead of leaving it on screen with buttons that no longer answer.
    this.current?.panel.dispose();
    this.current?.dispose();
    const view = new HandoffPanel(panel, this.services, target);
    this.current = view;
    view.onDidDispose(() => {
      if (this.current === view) this.current = undefined;
    });
    return view;
  }
}

/** The next render/empty message posted by `view`, or null after `timeoutMs`. */
function nextPost(view: HandoffPanel, timeoutMs: number): Promise<HostMessage | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sub.dispose();
      resolve(null);
    }, timeoutMs);
    const sub = view.onDidPost((msg) => {
      if (msg.type !== 'render' && msg.type !== 'empty') return;
      clearTimeout(timer);
      sub.dispose();
      resolve(msg);
    });
  });
}
