import type { Diagnostic } from '../diagnostics';
import type { CleanReport } from './types';
import { checkBranch } from './branchCheck';
import { blocks } from './severity';
import { checkFeatureBoard } from './featureBoard';
import type { CleanInputs } from './inputs';
import { checkTempArtifacts } from './tempArtifacts';
import { checkTests } from './testsCheck';
import { checkWorkingTree } from './workingTree';

/**
 * Runs the five clean-state checks (DESIGN §4) in display order. Pure: same inputs, same report.
 * Settings problems (an invalid debug pattern) come back as diagnostics, not findings.
 */
export function evaluateClean(input: CleanInputs): CleanReport & { diagnostics: Diagnostic[] } {
  const { invalidPatterns, ...temp } = checkTempArtifacts(input);
  const checks = [checkWorkingTree(input), temp, checkTests(input.snapshot), checkFeatureBoard(input.snapshot), checkBranch(input)];
  const findings = checks.flatMap((c) => c.findings);
  const diagnostics = invalidPatterns.map((p) => ({
    file: 'settings',
    message: `The debug-print pattern \`${p}\` is not a valid regular expression; it was skipped.`,
  }));
  // A doubtful (`warn`) finding is shown and carried as a risk; it does not make the workbench dirty.
  return { clean: !findings.some(blocks), checks, findings, diagnostics };
}
