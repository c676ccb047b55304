// Suite entry for the extension host (`extensionTestsPath`): used by the code-server harness
// (test/e2e) and by @vscode/test-electron alike. Runs every compiled `*.test.js` beside this file.
import Mocha from 'mocha';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

interface TestResult {
  title: string;
  state: 'passed' | 'failed';
  error?: string;
}

async function findTests(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join(dir, f));
}

/**
 * Runs the in-host mocha suite. Resolves when every test passed, rejects otherwise (the workbench turns
 * that into a non-zero exit code). Writes a JSON summary to `$HANDOFF_TEST_RESULTS` when set.
 */
export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 90000, reporter: 'spec' });
  if (process.env.HANDOFF_TEST_GREP) mocha.grep(process.env.HANDOFF_TEST_GREP);
  for (const file of await findTests(__dirname)) mocha.addFile(file);

  const tests: TestResult[] = [];
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('pass', (t) => tests.push({ title: t.fullTitle(), state: 'passed' }));
    runner.on('fail', (t, err: unknown) =>
      tests.push({ title: t.fullTitle(), state: 'failed', error: String((err as Error)?.stack ?? err) }));
  });
  const passed = tests.filter((t) => t.state === 'passed').length;
  const failed = Math.max(failures, tests.length - passed);
  const resultFile = process.env.HANDOFF_TEST_RESULTS;
  if (resultFile) await writeFile(resultFile, JSON.stringify({ passed, failed, tests }, null, 2));
  if (failed > 0) throw new Error(`${failed} in-host test(s) failed`);
}
