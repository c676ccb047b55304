import type { Diagnostic } from '../../core/diagnostics';

/**
 * Which input problems to log after a refresh: only those not already logged while they stayed.
 * A half-written last line is the same problem on every refresh until the agent finishes it; it is
 * logged once, and again only if it comes back after it went away. Returns the lines to log and the
 * set to remember for the next refresh. Pure, for unit tests.
 */
export function diagnosticsToLog(logged: ReadonlySet<string>, diagnostics: readonly Diagnostic[]): { lines: string[]; now: Set<string> } {
  const now = new Set(diagnostics.map((d) => `${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`));
  return { lines: [...now].filter((l) => !logged.has(l)), now };
}
