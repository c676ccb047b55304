import { spawn } from 'node:child_process';

/**
 * Codex runs one notify program. When the user had one of their own, set-up chains it
 * (`handoff notify --chain-json '["my-notifier","--quiet"]'`): it is started first, with its own
 * arguments and the same payload as the last one, the way Codex starts a notify program — not
 * through a shell, detached, stdio closed, fire and forget. Returns false when the flag does not hold
 * a list of strings, or the program cannot be started.
 */
export function runChainedNotify(chainJson: unknown, payload: string | undefined, env: Record<string, string | undefined>): boolean {
  if (typeof chainJson !== 'string') return false;
  let argv: unknown;
  try {
    argv = JSON.parse(chainJson);
  } catch {
    return false;
  }
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) return false;
  const [exe, ...args] = argv as string[];
  try {
    const child = spawn(exe!, [...args, ...(payload === undefined ? [] : [payload])], { detached: true, stdio: 'ignore', windowsHide: true, env });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
