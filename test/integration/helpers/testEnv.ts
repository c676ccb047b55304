// What the harness tells in-host tests about their surroundings (set by test/e2e and .vscode-test.mjs).
import path from 'node:path';

/** Paths of the test run, read from the environment of the extension host. */
export interface InHostEnv {
  /** The fresh test workspace (a git repository with the refund workbench), also the open folder. */
  workspace: string;
  /** CLAUDE_CONFIG_DIR of the run: holds `projects/<slug>/<session>.jsonl` for the workspace. */
  claudeDir: string;
  /** CODEX_HOME of the run (empty). */
  codexHome: string;
  /** The shared fixtures folder. */
  fixtures: string;
  /** Folder of the extension under test (its package.json is the manifest). */
  extensionPath: string;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the in-host suite through the test harness`);
  return value;
}

/** Reads the run's paths; throws a clear error when the suite was started without the harness. */
export function inHostEnv(): InHostEnv {
  return {
    workspace: required('HANDOFF_TEST_WORKSPACE'),
    claudeDir: required('HANDOFF_TEST_CLAUDE_DIR'),
    codexHome: required('HANDOFF_TEST_CODEX_HOME'),
    fixtures: required('HANDOFF_FIXTURES'),
    // out/test/integration/helpers → repository root
    extensionPath: process.env.HANDOFF_TEST_EXTENSION_PATH ?? path.resolve(__dirname, '..', '..', '..', '..'),
  };
}

/**
 * Polls `probe` until it returns a truthy value (no fixed sleeps in tests).
 * @returns the first truthy value
 */
export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 20000, what = 'condition'): Promise<NonNullable<T>> {
  const t0 = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
