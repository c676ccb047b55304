/** The five clean-state checks of DESIGN §4, in display order. */
export const CHECK_IDS = ['working-tree', 'temp-artifacts', 'tests', 'feature-board', 'branch'] as const;
export type CheckId = (typeof CHECK_IDS)[number];

/** What a finding is about: code decides on this, never on the English of `detail` or `fix`. */
export const FINDING_KINDS = [
  'operation-in-progress',
  'uncommitted-changes',
  'untracked-files',
  'stash-without-message',
  'temp-files',
  'debug-prints',
  'commented-out-code',
  'tests-failing',
  'done-feature-failing',
  'several-in-progress',
  'active-unknown',
  'active-not-in-progress',
  'active-missing',
  'detached-head',
  'wrong-branch',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** One reason the workbench is not clean. `paths` are relative to the repository root. */
export interface CleanFinding {
  check: CheckId;
  kind: FindingKind;
  detail: string;
  paths?: string[];
  /** One sentence that makes the finding go away, for people. */
  fix: string;
  /**
   * The command lines the fix sentence names, as data, most usual first (alternatives, not steps).
   * They may come from an artifact: whoever offers to run one checks it first (see `fixOffer`).
   */
  commands?: string[];
  /** `warn` for a doubtful finding: shown and carried as a risk, but it does not make the workbench dirty. Absent: `block`. */
  severity?: 'block' | 'warn';
  /** How to silence the finding when it is wrong: a setting or an inline marker. */
  silence?: string;
}

/** The result of one check: passing checks carry a short reason too, for the view. */
export interface CheckResult {
  check: CheckId;
  title: string;
  passed: boolean;
  /**
   * Nothing to judge by (no test run recorded anywhere): neutral, not failing. `passed` is then true,
   * so it never makes the workbench dirty; views show it as unknown.
   */
  unknown?: boolean;
  /** Why it passed or failed, one line. */
  summary: string;
  /** Something a passing check must not hide (it is part of `summary` too), for a view to show apart. */
  note?: string;
  findings: CleanFinding[];
}

export interface CleanReport {
  clean: boolean;
  checks: CheckResult[];
  /** All findings of all checks: what `clean_state.json` holds (`[]` means clean). */
  findings: CleanFinding[];
}
