import * as path from 'node:path';
import type { ZodType, ZodTypeDef } from 'zod';
import type { Diagnostic } from '../diagnostics';
import { hashFeedback, readFeedback } from './feedback';
import type { ReadResult } from './readJson';
import { readJsonArtifact } from './readJson';
import { redactSnapshot } from './redactSnapshot';
import { AgentStateSchema, FeatureListSchema, ReviewReportSchema, VerificationReportSchema } from './schemas';
import type { ArtifactSource, WorkbenchSnapshot } from './snapshot';

export interface LoadOptions {
  feedbackK: number;
  maxCommands: number;
  /** Extra commands whose newest run should be tracked in `feedback.lastRunOf`. */
  watchCommands?: string[];
  /**
   * The folder artifacts must really lie in (default: the workbench dir itself). An artifact that is a
   * symlink leading out of it is refused, unread.
   */
  root?: string;
  /**
   * `hash`: the feedback log is hashed, not parsed (no records, `feedback` null) — for freshness, which
   * compares only hashes. Default `records`.
   */
  feedback?: 'records' | 'hash';
  /** The feedback log's lines before its window are scanned for credentials too (`handoff secrets`). */
  feedbackScanWhole?: boolean;
}

/** Task ids become file names; anything that could walk out of the folder is not used. */
function safeId(id: string | null | undefined): string | null {
  return id && /^[\w.-]+$/.test(id) && id !== '.' && id !== '..' ? id : null;
}

/**
 * Reads every artifact of a workbench dir (DESIGN §2). Each artifact is optional and independent: a
 * bad one becomes a located diagnostic and the others still load. Never throws for bad input.
 * Every string of the result is redacted; `secrets` says where credentials were masked.
 */
export async function loadWorkbench(dir: string, opts: LoadOptions): Promise<WorkbenchSnapshot> {
  const root = path.resolve(dir);
  const containIn = path.resolve(opts.root ?? root);
  const diagnostics: Diagnostic[] = [];
  const sources: ArtifactSource[] = [];
  const rawText: Record<string, string> = {};
  const settle = <T>(r: ReadResult<T>): T | null => {
    if (r.kind === 'missing') return null;
    if (r.source) sources.push(r.source);
    if (r.kind === 'bad') {
      diagnostics.push(r.diagnostic);
      return null;
    }
    return r.value;
  };
  /** The first candidate that exists wins, even when it is bad: a broken file is reported, not skipped. */
  const first = async <T>(candidates: string[], schema: ZodType<T, ZodTypeDef, unknown>): Promise<{ value: T; file: string } | null> => {
    for (const file of candidates) {
      const r = await readJsonArtifact(path.join(root, file), file, schema, { root: containIn });
      if (r.kind === 'missing') continue;
      if (r.kind === 'ok' && r.text !== undefined) rawText[file] = r.text;
      const value = settle(r);
      return value ? { value, file } : null;
    }
    return null;
  };
  const withFile = <T extends object>(r: { value: T; file: string } | null): (T & { file: string }) | null => (r ? { ...r.value, file: r.file } : null);

  const agentState = (await first(['agent_state.json'], AgentStateSchema))?.value ?? null;
  const featureList = withFile(await first(['feature_list.json', 'task_board.json'], FeatureListSchema));
  const taskIds = [safeId(agentState?.active_task_id?.trim()), safeId(featureList?.active?.trim())].filter((x): x is string => !!x);
  const alt = (folder: string): string[] => [...new Set(taskIds)].map((id) => `outputs/${folder}/${id}.json`);
  const verification = withFile(await first(['verification_report.json', ...alt('verification')], VerificationReportSchema));
  const review = withFile(await first(['review_report.json', ...alt('review')], ReviewReportSchema));

  const watchCommands = (featureList?.features ?? []).map((f) => f.done_when).filter((c): c is string => !!c);
  if (opts.watchCommands) watchCommands.push(...opts.watchCommands);
  const fbFile = path.join(root, 'feedback_record.jsonl');
  const fb =
    opts.feedback === 'hash'
      ? await hashFeedback(fbFile, 'feedback_record.jsonl', { root: containIn }).then((h) => (h ? { ...h, feedback: null } : null))
      : await readFeedback(fbFile, 'feedback_record.jsonl', { feedbackK: opts.feedbackK, maxCommands: opts.maxCommands, watchCommands, root: containIn, ...(opts.feedbackScanWhole ? { scanWhole: true } : {}) });
  if (fb) {
    if (fb.source) sources.push(fb.source);
    diagnostics.push(...fb.diagnostics);
  }

  // Redaction happens here, once: everything past the loader sees masked text only.
  return redactSnapshot({
    dir: root,
    agentState,
    verification,
    review,
    featureList,
    feedback: fb?.feedback ?? null,
    sources: sources.sort((a, b) => a.file.localeCompare(b.file)),
    diagnostics,
  }, rawText, (fb && 'secrets' in fb && fb.secrets) || []);
}
