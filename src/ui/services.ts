import type * as vscode from 'vscode';
import type { Ack } from '../core/acks';
import type { Risk } from '../core/packet/schema';
import type { ConfigService } from './config';
import type { Log } from './log';
import type { UiRisk, WorkbenchUiState } from './state/types';

/** The refresh pipeline's public face: the current state per folder, a change event, a refresh. */
export interface StateService {
  /** The state of a folder (default: the active folder), or undefined before its first refresh. */
  get(folder?: vscode.WorkspaceFolder): WorkbenchUiState | undefined;
  /** Every folder's current state. */
  all(): readonly WorkbenchUiState[];
  /** Fires with the new state after each refresh of a folder. */
  readonly onDidChange: vscode.Event<WorkbenchUiState>;
  /** Fires when the active folder changes (the status bar follows the active editor). */
  readonly onDidChangeActiveFolder: vscode.Event<vscode.WorkspaceFolder | undefined>;
  /** Refreshes a folder (default: every folder) now; resolves when the new state is published. */
  refresh(folder?: vscode.WorkspaceFolder, reason?: string): Promise<void>;
}

/** Acknowledgements of risks, stored next to the packet (src/core/acks.ts). */
export interface AckService {
  /** Acknowledges a risk of the folder's state as the current user; refreshes the state. */
  acknowledge(state: WorkbenchUiState, risk: UiRisk, note?: string): Promise<Ack>;
  /**
   * The acknowledgements that apply to a packet's risks: its own, and those of the same unchanged
   * risk made anywhere in the output dir (empty when none or unreadable).
   */
  read(packetDir: string, risks: readonly Risk[]): Promise<Ack[]>;
}

/** The one services object every UI part receives from the composition root. */
export interface Services {
  readonly extensionUri: vscode.Uri;
  readonly log: Log;
  readonly config: ConfigService;
  readonly state: StateService;
  readonly acks: AckService;
  /** The workspace folder of a uri, else of the active editor, else the first folder. */
  folderFor(uri?: vscode.Uri): vscode.WorkspaceFolder | undefined;
}
