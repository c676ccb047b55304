/** Tools whose invocations a clean-state fix may suggest as a command to run. */
const TOOLS = /^(git|npm|pnpm|yarn|npx|pytest|python3?|go|cargo|make|handoff|rm|mv)\s/;

/**
 * The shell command a fix suggests (in backticks, e.g. "Re-run `pytest tests/x.py`"), or null when
 * the fix is advice. `placeholder` is true when the user must fill something in first (`<branch>`).
 */
export function fixCommand(fix: string): { command: string; placeholder: boolean } | null {
  for (const m of fix.matchAll(/`([^`]+)`/g)) {
    const command = (m[1] ?? '').trim();
    if (TOOLS.test(command)) return { command, placeholder: /<[^>]+>/.test(command) };
  }
  return null;
}
