import type { CheckResult, CleanFinding } from './types';
import { compilePatterns, findCommentedOutBlocks, findDebugPrints, type DebugHit } from './codeSmells';
import { globMatcher } from './glob';
import { findingPaths, isOwnPath, listPaths, type CleanInputs } from './inputs';

function located(hits: readonly DebugHit[]): string {
  return listPaths(hits.map((h) => `${h.path}:${h.line}`));
}

/**
 * Temp artifacts: no temp/backup files or scratch folders (tracked or untracked, never ignored),
 * and no debug prints or commented-out code blocks in what the session added.
 */
export function checkTempArtifacts(
  input: Pick<CleanInputs, 'files' | 'addedLines' | 'options' | 'ownPaths'>,
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
    });
  }
  const added = input.addedLines.filter((l) => !isOwnPath(l.path, input.ownPaths));
  const { patterns, invalid } = compilePatterns(input.options.debugPatterns);
  const prints = findDebugPrints(added, patterns);
  if (prints.length) {
    findings.push({
      check: 'temp-artifacts',
      kind: 'debug-prints',
      detail: `${prints.length} debug print${prints.length === 1 ? '' : 's'} added this session: ${located(prints)} (\`${(prints[0] as DebugHit).text.slice(0, 60)}\`).`,
      paths: findingPaths([...new Set(prints.map((h) => h.path))]),
      fix: 'Remove the debug prints (or turn them into real logging) and commit.',
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
    });
  }
  return {
    check: 'temp-artifacts',
    title: 'Temp artifacts',
    passed: findings.length === 0,
    summary:
      findings.length === 0
        ? `No temp files, debug prints or commented-out code in ${added.length} added line${added.length === 1 ? '' : 's'}.`
        : (findings[0] as CleanFinding).detail,
    findings,
    invalidPatterns: invalid,
  };
}
