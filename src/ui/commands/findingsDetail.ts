import type { CleanFinding } from '../../core/clean/types';

/** The modal's detail text: one line per finding with its first paths, capped so the dialog stays readable. */
export function findingsDetail(findings: readonly CleanFinding[], max = 8): string {
  const lines = findings.slice(0, max).map((f) => {
    const paths = f.paths?.length ? ` (${f.paths.slice(0, 3).join(', ')}${f.paths.length > 3 ? ', …' : ''})` : '';
    return `• ${f.check}: ${f.detail}${paths}`;
  });
  if (findings.length > max) lines.push(`… and ${findings.length - max} more`);
  lines.push('', 'Generate Anyway records every finding as a block risk in the packet.');
  return lines.join('\n');
}
