// `npm run test:electron`: the in-host suite (out/test/integration) in a desktop VS Code downloaded by
// @vscode/test-electron — for contributors with internet and a display; CI uses test/e2e (code-server).
// The environment matches what the code-server harness gives the extension host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@vscode/test-cli';
import { fixturesDir } from './test/e2e/lib/paths.mjs';
import { createAgentHome, createTestWorkspace } from './test/e2e/lib/workspace.mjs';

const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-electron-'));
const agentHome = createAgentHome(runDir);
fs.mkdirSync(path.join(runDir, 'ws-1'));
const { workspace } = createTestWorkspace(path.join(runDir, 'ws-1'), agentHome);

export default defineConfig({
  label: 'inhost',
  files: 'out/test/integration/**/*.test.js',
  extensionDevelopmentPath: import.meta.dirname,
  workspaceFolder: workspace,
  env: {
    CLAUDE_CONFIG_DIR: agentHome.claudeDir,
    CODEX_HOME: agentHome.codexHome,
    HANDOFF_TEST_WORKSPACE: workspace,
    HANDOFF_TEST_CLAUDE_DIR: agentHome.claudeDir,
    HANDOFF_TEST_CODEX_HOME: agentHome.codexHome,
    HANDOFF_FIXTURES: fixturesDir(),
    HANDOFF_TEST_EXTENSION_PATH: import.meta.dirname,
  },
  launchArgs: ['--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
  mocha: { ui: 'bdd', timeout: 30000 },
});
