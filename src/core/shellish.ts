/**
 * Whether text (a next action, a task-list item, closing words) holds shell operators: a pipe, a command
 * chain, a substitution or a redirect to a path. Such a step is shown as a quoted record, never as
 * something to run at once: `curl … | sh` in a planted task list must not become the next agent's first
 * move. Errs on the side of "yes": a false alarm costs the next agent one question.
 */
export function isShellish(text: string): boolean {
  return SHELL_OPERATORS.some((re) => re.test(text));
}

const SHELL_OPERATORS: readonly RegExp[] = [
  /\|/, // a pipe or `||`
  /;/, // a command list
  /&&|(?:^|\s)&(?:\s|$)/, // `&&`, or `&` sending a command to the background
  /\$\(|\$\{|<\(|>\(/, // command, parameter and process substitution
  /`[^`]*`[^`]*`/, // backticks inside a code span: a nested substitution
  />>|<</, // append, here-document
  /\d?>\s*(?:\/|~|\.{1,2}\/|&\d)/, // a redirect to a path or a descriptor
  /<\s*(?:\/|~|\.{1,2}\/)/, // input from a path
];

/**
 * Whether a step hands over a command that holds shell operators: a code span in it does, or the step
 * is itself one command line (no prose around it). Prose with a semicolon or a dash ("check it; then
 * finish") holds no command: the gate that asks before running is for commands only.
 */
export function holdsShellCommand(text: string): boolean {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
  if (spans.some((s) => isShellish(s))) return true;
  const t = text.trim();
  const oneCommandLine = !spans.length && !t.includes('\n') && !/[.!?。？！]\s*$/.test(t) && /^(?:sudo\s+)?[a-z0-9_./~-]+(?:\s|$)/.test(t);
  return oneCommandLine && isShellish(t);
}
