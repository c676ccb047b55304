import type { FailedAttempt } from './schema';
import { redact } from '../redact';

/**
 * The wording of a next step derived from a failed command. Two traps shape it: a command that timed
 * out or was killed may have partly applied, so the step starts by inspecting what it changed and never
 * says "re-run it"; and a compound shell line (`a; b`, `a && b`, `a | b`, `$(…)`, backticks) came from
 * an artifact, so it is named as a record entry, never offered as something to run.
 */

/** Shell operators that chain or nest commands. */
const COMPOUND = /;|&&|\|\||\||\$\(|`|\n/;

/** True when `command` is more than one simple command (chained, piped or with a substitution). */
export function isCompoundCommand(command: string): boolean {
  return COMPOUND.test(command);
}

// Output quoted in a step loses its backticks: no code span in a step can come from a command's output.
const plain = (s: string): string => s.replace(/`+/g, "'");
// Redacted before the cut: a cut never leaves part of a secret.
const firstLine = (text: string): string => {
  const s: string = redact(text);
  return plain((s.split('\n').map((l) => l.trim()).find(Boolean) ?? s).slice(0, 160));
};
const lastLine = (s: string): string => plain((redact(s).split('\n').map((l) => l.trim()).filter(Boolean).at(-1) ?? '').slice(0, 120));

/** The command as the step names it: in a code span when simple, as a record reference when compound. */
export function namedCommand(f: FailedAttempt): string {
  return isCompoundCommand(f.command) ? `failed attempt #${f.index} (a compound shell command, kept as data in the record)` : `\`${f.command}\``;
}

/** The part of an uncertain attempt's excerpt that is its partial output (after the reason line). */
function partialOutput(f: FailedAttempt): string {
  const at = f.excerpt.indexOf('\n');
  return at < 0 ? '' : f.excerpt.slice(at + 1).replace(/^partial output[^\n]*\n?/i, '');
}

/**
 * The next step for the newest unresolved failure. Failed: fix the cause (named by the excerpt's first
 * line) and run the command again — by name when it is simple. Uncertain: inspect what it may have
 * changed and finish only what is missing.
 */
export function stepForFailure(f: FailedAttempt): string {
  if (!f.uncertain) {
    const why = `exit ${f.exit_code ?? 'unknown'}: ${firstLine(f.excerpt)}`;
    if (isCompoundCommand(f.command)) {
      return `Fix the cause of ${namedCommand(f)} (${why}), then run the commands it chains one at a time; do not run the recorded line as it is.`;
    }
    return `Fix the cause and re-run \`${f.command}\` (it failed with ${why}).`;
  }
  const how = f.outcome === 'timeout' ? 'timed out' : f.outcome === 'error' ? 'did not complete' : `was stopped (exit ${f.exit_code ?? 'unknown'})`;
  const files = f.may_have_changed?.length ? `the files it may have changed (${f.may_have_changed.slice(0, 4).join(', ')}${f.may_have_changed.length > 4 ? ', …' : ''})` : 'the working tree and whatever it writes to';
  const stopped = lastLine(partialOutput(f));
  const evidence = stopped ? `; its output stopped at "${stopped}"` : '';
  return (
    `Inspect what ${namedCommand(f)} may have changed before anything else: ${files}${evidence}. ` +
    `It ${how} and may have partly applied: finish only the steps that are missing instead of running it again from the start.`
  );
}
