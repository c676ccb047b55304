import * as vscode from 'vscode';
import { auditWithFiles } from '../../core/workflow/audit';
import { Disposable } from '../disposable';
import type { HostMessage, WebviewMessage } from '../protocol';
import { parseWebviewMessage } from '../protocol';
import type { Services } from '../services';
import type { WorkbenchUiState } from '../state/types';
import { createNonce, panelHtml } from './html';
import { emptyFor, selectEntry, toPanelModel } from './model';
import { openPacketFile, openPacketSource } from './openFile';
import { redactedMessage } from '../redactUi';
import { logFailure } from '../commands/boundary';

/** What the panel shows: a folder and either a pinned packet or (undefined) the folder's active one. */
export interface PanelTarget {
  folder: vscode.WorkspaceFolder;
  packetId?: string;
}

/** A command-argument shape the packet commands accept (same as the Handoffs view's nodes). */
export interface PacketRef {
  packetId?: string;
  folderUri?: vscode.Uri;
}

/**
 * One open handoff panel: owns the webview, renders the target packet from the UI state, and turns
 * the page's validated intents into commands. Nothing is posted before the page says `ready`.
 */
/** What each webview request does, as a person would say it in "Could not …". */
const ACTION_LABEL: Record<WebviewMessage['type'], string> = {
  ready: 'show the handoff',
  copyPrompt: 'copy the restart prompt',
  copyAsNewTask: 'copy the restart prompt as a new task',
  copyJson: 'copy the handoff JSON',
  copyPrSummary: 'copy the pull request summary',
  trustPacket: 'trust this packet',
  openMarkdown: 'open handoff.md',
  regenerate: 'regenerate the handoff',
  generate: 'generate a handoff',
  openFile: 'open that file',
  openSource: 'open that source',
};

export class HandoffPanel extends Disposable {
  private ready = false;
  private renderSeq = 0;
  private readonly posted = new vscode.EventEmitter<HostMessage>();
  /** Fires after each message posted to the page (tests wait on it). */
  readonly onDidPost = this.posted.event;
  private readonly disposedEmitter = new vscode.EventEmitter<void>();
  readonly onDidDispose = this.disposedEmitter.event;
  private last: HostMessage | null = null;
  /** The last drawing posted (render/empty), to skip redraws that would change nothing. */
  private lastDrawn = '';

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly services: Services,
    private target: PanelTarget,
  ) {
    super();
    this._register(this.posted);
    this._register(this.disposedEmitter);
    // The document is static and set once; a hidden panel re-runs the script, which re-sends `ready`.
    panel.webview.html = panelHtml(panel.webview, services.extensionUri, createNonce());
    this._register(panel.webview.onDidReceiveMessage((data: unknown) => void this.receive(data)));
    this._register(
      services.state.onDidChange((state) => {
        if (state.folder.uri.toString() === this.target.folder.uri.toString()) void this.render();
      }),
    );
    this._register(
      panel.onDidDispose(() => {
        this.disposedEmitter.fire();
        this.dispose();
      }),
    );
    this.updateTitle(undefined);
  }

  /** The last message posted to the page, or null before the first render. */
  get lastMessage(): HostMessage | null {
    return this.last;
  }

  get currentTarget(): PanelTarget {
    return this.target;
  }

  /** Points the panel at another folder/packet and redraws. */
  retarget(target: PanelTarget): void {
    this.target = target;
    void this.render(true);
  }

  /**
   * Redraws from the current state; later calls win over slower earlier ones. A drawing identical to
   * the last one is not posted again (the meter updates the state on every transcript append; a
   * redraw would rebuild the page and take the keyboard focus away) unless `force`d, as after the
   * page was re-created.
   */
  async render(force = false): Promise<void> {
    if (!this.ready || this.isDisposed) return;
    const seq = ++this.renderSeq;
    const state = this.services.state.get(this.target.folder);
    const msg = await this.messageFor(state);
    if (seq !== this.renderSeq || this.isDisposed) return;
    const drawing = JSON.stringify(msg);
    if (!force && drawing === this.lastDrawn) return;
    this.lastDrawn = drawing;
    this.updateTitle(msg.type === 'render' ? msg.model.packet.topic : undefined);
    await this.post(msg);
  }

  private async messageFor(state: WorkbenchUiState | undefined): Promise<HostMessage> {
    const entry = selectEntry(state, this.target.packetId);
    if (!state || !entry) return { type: 'empty', empty: emptyFor(state, this.target.packetId) };
    const acks = await this.services.acks.read(entry.dir, entry.packet.open_risks);
    const root = state.git?.ok ? state.git.facts.root : state.folder.uri.fsPath;
    const audit = await auditWithFiles(entry.packet, root, entry.freshness ? { stale: entry.freshness.stale, reasons: entry.freshness.reasons } : null);
    return { type: 'render', model: toPanelModel(state, entry, acks, this.target.packetId !== undefined, audit) };
  }

  private updateTitle(topic: string | undefined): void {
    this.panel.title = topic ? `Handoff: ${topic}` : 'Session Handoff';
  }

  private async post(msg: HostMessage): Promise<void> {
    // Redacted on the way out, whatever built the message.
    msg = redactedMessage(msg);
    this.last = msg;
    await this.panel.webview.postMessage(msg);
    this.posted.fire(msg);
  }

  /** The packet the buttons act on, as the packet commands take it. */
  private ref(): PacketRef {
    const entry = selectEntry(this.services.state.get(this.target.folder), this.target.packetId);
    return { packetId: entry?.id, folderUri: this.target.folder.uri };
  }

  /** Handles one message from the page: validated first, malformed ones are logged and dropped. */
  async receive(data: unknown): Promise<void> {
    const msg = parseWebviewMessage(data);
    if (!msg) {
      this.services.log.warn('panel', `dropped a malformed message from the webview: ${JSON.stringify(data)?.slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(msg);
    } catch (err) {
      logFailure(this.services.log, 'panel', `handling "${msg.type}"`, err);
      const detail = err instanceof Error ? ` ${err.message.split('\n')[0]}` : '';
      await this.post({ type: 'failed', message: `Could not ${ACTION_LABEL[msg.type]}.${detail}` });
    }
  }

  private async handle(msg: WebviewMessage): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        await this.render(true);
        return;
      case 'copyPrompt':
        if (await vscode.commands.executeCommand<boolean>('sessionHandoff.copyRestartPrompt', this.ref())) {
          await this.post({ type: 'copied', what: 'prompt' });
        }
        return;
      case 'copyAsNewTask':
        if (await vscode.commands.executeCommand<boolean>('sessionHandoff.copyAsNewTask', this.ref())) {
          await this.post({ type: 'copied', what: 'task' });
        }
        return;
      case 'copyJson':
        if (await vscode.commands.executeCommand<boolean>('sessionHandoff.copyJson', this.ref())) {
          await this.post({ type: 'copied', what: 'json' });
        }
        return;
      case 'copyPrSummary':
        if (await vscode.commands.executeCommand<boolean>('sessionHandoff.copyPrSummary', this.ref())) {
          await this.post({ type: 'copied', what: 'pr' });
        }
        return;
      case 'trustPacket':
        await vscode.commands.executeCommand('sessionHandoff.trustPacket', this.ref());
        return;
      case 'openMarkdown':
        await vscode.commands.executeCommand('sessionHandoff.openMarkdown', this.ref());
        return;
      case 'regenerate':
        await vscode.commands.executeCommand('sessionHandoff.regenerate', { folderUri: this.target.folder.uri });
        return;
      case 'generate':
        await vscode.commands.executeCommand('sessionHandoff.generateHandoff', { folderUri: this.target.folder.uri });
        return;
      case 'openFile': {
        const problem = await openPacketFile(this.services.state.get(this.target.folder), this.target.folder, msg.path);
        if (problem) await this.post({ type: 'failed', message: problem });
        return;
      }
      case 'openSource': {
        const state = this.services.state.get(this.target.folder);
        const entry = selectEntry(state, this.target.packetId);
        const settings = this.services.config.get(this.target.folder.uri);
        const problem = entry
          ? await openPacketSource(entry.packet, state, this.target.folder, msg.file, msg.line, [settings.context.claudeConfigDir, settings.context.codexHome])
          : 'There is no packet to open a source of.';
        if (problem) await this.post({ type: 'failed', message: problem });
        return;
      }
    }
  }
}
