import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Finds the repository root by walking up from this file (it runs from `out/test/unit/helpers/` after
 * `esbuild --tests`, or from `test/unit/helpers/` under ts-node) to the `package.json` of the product.
 */
export function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'session-handoff') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`repository root not found above ${__dirname}`);
    dir = parent;
  }
}

/**
 * The shared fixtures dir: `HANDOFF_FIXTURES` when set, otherwise `<repo root>/../shared/fixtures`.
 * Fixtures are read-only; copy them with {@link copyFixture} before changing anything.
 */
export function fixturesDir(): string {
  const fromEnv = process.env['HANDOFF_FIXTURES'];
  if (fromEnv) return path.resolve(fromEnv);
  return path.resolve(repoRoot(), '..', 'shared', 'fixtures');
}

/** Absolute path of one fixture file or folder, e.g. `fixturePath('agents', 'claude-session.jsonl')`. */
export function fixturePath(...parts: string[]): string {
  return path.join(fixturesDir(), ...parts);
}

/** A fresh temporary dir (prefix `handoff-test-`). */
export async function makeTempDir(prefix = 'handoff-test-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

/**
 * Copies a fixture (a folder such as `workbench-refund`, or a single file) into a new temp dir and
 * returns the copy's path. Copied files are made writable so tests can change them.
 * @param name the fixture's path under the fixtures dir
 * @param into an existing dir to copy into (the copy is `<into>/<basename>`); a new temp dir otherwise
 */
export async function copyFixture(name: string, into?: string): Promise<string> {
  const from = fixturePath(name);
  const parent = into ?? (await makeTempDir());
  const to = path.join(parent, path.basename(name));
  await fs.cp(from, to, { recursive: true });
  await makeWritable(to);
  return to;
}

async function makeWritable(p: string): Promise<void> {
  const st = await fs.stat(p);
  await fs.chmod(p, st.isDirectory() ? 0o755 : 0o644);
  if (st.isDirectory()) {
    for (const e of await fs.readdir(p)) await makeWritable(path.join(p, e));
  }
}
