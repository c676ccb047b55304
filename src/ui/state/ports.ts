import type * as vscode from 'vscode';
import type { BudgetLevel, ContextResult } from '../../core/context/types';
import type { SessionFacts } from '../../core/session/model';
import type { UiSettings } from '../config';
import type { ContextCandidate, WorkbenchUiState } from './types';

/** What one read of the folder's agent logs gives: the context reading and the session's facts. */
export interface ContextRead {
  result: ContextResult;
  candidates: ContextCandidate[];
  /** The agent session working in the folder (Claude Code / Codex), or null when there is none. */
  session: SessionFacts | null;
  /** True while a slow first read of the session is still running (`session` is then the previous facts). */
  sessionPending?: boolean;
}

/** A long-lived context reader for one folder (incremental: reads only what the agent appended). */
export interface ContextPort {
  read(): Promise<ContextRead>;
  /** Where the reader looks for sessions, for the log when none is found. */
  places(): string[];
  /** The agents' task storage folders outside the workspace (Cline, Roo Code, Kilo Code) to watch, read-only. */
  taskDirs?(): Promise<string[]>;
  dispose(): void;
}

/** What a full refresh needs besides the folder. */
export interface LoadInput {
  folder: vscode.WorkspaceFolder;
  settings: UiSettings;
  trusted: boolean;
  context: ContextRead;
}

/** The parts of a refresh that come from the core; injected so the pipeline can be tested apart. */
export interface StatePorts {
  /** Builds the folder's state: artifacts, git, clean check, packets, risks. Never throws. */
  load(input: LoadInput): Promise<WorkbenchUiState>;
  /** A context reader for a folder with the given settings; `onSessionRead` fires when a slow session read completes. */
  createContext(folder: vscode.WorkspaceFolder, settings: UiSettings, onSessionRead?: () => void): ContextPort;
  /** The budget level of a reading, or null when unknown. */
  budget(result: ContextResult, settings: UiSettings): BudgetLevel | null;
}
