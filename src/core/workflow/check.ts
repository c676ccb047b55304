import * as path from 'node:path';
import type { CleanReport } from '../clean/types';
import type { Diagnostic } from '../diagnostics';
import { atomicWrite } from '../fsx';
import { redactedJson } from '../redact';
import type { GitClient, GitError, GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { SessionFacts } from '../session/model';
import { inspectWorkbench, type Inspection } from './inspect';
import { assertOutputInside } from './paths';

/** The findings file in the output dir: `[]` means clean. */
export const CLEAN_STATE_FILE = 'clean_state.json';

export type CleanCheckRun =
  | { ok: true; report: CleanReport; facts: GitFacts; file: string; diagnostics: Diagnostic[]; inspection: Inspection }
  | { ok: false; error: GitError; diagnostics: Diagnostic[]; inspection: Inspection };

/**
 * Runs the five clean-state checks end to end and writes `clean_state.json` (the findings array)
 * atomically into the output dir. Without git (missing, not a repository, corrupt) nothing is
 * written and the typed error comes back. `git` is usually `createGitClient(workspaceDir)`.
 */
export async function runCleanCheck(workspaceDir: string, options: HandoffOptions, git: GitClient, session?: SessionFacts | null): Promise<CleanCheckRun> {
  const inspection = await inspectWorkbench(workspaceDir, options, git, { session });
  if (!inspection.git.ok) return { ok: false, error: inspection.git.error, diagnostics: inspection.diagnostics, inspection };
  if (!inspection.clean) throw new Error('clean report missing although git answered');
  const { diagnostics: _d, ...report } = inspection.clean;
  const file = path.join(inspection.outputDir, CLEAN_STATE_FILE);
  await assertOutputInside(workspaceDir, options);
  await writeCleanState(file, report);
  return { ok: true, report, facts: inspection.git.facts, file, diagnostics: inspection.diagnostics, inspection };
}

/** Writes the findings array (stable order, `[]` when clean), atomically. */
export async function writeCleanState(file: string, report: Pick<CleanReport, 'findings'>): Promise<void> {
  await atomicWrite(file, redactedJson(report.findings, 2, '\n'));
}
