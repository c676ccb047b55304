/** Where a reading comes from: an agent's own files (Claude Code, Codex CLI, Cline, Roo Code, Zoo Code, Kilo Code) or the workbench's `context_usage.json`. */
export type ContextSource = 'claude' | 'codex' | 'generic' | 'cline' | 'roo' | 'zoo' | 'kilo' | 'opencode' | 'copilot-chat' | 'gemini' | 'qwen' | 'copilot-cli';

/** A context-usage reading: the latest main-thread request's prompt size against the window. */
export interface ContextReading {
  known: true;
  source: ContextSource;
  sessionId: string;
  model?: string;
  /** For a generic reading: the agent that wrote it (the file's `source` field). */
  agent?: string;
  usedTokens: number;
  windowTokens: number;
  /** 0–100, as the agent itself shows it (Codex: its 12 000-token baseline applied). */
  percent: number;
  /** 0–100: where the agent auto-compacts. */
  compactAtPercent: number;
  /** ISO time of the line the reading comes from. */
  at: string;
  /** The file the reading came from, where there is one. */
  file?: string;
  /** Problems met on the way that did not stop the reading (e.g. a line too long, skipped), located. */
  warnings?: string[];
  /** The session's last auto-compaction, where the agent's log records one. */
  compaction?: Compaction;
}

/** An auto-compaction the agent recorded: when, and how full the context was just before it. */
export interface Compaction {
  at: string;
  /** 0–100 of the window just before compacting; undefined when the log does not say. */
  percent?: number;
}

/** No usable reading — shown as unknown, never as 0 %. */
export interface UnknownReading {
  known: false;
  source?: ContextSource;
  sessionId?: string;
  reason: string;
  file?: string;
  /** The model and prompt size when only the window is unknown (a model the table does not know). */
  model?: string;
  usedTokens?: number;
  /** ISO time of the line the prompt size comes from, with `usedTokens`. */
  at?: string;
  /** As for a reading: located problems met on the way. */
  warnings?: string[];
  compaction?: Compaction;
}

export type ContextResult = ContextReading | UnknownReading;

export type BudgetLevel = 'ok' | 'wrap-up' | 'urgent';
