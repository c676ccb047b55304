import type { CleanFinding } from './types';

/** True when a finding makes the workbench dirty: every finding except a doubtful (`warn`) one. */
export function blocks(f: Pick<CleanFinding, 'severity'>): boolean {
  return f.severity !== 'warn';
}
