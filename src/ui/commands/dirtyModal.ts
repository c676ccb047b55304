import * as vscode from 'vscode';
import type { CleanFinding } from '../../core/clean/types';

export type DirtyChoice = 'generateAnyway' | 'showCleanState' | undefined;

/** Asks what to do about a dirty workbench; injectable so tests can pick a button at the edge. */
export type ConfirmDirty = (folderName: string, findings: readonly CleanFinding[]) => Promise<DirtyChoice>;

export const GENERATE_ANYWAY = 'Generate Anyway';
export const SHOW_CLEAN_STATE = 'Show Clean State';

/** The modal's detail text: one line per finding with its first paths, capped so the dialog stays readable. */
export function findingsDetail(findings: readonly CleanFinding[], max = 8): string {
  const lines = findings.slice(0, max).map((f) => {
    const paths = f.paths?.length ? ` (${f.paths.slice(0, 3).join(', ')}${f.paths.length > 3 ? ', …' : ''})` : '';
    return `• ${f.check}: ${f.detail}${paths}`;
  });
  if (findings.length > max) lines.push(`… and ${findings.length - max} more`);
  lines.push('', 'Generate Anyway records every finding as a block risk in the packet.');
  return lines.join('\n');
}

/** The real modal: the findings, with Generate Anyway and Show Clean State (Cancel is implicit). */
export const confirmDirtyModal: ConfirmDirty = async (folderName, findings) => {
  const n = findings.length;
  const picked = await vscode.window.showWarningMessage(
    `The workbench in ${folderName} is not clean (${n} finding${n === 1 ? '' : 's'}).`,
    { modal: true, detail: findingsDetail(findings) },
    GENERATE_ANYWAY,
    SHOW_CLEAN_STATE,
  );
  if (picked === GENERATE_ANYWAY) return 'generateAnyway';
  if (picked === SHOW_CLEAN_STATE) return 'showCleanState';
  return undefined;
};
