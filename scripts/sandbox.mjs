// `npm run sandbox`: code-server with the extension under development on a fresh example workspace
// (a git repository with the refund workbench and a Claude Code transcript for it). Prints the URL to
// open in a browser; Ctrl-C stops code-server and removes the temporary folder.
import { spawnSync } from 'node:child_process';
import { workbenchUrl } from '../test/e2e/lib/codeServer.mjs';
import { repoRoot } from '../test/e2e/lib/paths.mjs';
import { openRun } from '../test/e2e/lib/run.mjs';

const install = spawnSync(process.execPath, ['scripts/e2e-install.mjs', '--check'], { cwd: repoRoot, stdio: 'inherit' });
if (install.status !== 0) process.exit(1);
const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const run = await openRun({ name: 'sandbox', browser: false });
const url = workbenchUrl(run.cs, { folder: run.workspace, extensionDevelopmentPath: repoRoot });
console.log(`
Session Handoff sandbox
  workspace:   ${run.workspace}
  agent home:  CLAUDE_CONFIG_DIR=${run.agentHome.claudeDir}
  open:        ${url}

Notifications appear in the bell at the bottom right (the development mode that loads the extension
from this folder turns pop-up toasts off). After a rebuild (npm run build), reload the browser tab.
Press Ctrl-C to stop.`);
// Keep running until Ctrl-C: the run's cleanup stops code-server and removes the folder.
setInterval(() => {}, 1 << 30);
