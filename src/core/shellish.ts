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
