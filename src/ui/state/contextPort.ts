import * as path from 'node:path';
import type * as vscode from 'vscode';
import { budgetLevel } from '../../core/context/budget';
import { asShown } from '../../core/context/format';
import { ContextMeter } from '../../core/context/meter';
import type { VscodeAgentOptions } from '../../core/context/vscodeAgents';
import { isVscodeAgent } from '../../core/context/vscodeAgents';
import type { BudgetLevel, ContextResult } from '../../core/context/types';
import type { SessionFacts } from '../../core/session/model';
import { SessionTracker } from '../../core/session/tracker';
import type { UiSettings } from '../config';
import type { ContextPort } from './ports';

/** What the editor itself knows about where the agents inside it keep their tasks. */
export interface EditorStorage {
  /** The running editor's own `User/globalStorage` folder (the parent of this extension's storage). */
  globalStorageRoot?: string;
  /** Roo Code's own `roo-cline.customStoragePath`, when set. */
  rooCustomStoragePath?: string;
  /** Zoo Code's own `zoo-code.customStoragePath`, when set. */
  zooCustomStoragePath?: string;
}

/** Where the VS Code agents' tasks are looked for, from the settings and the editor. */
export function vscodeAgentOptions(settings: UiSettings, editor: EditorStorage = {}): VscodeAgentOptions {
  const rooDir = settings.context.rooStoragePath || editor.rooCustomStoragePath?.trim() || undefined;
  const zooDir = settings.context.zooStoragePath || editor.zooCustomStoragePath?.trim() || undefined;
  return {
    ...(rooDir ? { rooDir } : {}),
    ...(zooDir ? { zooDir } : {}),
    ...(settings.context.kiloDatabase ? { kiloDb: settings.context.kiloDatabase } : {}),
    ...(editor.globalStorageRoot ? { extraGlobalStorageRoots: [editor.globalStorageRoot] } : {}),
    ...(settings.context.rooModel ? { rooModel: settings.context.rooModel } : {}),
  };
}

/** How long a read waits for the session's facts before answering with the previous ones. */
const SESSION_WAIT_MS = 300;

/**
 * The folder's context meter (core), configured from the settings; empty roots mean the defaults.
 * It also keeps the folder's agent session read (commands, edits, task list), incrementally like the
 * meter. The first read of a transcript of hundreds of MB takes seconds: the meter never waits for it;
 * `onSessionRead` fires when a slow read completes, so the caller refreshes then.
 */
export function createContextPort(folder: vscode.WorkspaceFolder, settings: UiSettings, onSessionRead?: () => void, editor: EditorStorage = {}): ContextPort {
  const tasks = vscodeAgentOptions(settings, editor);
  const meter = new ContextMeter({
    ...tasks,
    folder: folder.uri.fsPath,
    workbenchDir: path.resolve(folder.uri.fsPath, settings.options.workbenchDir),
    outputDir: path.resolve(folder.uri.fsPath, settings.options.workbenchDir, settings.options.outputDir),
    claudeConfigDir: settings.context.claudeConfigDir || undefined,
    codexHome: settings.context.codexHome || undefined,
    sources: settings.context.sources,
    windowOverride: settings.context.windowOverride || undefined,
  });
  const agents = settings.context.sources.filter((s): s is Exclude<typeof s, 'generic'> => s !== 'generic');
  const tracker = new SessionTracker({
    ...tasks,
    folder: folder.uri.fsPath,
    claudeConfigDir: settings.context.claudeConfigDir || undefined,
    codexHome: settings.context.codexHome || undefined,
    agents,
  });
  let session: SessionFacts | null = null;
  let inflight: Promise<void> | null = null;
  let disposed = false;
  /** Starts a session read unless one runs; resolves when it is done. One read at a time. */
  const readSession = (): Promise<void> => {
    inflight ??= tracker
      .read()
      .then((facts) => {
        session = facts;
      })
      .catch(() => undefined)
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };
  return {
    async read() {
      let late = false;
      const sessionRead = agents.length
        ? Promise.race([readSession().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), SESSION_WAIT_MS))])
        : Promise.resolve(true);
      const [r, done] = await Promise.all([meter.read(), sessionRead]);
      if (!done && inflight) {
        late = true;
        void inflight.then(() => {
          if (!disposed) onSessionRead?.();
        });
      }
      return {
        result: r.current,
        candidates: r.candidates.map((c) => ({ source: c.source, file: c.file, sessionId: c.sessionId, updatedAt: c.mtimeMs })),
        session: agents.length ? session : null,
        ...(late ? { sessionPending: true } : {}),
      };
    },
    places: () => meter.places(),
    taskDirs: () => meter.taskDirs(settings.context.sources.filter(isVscodeAgent)),
    dispose() {
      // The meter and the tracker hold only offsets and parsed state; nothing to close.
      disposed = true;
    },
  };
}

/** The wrap-up level of a reading under the user's thresholds, or null when unknown. */
export function budgetFor(result: ContextResult, settings: UiSettings): BudgetLevel | null {
  return budgetLevel(asShown(result), { warnAt: settings.wrapUp.warnAt, urgeAt: settings.wrapUp.urgeAt }) ?? null;
}
