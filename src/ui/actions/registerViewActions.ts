import * as vscode from 'vscode';
import { commandBoundary } from '../commands/boundary';
import type { Services } from '../services';
import type { WrapUpPrompter } from '../wrapUp';
import { acknowledgeRisk } from './acknowledgeRisk';
import { applyFix } from './applyFix';
import { checkCleanState } from './checkCleanState';
import { openLocation } from './openLocation';

/**
 * Registers the commands behind the sidebar views, the status bar and the wrap-up prompt; every
 * handler runs inside the command boundary (logged, one short message with an action).
 */
export function registerViewActions(services: Services, wrapUp: WrapUpPrompter): vscode.Disposable[] {
  const reg = <A extends unknown[]>(id: string, fn: (...args: A) => Promise<unknown> | unknown) =>
    vscode.commands.registerCommand(id, commandBoundary(services.log, id, async (...args: A) => fn(...args)));
  return [
    reg('sessionHandoff.checkCleanState', (arg?: { folderUri?: vscode.Uri }) => checkCleanState(services, arg)),
    reg('sessionHandoff.acknowledgeRisk', (arg?: Parameters<typeof acknowledgeRisk>[1]) => acknowledgeRisk(services, arg)),
    reg('sessionHandoff.refresh', () => services.state.refresh(undefined, 'Refresh command')),
    reg('sessionHandoff.showLog', () => services.log.show()),
    reg('sessionHandoff.openLocation', (arg?: Parameters<typeof openLocation>[1]) => openLocation(services, arg)),
    reg('sessionHandoff.snoozeWrapUp', () => wrapUp.snooze()),
    reg('sessionHandoff.applyFix', (arg?: Parameters<typeof applyFix>[1]) => applyFix(services, arg)),
  ];
}
