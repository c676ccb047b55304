import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, repoRoot } from '../helpers/fixtures';

/** Fixtures written from FORMATS (vscode-agents): one global-storage folder per fixture. */
export type TaskFixture = 'cline-native' | 'cline-xml' | 'roo-condense' | 'roo-legacy';

export const TASK_IDS: Record<TaskFixture, string> = {
  'cline-native': '1764580000000',
  'cline-xml': '1764400000000',
  'roo-condense': '019ad5c4-8e2a-7b31-9c4d-2f6e8a1b3c5d',
  'roo-legacy': '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
};

export function taskFixtureDir(name: TaskFixture): string {
  return path.join(repoRoot(), 'test', 'fixtures', 'vscode-agents', name);
}

async function copyReplacing(from: string, to: string, cwd: string): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const entry of await fs.readdir(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) await copyReplacing(src, dst, cwd);
    else await fs.writeFile(dst, (await fs.readFile(src, 'utf8')).split('__CWD__').join(JSON.stringify(cwd).slice(1, -1)));
  }
}

/**
 * Copies a fixture into `<root>/<extension id>/…` (a `User/globalStorage` folder) with `__CWD__` set to
 * `cwd`; `as` places a Roo fixture under another extension id (Kilo Code). Returns the root.
 */
export async function placeTasks(name: TaskFixture, cwd: string, root?: string, as?: string): Promise<string> {
  const storage = root ?? (await makeTempDir('handoff-storage-'));
  const from = taskFixtureDir(name);
  for (const id of await fs.readdir(from)) await copyReplacing(path.join(from, id), path.join(storage, as ?? id), cwd);
  return storage;
}

/** The task folder of a placed fixture. */
export function taskDir(root: string, name: TaskFixture, as?: string): string {
  const ext = as ?? (name.startsWith('cline') ? 'saoudrizwan.claude-dev' : 'rooveterinaryinc.roo-cline');
  return path.join(root, ext, 'tasks', TASK_IDS[name]);
}
