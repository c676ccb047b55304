// Bundles the extension, the CLI and the webview script; with --tests, transpiles src/ and test/
// file by file into out/ so that mocha can run the unit and in-host suites; --all does both.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');

/** @type {esbuild.BuildOptions} */
const node = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

/**
 * The statusline leaves the redaction's upstream rule preset (secretlint) out of its bundle: it is
 * required from dist/redactLibrary.js at run time, and only for a text that could hold a provider token.
 */
const libraryApart = {
  name: 'redact-library-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/library$/ }, (args) =>
      args.importer.endsWith(path.join('core', 'redact', 'index.ts')) ? { path: './redactLibrary.js', external: true } : undefined);
  },
};

const builds = [
  { ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  // `handoff` (dist/cli.js) only picks a bundle: the statusline's small one, or the full command line.
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: ['src/cli/handoff.ts'], outfile: 'dist/handoff.js' },
  { ...node, entryPoints: ['src/cli/statusline.ts'], outfile: 'dist/statusline.js', plugins: [libraryApart] },
  // `handoff hook`'s quick answers (wrap-up line, hand-over to the detached completion): small, like the statusline's.
  { ...node, entryPoints: ['src/cli/hook.ts'], outfile: 'dist/hook.js', plugins: [libraryApart] },
  // SessionStart's answer, loaded by the hook bundle for that event only.
  { ...node, entryPoints: ['src/cli/hookStart.ts'], outfile: 'dist/hookStart.js', plugins: [libraryApart] },
  { ...node, entryPoints: ['src/core/redact/library.ts'], outfile: 'dist/redactLibrary.js' },
  // `handoff mcp`: the protocol alone, so that `initialize` is answered at once; the work behind its tools
  // is a bundle of its own, loaded at the first call.
  { ...node, entryPoints: ['src/cli/mcp.ts'], outfile: 'dist/mcp.js' },
  { ...node, entryPoints: ['src/cli/mcp/mcpWork.ts'], outfile: 'dist/mcpWork.js' },
  // What the statusline loads on a cache miss (schemas, git): a bundle of its own, required at run time.
  { ...node, entryPoints: ['src/cli/commands/statuslineWords.ts'], outfile: 'dist/statuslineWords.js' },
];
if (fs.existsSync('media/panel.ts')) {
  builds.push({
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production,
    minify: production, logLevel: 'warning', entryPoints: ['media/panel.ts'], outfile: 'dist/panel.js',
  });
}

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function copyCodicons() {
  const from = 'node_modules/@vscode/codicons/dist';
  if (!fs.existsSync(from)) return;
  fs.mkdirSync('dist/codicons', { recursive: true });
  for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(from, f), path.join('dist/codicons', f));
}

/** Transpile only (no bundling): each test keeps its own module graph, `vscode` stays a runtime require. */
function buildTests() {
  // Start from an empty out/: a module that moved (file → folder) must not leave its old copy behind
  // to be resolved first.
  fs.rmSync('out', { recursive: true, force: true });
  return esbuild.build({
    // The panel's drawing code (media/) too: a unit test renders it against a small DOM of its own.
    entryPoints: [...walk('src'), ...walk('test'), ...walk('media').filter((f) => !f.endsWith('panel.ts'))].filter((f) => !f.startsWith('test/e2e')),
    outdir: 'out', outbase: '.', platform: 'node', format: 'cjs', target: 'node18', sourcemap: 'inline',
    logLevel: 'warning',
  });
}

async function buildBundles() {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  copyCodicons();
  fs.chmodSync('dist/cli.js', 0o755);
}

if (args.has('--all')) {
  // Everything the test tiers need, in one process: the bundles and the transpiled tests.
  await Promise.all([buildBundles(), buildTests()]);
} else if (args.has('--tests')) {
  await buildTests();
} else if (watch) {
  const ctxs = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(ctxs.map((c) => c.watch()));
  copyCodicons();
  console.log('watching…');
} else {
  await buildBundles();
}
