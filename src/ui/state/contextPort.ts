import * as path from 'node:path';
import type * as vscode from 'vscode';
import { budgetLevel } from '../../core/context/budget';
import { asShown } from '../../core/context/format';
import { ContextMeter } from '../../core/context/meter';
import type { BudgetLevel, ContextResult } from '../../core/context/types';
import { SessionTracker } from '../../core/session/tracker';
import type { UiSettings } from '../config';
import type { ContextPort } from './ports';

/** The folder's context meter (core), configured from the settings; empty roots mean the defaults. */
export function createContextPort(folder: vscode.WorkspaceFolder, settings: UiSettings): ContextPort {
  const meter = new ContextMeter({
    folder: folder.uri.fsPath,
    workbenchDir: path.resolve(folder.uri.fsPath, settings.options.workbenchDir),
    claudeConfigDir: settings.context.claudeConfigDir || undefined,
    codexHome: settings.context.codexHome || undefined,
    sources: settings.context.sources,
    windowOverride: settings.context.windowOverride || undefined,
  });
  // The same session's facts (commands, edits, task list): read incrementally, like the meter.
  const agents = settings.context.sources.filter((s): s is 'claude' | 'codex' => s === 'claude' || s === 'codex');
  const tracker = new SessionTracker({
    folder: folder.uri.fsPath,
    claudeConfigDir: settings.context.claudeConfigDir || undefined,
    codexHome: settings.context.codexHome || undefined,
    agents,
  });
  return {
    async read() {
      const [r, session] = await Promise.all([meter.read(), agents.length ? tracker.read() : Promise.resolve(null)]);
      return {
        result: r.current,
        candidates: r.candidates.map((c) => ({ source: c.source, file: c.file, sessionId: c.sessionId, updatedAt: c.mtimeMs })),
        session,
      };
    },
    dispose() {
      // The meter holds only offsets and parsed state; nothing to close.
    },
  };
}


/** The wrap-up level of a reading under the user's thresholds, or null when unknown. */
export function budgetFor(result: ContextResult, settings: UiSettings): BudgetLevel | null {
  return budgetLevel(asShown(result), { warnAt: settings.wrapUp.warnAt, urgeAt: settings.wrapUp.urgeAt }) ?? null;
}
