import type { CheckResult, CleanFinding } from './types';
import { compilePatterns, findCommentedOutBlocks, findDebugPrints, IGNORE_MARKER, type DebugHit } from './codeSmells';
import { globMatcher } from './glob';
import { blocks as isBlocking } from './severity';
import { findingPaths, isOwnPath, listPaths, type CleanInputs } from './inputs';

function located(hits: readonly DebugHit[]): string {
  return listPaths(hits.map((h) => `${h.path}:${h.line}`));
}

/** The first hit's text as a code span (fenced longer than any backtick run in it). */
function example(hits: readonly DebugHit[]): string {
  const text = (hits[0] as DebugHit).text.slice(0, 60);
  const fence = '`'.repeat(Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return `${fence}${/^`|`$/.test(text) ? ` ${text} ` : text}${fence}`;
}

const PRINT_SILENCE =
  `Wrong? End the line with a \`${IGNORE_MARKER}\` comment, keep command-line programs under scripts/, bin/ or cli/ ` +
  '(or give them a shebang or a __main__ guard), or change the setting sessionHandoff.clean.debugPatterns.';

/**
 * Temp artifacts: no temp/backup files or scratch folders (tracked or untracked, never ignored),
 * and no debug prints or commented-out code blocks in what the session added.
 */
export function checkTempArtifacts(
  input: Pick<CleanInputs, 'files' | 'addedLines' | 'options' | 'ownPaths' | 'programFiles'>,
): CheckResult & { invalidPatterns: string[] } {
  const findings: CleanFinding[] = [];
  const isTemp = globMatcher(input.options.tempGlobs);
  const temp = input.files.filter((f) => !isOwnPath(f, input.ownPaths) && isTemp(f)).sort();
  if (temp.length) {
    findings.push({
      check: 'temp-artifacts',
      kind: 'temp-files',
      detail: `${temp.length} temporary file${temp.length === 1 ? '' : 's'}: ${listPaths(temp)}.`,
      paths: findingPaths(temp),
      fix: 'Delete them (or add them to .gitignore if they are meant to stay local).',
      severity: 'block',
      silence: 'Files meant to stay can be left out of the setting sessionHandoff.clean.tempGlobs (CLI: ignore them in .gitignore).',
    });
  }
  const added = input.addedLines.filter((l) => !isOwnPath(l.path, input.ownPaths));
  const { patterns, invalid } = compilePatterns(input.options.debugPatterns);
  const prints = findDebugPrints(added, patterns, input.programFiles);
  const sure = prints.filter((h) => h.severity !== 'warn');
  const doubtful = prints.filter((h) => h.severity === 'warn');
  if (sure.length) {
    findings.push({
      check: 'temp-artifacts',
      kind: 'debug-prints',
      detail: `${sure.length} debug print${sure.length === 1 ? '' : 's'} added this session: ${located(sure)} (${example(sure)}).`,
      paths: findingPaths([...new Set(sure.map((h) => h.path))]),
      fix: 'Remove the debug prints (or turn them into real logging) and commit.',
      severity: 'block',
      silence: PRINT_SILENCE,
    });
  }
  if (doubtful.length) {
    findings.push({
      check: 'temp-artifacts',
      kind: 'debug-prints',
      detail: `${doubtful.length} print${doubtful.length === 1 ? '' : 's'} added this session that may be debugging or may be meant as output: ${located(doubtful)} (${example(doubtful)}).`,
      paths: findingPaths([...new Set(doubtful.map((h) => h.path))]),
      fix: 'Remove them if they were for debugging; keep them if they are the program\'s output.',
      severity: 'warn',
      silence: PRINT_SILENCE,
    });
  }
  const blocks = findCommentedOutBlocks(added);
  if (blocks.length) {
    findings.push({
      check: 'temp-artifacts',
      kind: 'commented-out-code',
      detail: `${blocks.length} commented-out code block${blocks.length === 1 ? '' : 's'} added this session: ${located(blocks)}.`,
      paths: findingPaths([...new Set(blocks.map((h) => h.path))]),
      fix: 'Delete the commented-out code; git keeps the history.',
      severity: 'block',
      silence: `Keep a block on purpose by adding a \`${IGNORE_MARKER}\` comment to its lines.`,
    });
  }
  return {
    check: 'temp-artifacts',
    title: 'Temp artifacts',
    passed: !findings.some(isBlocking),
    summary:
      findings.length === 0
        ? `No temp files, debug prints or commented-out code in ${added.length} added line${added.length === 1 ? '' : 's'}.`
        : ((findings.find(isBlocking) ?? findings[0]) as CleanFinding).detail,
    findings,
    invalidPatterns: invalid,
  };
}
