import * as vscode from 'vscode';
import type { CleanFinding } from '../../core/clean/types';
import { findingsDetail } from './findingsDetail';
import { uiText } from '../redactUi';

export type DirtyChoice = 'generateAnyway' | 'showCleanState' | undefined;

/** Asks what to do about a dirty workbench; injectable so tests can pick a button at the edge. */
export type ConfirmDirty = (folderName: string, findings: readonly CleanFinding[]) => Promise<DirtyChoice>;

export const GENERATE_ANYWAY = 'Generate Anyway';
export const SHOW_CLEAN_STATE = 'Show Clean State';

/** The real modal: the findings, with Generate Anyway and Show Clean State (Cancel is implicit). */
export const confirmDirtyModal: ConfirmDirty = async (folderName, findings) => {
  const n = findings.length;
  const picked = await vscode.window.showWarningMessage(
    `The workbench in ${folderName} is not clean (${n} finding${n === 1 ? '' : 's'}).`,
    { modal: true, detail: uiText(findingsDetail(findings)) },
    GENERATE_ANYWAY,
    SHOW_CLEAN_STATE,
  );
  if (picked === GENERATE_ANYWAY) return 'generateAnyway';
  if (picked === SHOW_CLEAN_STATE) return 'showCleanState';
  return undefined;
};
