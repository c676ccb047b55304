import * as path from 'node:path';
import type * as vscode from 'vscode';
import { budgetLevel } from '../../core/context/budget';
import { asShown } from '../../core/context/format';
import { ContextMeter } from '../../core/context/meter';
import type { BudgetLevel, ContextResult } from '../../core/context/types';
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
  return {
    async read() {
      const r = await meter.read();
      return {
        result: r.current,
        candidates: r.candidates.map((c) => ({ source: c.source, file: c.file, sessionId: c.sessionId, updatedAt: c.mtimeMs })),
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
