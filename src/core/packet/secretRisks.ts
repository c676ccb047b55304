import type { SecretFinding } from '../artifacts/snapshot';
import type { LineOrigin } from '../gitPort';
import type { Risk } from './schema';

/** The key of a finding in `GitInput.secretOrigins`: the workbench-relative file and the line. */
export function originKey(f: Pick<SecretFinding, 'file' | 'line'>): string {
  return `${f.file}:${f.line ?? 0}`;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** What git knows about the line, and the fix that follows from it. */
function historyAndFix(origin: LineOrigin | undefined): string {
  if (!origin) return 'Fix: rotate the credential now; remove it from the file and, if it was ever committed, from git history before pushing.';
  if (!origin.tracked) return 'Git does not track the file. Fix: rotate the credential now; remove it from the file and keep the file out of commits.';
  if (!origin.commit) return 'Git tracks the file; this line is not committed yet. Fix: rotate the credential now; remove it from the file before committing.';
  return `Git tracks the file; the line is in history since commit ${origin.commit.slice(0, 12)}. Fix: rotate the credential now; remove it from the file and from git history (for example with git filter-repo) before pushing.`;
}

/**
 * One `block` risk per credential masked in an input file: the packet never shows the secret, but
 * the next session must know it is there — which file and line, what kind, whether it is in git
 * history and since when — and that it needs rotating, not just masking.
 */
export function secretRisks(findings: readonly SecretFinding[], origins: Readonly<Record<string, LineOrigin>> = {}): Risk[] {
  return findings.map((f) => {
    const where = f.line ? `${f.file} line ${f.line}` : f.file;
    return {
      id: `leak:${where.replace(' line ', ':')}`,
      severity: 'block' as const,
      detail: `${cap(f.label)} in ${where} (masked in this packet). ${historyAndFix(origins[originKey(f)])}`,
      source: f.line ? `${f.file}:${f.line}` : f.file,
      owner: 'human' as const,
    };
  });
}
