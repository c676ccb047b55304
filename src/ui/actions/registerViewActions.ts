import * as vscode from 'vscode';
import { commandBoundary } from '../commands/boundary';
import type { Services } from '../services';
import type { WrapUpPrompter } from '../wrapUp';
import { acknowledgeRisk } from './acknowledgeRisk';
import { applyFix, confirmDeleteModal, pickFixDialog } from './applyFix';
import type { ConfirmDelete, PickFix } from './applyFix';
import { checkCleanState } from './checkCleanState';
import { openLocation } from './openLocation';

/** What the view actions expose to the composition root (and, through it, to in-host tests). */
export interface ViewActions {
  /**
   * Replaces the Move to Trash / Delete Permanently confirmations of Apply Fix; returns a disposable that restores the
   * real modal. Only tests use this, to confirm or decline at the edge.
   */
  overrideConfirmDelete(fn: ConfirmDelete): vscode.Disposable;
  /** Replaces Apply Fix's offer dialogs (tests only: to read the exact offer and answer it). */
  overridePickFix(fn: PickFix): vscode.Disposable;
}

/**
 * Registers the commands behind the sidebar views, the status bar and the wrap-up prompt; every
 * handler runs inside the command boundary (logged, one short message with an action).
 */
export function registerViewActions(services: Services, wrapUp: WrapUpPrompter): ViewActions & { disposables: vscode.Disposable[] } {
  let confirmDelete: ConfirmDelete = confirmDeleteModal;
  let pickFix: PickFix = pickFixDialog;
  const reg = <A extends unknown[]>(id: string, fn: (...args: A) => Promise<unknown> | unknown) =>
    vscode.commands.registerCommand(id, commandBoundary(services.log, id, async (...args: A) => fn(...args)));
  const disposables = [
    reg('sessionHandoff.checkCleanState', (arg?: { folderUri?: vscode.Uri }) => checkCleanState(services, arg)),
    reg('sessionHandoff.acknowledgeRisk', (arg?: Parameters<typeof acknowledgeRisk>[1]) => acknowledgeRisk(services, arg)),
    reg('sessionHandoff.refresh', () => services.state.refresh(undefined, 'Refresh command')),
    reg('sessionHandoff.showLog', () => services.log.show()),
    reg('sessionHandoff.openLocation', (arg?: Parameters<typeof openLocation>[1]) => openLocation(services, arg)),
    reg('sessionHandoff.snoozeWrapUp', () => wrapUp.snooze()),
    reg('sessionHandoff.applyFix', (arg?: Parameters<typeof applyFix>[1]) => applyFix(services, arg, confirmDelete, pickFix)),
  ];
  return {
    disposables,
    overrideConfirmDelete(fn) {
      confirmDelete = fn;
      return { dispose: () => void (confirmDelete = confirmDeleteModal) };
    },
    overridePickFix(fn) {
      pickFix = fn;
      return { dispose: () => void (pickFix = pickFixDialog) };
    },
  };
}
