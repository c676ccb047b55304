// Benchmark: the size of the packaged extension. Builds the VSIX exactly as `npm run package` does,
// prints its size and file list, fails when it reaches 1.25 MB or leaves a bundle of dist/ out, then restores the development build.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, tempDir } from './lib.mjs';

// The MCP server's work and SessionStart's answer are bundles of their own (each loads less than the
// whole command line), so parts of the CLI are in the VSIX more than once: 1.14 MB.
const LIMIT_BYTES = 1.25 * 1024 * 1024;
const out = path.join(tempDir('handoff-vsix-'), 'session-handoff.vsix');
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });

let failed = false;
try {
  const build = run(process.execPath, ['esbuild.mjs', '--production']);
  if (build.status !== 0) throw new Error(`production build failed: ${build.stderr}`);
  const vsce = path.join(root, 'node_modules', '.bin', 'vsce');
  const pack = run(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out]);
  if (pack.status !== 0) throw new Error(`vsce package failed: ${pack.stdout}${pack.stderr}`);
  const size = fs.statSync(out).size;
  const files = run(vsce, ['ls', '--no-dependencies']).stdout.trim().split('\n').filter(Boolean);
  console.log(`vsix: ${(size / 1024).toFixed(1)} KB, ${files.length} files (limit ${LIMIT_BYTES / 1024} KB)`);
  for (const f of files) console.log(`  ${f}`);
  const shipped = files.filter((f) => /\.(ts|map)$/.test(f) || /^(test|src|out|examples)\//.test(f));
  if (shipped.length) throw new Error(`sources or test files in the VSIX: ${shipped.join(', ')}`);
  // Every bundle esbuild writes into dist/ is loaded by someone at run time (cli.js picks hook.js or
  // statusline.js by the command): a bundle left out of the VSIX breaks that command once installed.
  const built = fs.readdirSync(path.join(root, 'dist')).filter((f) => f.endsWith('.js')).map((f) => `dist/${f}`);
  const missing = built.filter((f) => !files.includes(f));
  if (missing.length) throw new Error(`bundles missing from the VSIX (add them to .vscodeignore): ${missing.join(', ')}`);
  if (size >= LIMIT_BYTES) throw new Error(`the VSIX is ${size} bytes, over the ${LIMIT_BYTES / 1048576} MB limit`);
} catch (e) {
  failed = true;
  console.error(`bench vsix: ${e instanceof Error ? e.message : e}`);
} finally {
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  run(process.execPath, ['esbuild.mjs']);
}
process.exit(failed ? 1 : 0);
