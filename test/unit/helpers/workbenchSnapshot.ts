import type { FeedbackRecord } from '../../../src/core/artifacts/schemas';
import type { IndexedRecord, WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { AgentStateSchema, FeatureListSchema, VerificationReportSchema } from '../../../src/core/artifacts/schemas';
import { isTestCommand, normalizeCommand } from '../../../src/core/artifacts/commands';
import type { GitFacts } from '../../../src/core/gitPort';

/** A snapshot with nothing in it; tests add only what they are about. */
export function emptySnapshot(dir = '/tmp/workbench'): WorkbenchSnapshot {
  return { dir, agentState: null, verification: null, review: null, featureList: null, feedback: null, sources: [], diagnostics: [] };
}

/** Builds a snapshot from loose JSON-like artifacts, parsed by the real schemas. */
export function snapshotWith(parts: {
  agentState?: unknown;
  verification?: unknown;
  featureList?: unknown;
  /** Feedback records in file order; the newest test-runner one becomes lastTestRun. */
  feedback?: FeedbackRecord[];
  testRunIndex?: number;
}): WorkbenchSnapshot {
  const s = emptySnapshot();
  if (parts.agentState) s.agentState = AgentStateSchema.parse(parts.agentState);
  if (parts.verification) s.verification = { ...VerificationReportSchema.parse(parts.verification), file: 'verification_report.json' };
  if (parts.featureList) s.featureList = { ...FeatureListSchema.parse(parts.featureList), file: 'feature_list.json' };
  if (parts.feedback) {
    const indexed: IndexedRecord[] = parts.feedback.map((record, index) => ({ index, record }));
    const lastRunOf: Record<string, IndexedRecord> = {};
    for (const r of indexed) lastRunOf[normalizeCommand(r.record.command)] = r;
    const tests = indexed.filter((r) => isTestCommand(r.record.command));
    s.feedback = { kept: indexed, total: indexed.length, omitted: 0, lastTestRun: tests.at(-1) ?? null, lastRunOf };
  }
  return s;
}

/** Git facts of a clean repository on `branch`; override what the test is about. */
export function cleanFacts(over: Partial<GitFacts> = {}): GitFacts {
  return {
    root: '/tmp/repo', branch: 'main', head: 'a'.repeat(40), detached: false, upstream: null,
    status: [], operation: null, stashes: [], ...over,
  };
}
