/** One command as a single string: argv joined by single spaces, whitespace collapsed. */
export function commandText(command: string | readonly string[]): string {
  const s = Array.isArray(command) ? command.join(' ') : (command as string);
  return s.trim().replace(/\s+/g, ' ');
}

/**
 * Words of a command that name a test target: files or folders (`tests/test_refund.py`), with a
 * pytest node id (`::test_x`) or a line suffix stripped. Used to see whether a risk names it.
 */
export function testTargets(command: string): string[] {
  return command
    .split(' ')
    .filter((w) => !w.startsWith('-') && (w.includes('/') || /\.\w{1,5}(::|:\d|$)/.test(w)))
    .map((w) => w.replace(/::.*$/, '').replace(/:\d+$/, '').replace(/^["']|["']$/g, ''))
    .filter((w) => w.length > 2);
}
