import type { CleanFinding } from '../../../src/core/clean/types';

/**
 * What these tests pin of a finding: its check, text, fix and paths. The kind, the fix commands, the
 * severity and the silencing advice have tests of their own (clean/fixOffer, codeSmells).
 */
export function core(findings: readonly CleanFinding[]): Pick<CleanFinding, 'check' | 'detail' | 'fix' | 'paths'>[] {
  return findings.map(({ check, detail, fix, paths }) => ({ check, detail, fix, ...(paths ? { paths } : {}) }));
}
