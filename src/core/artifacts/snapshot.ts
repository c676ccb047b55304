import type { Diagnostic } from '../diagnostics';
import type { AgentState, FeatureList, FeedbackRecord, ReviewReport, VerificationReport } from './schemas';

/** One feedback record with its 0-based line number in `feedback_record.jsonl`. */
export interface IndexedRecord {
  index: number;
  record: FeedbackRecord;
}

/** Where an artifact was read from, relative to the workbench dir, with a content hash for freshness. */
export interface ArtifactSource {
  file: string;
  sha256: string;
}

/**
 * What the loader read from a workbench: every artifact optional, never a partial crash.
 * Only the records the packet can use are kept (bounded memory for huge feedback logs).
 */
export interface WorkbenchSnapshot {
  /** Absolute path of the workbench dir. */
  dir: string;
  agentState: AgentState | null;
  verification: (VerificationReport & { file: string }) | null;
  review: (ReviewReport & { file: string }) | null;
  featureList: (FeatureList & { file: string }) | null;
  feedback: {
    /** Trimmed records: last K plus every failure, original order, at most `maxKept`. */
    kept: IndexedRecord[];
    /** Total valid records seen. */
    total: number;
    /** Valid records not kept. */
    omitted: number;
    /** The newest record that looks like a test run (pytest, npm test, go test, …), if any. */
    lastTestRun: IndexedRecord | null;
    /**
     * The newest record for each command that matters to the clean-state checks (a board
     * feature's `done_when`, or a test-runner command), keyed by the command as one normalized
     * string (argv joined by single spaces). Bounded in size.
     */
    lastRunOf: Record<string, IndexedRecord>;
  } | null;
  sources: ArtifactSource[];
  diagnostics: Diagnostic[];
}
