/**
 * Words of a command that name a test target: files or folders (`tests/test_refund.py`), with a
 * pytest node id (`::test_x`) or a line suffix stripped. Used to see whether a risk names it.
 */
export function testTargets(command: string): string[] {
  return command
    .split(' ')
    .filter((w) => !w.startsWith('-') && (w.includes('/') || /\.\w{1,5}(::|:\d|$)/.test(w)))
    .map((w) => w.replace(/::.*/, '').replace(/:\d+$/, '').replace(/^["']|["']$/g, ''))
    .filter((w) => w.length > 2);
}
