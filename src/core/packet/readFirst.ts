import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { globMatcher } from '../clean/glob';
import type { ChangedFile, FailedAttempt } from './schema';

/** How many source files "Read these first" lists before the workbench reports. */
export const READ_FIRST_MAX = 8;

/** The workbench's own files: read last, after the code they describe. */
const WORKBENCH_FILES = /(^|\/)(agent_state\.json|feedback_record\.jsonl|feature_list\.json|task_board\.json|verification_report\.json|review_report\.json|context_usage\.json|outputs\/(verification|review)\/[^/]+\.json)$/;
// A test folder, or `test`/`spec` set off by a separator in the name (test_x.py, x.test.ts, x_test.go).
const TEST_PATH = /(^|\/)(tests?|spec|__tests__)\/|(^|[/_.-])(test|spec)s?[_.-]/i;
/**
 * A relative path with a file extension, optionally followed by `:line`, `(line,col)` or `::test`.
 * It starts at a word character or a dot, so an absolute path is never taken, nor any part of it.
 */
const PATH_TOKEN = /(?:^|[\s'"`(=[])((?:[\w@.-]+\/)*[\w@.-]+\.[A-Za-z]\w{0,5})(?=$|[\s'"`):;,[\]]|::|\(\d|\.(?:\s|$))/gm;

/**
 * Relative file paths a text names: a path outside the repository (absolute, or up from it) is not
 * one, nor a bare name that is not code (a version, a host name, README.md).
 */
export function pathsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PATH_TOKEN)) {
    const p = (m[1] as string).replace(/^\.\//, '');
    if (p.startsWith('..')) continue;
    if (!/\//.test(p) && !/\.(py|[cm]?[jt]sx?|go|rs|rb|java|kt|cs|php|swift|c|cc|cpp|h|hpp|ya?ml|toml|json|sql|sh)$/.test(p)) continue;
    out.push(p);
  }
  return out;
}

export interface ReadFirstOptions {
  tempGlobs: readonly string[];
  /** Files that exist in the repository (tracked or untracked), when known: named paths must be among them. */
  knownFiles?: readonly string[] | null;
}

/**
 * "Read these first": the failing tests (named by the failed commands and their output), then the
 * source files the failure excerpts name that this session changed, then the other changed files;
 * the workbench's own reports last. Never a temporary file, never a deleted one; newest failure first.
 */
export function collectReadFirst(
  snapshot: WorkbenchSnapshot,
  changed: readonly ChangedFile[],
  failed: readonly FailedAttempt[],
  options: ReadFirstOptions,
  nextAction?: string,
): string[] {
  const isTemp = globMatcher(options.tempGlobs);
  const live = changed.filter((c) => c.kind !== 'deleted').map((c) => c.path);
  const changedSet = new Set(live);
  const known = options.knownFiles ? new Set(options.knownFiles) : null;
  /** The repository form of a named path: itself, or the one changed/known file it is a suffix of. */
  const resolve = (p: string): string | null => {
    if (changedSet.has(p) || known?.has(p)) return p;
    const suffix = live.find((c) => c.endsWith(`/${p}`)) ?? options.knownFiles?.find((c) => c.endsWith(`/${p}`));
    if (suffix) return suffix;
    return known ? null : p;
  };

  const tests: string[] = [];
  const named: string[] = [];
  for (const f of [...failed].reverse()) {
    for (const p of pathsIn(f.command)) {
      const r = resolve(p);
      if (r && TEST_PATH.test(r)) tests.push(r);
    }
    for (const p of pathsIn(f.excerpt)) {
      const r = resolve(p);
      if (!r) continue;
      if (TEST_PATH.test(r) && (changedSet.has(r) || known?.has(r))) tests.push(r);
      else if (changedSet.has(r)) named.push(r);
    }
  }
  // The files the next action names come first: they are what the first step touches.
  const fromNext = nextAction ? pathsIn(nextAction).map(resolve).filter((r): r is string => !!r && (changedSet.has(r) || !!known?.has(r))) : [];
  const code = [...fromNext, ...tests, ...named, ...live].filter((p) => !isTemp(p) && !WORKBENCH_FILES.test(p));
  const files = [...new Set(code)].slice(0, READ_FIRST_MAX);
  const reports = live.filter((p) => WORKBENCH_FILES.test(p) && !isTemp(p));
  if (snapshot.verification && !snapshot.verification.passed) reports.push(snapshot.verification.file);
  if (snapshot.review && snapshot.review.verdict !== 'pass') reports.push(snapshot.review.file);
  return [...new Set([...files, ...reports.filter((r) => /(verification|review)/.test(r))])];
}
