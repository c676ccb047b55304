// A fresh test workspace for every run: a temporary git repository holding a copy of the refund
// workbench fixture, plus an agent home (Claude Code transcript pointing at that workspace, empty Codex home).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fixturesDir } from './paths.mjs';

/** Branch of the refund fixture (its agent_state.json and transcript say so). */
export const FIXTURE_BRANCH = 'feat/upi-refund';

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Claude Code's project folder name for a cwd: every character that is not a letter or digit becomes `-`.
 * @param {string} cwd absolute workspace path
 */
export function claudeProjectSlug(cwd) {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/**
 * Copies the fixture Claude Code transcript into `<claudeDir>/projects/<slug>/<session>.jsonl`, with
 * every line's `cwd` rewritten to `workspace` so the extension matches it to that workspace.
 * @param {string} claudeDir the CLAUDE_CONFIG_DIR
 * @param {string} workspace absolute workspace path
 * @param {string} [fixture] transcript file name under fixtures/agents
 * @returns {string} the transcript path
 */
export function addClaudeTranscript(claudeDir, workspace, fixture = 'claude-session.jsonl') {
  const text = fs.readFileSync(path.join(fixturesDir(), 'agents', fixture), 'utf8');
  let sessionId = 'session';
  const lines = text.split('\n').map((line) => {
    if (!line.trim()) return line;
    try {
      const rec = JSON.parse(line);
      if (typeof rec.sessionId === 'string' && sessionId === 'session') sessionId = rec.sessionId;
      if ('cwd' in rec) rec.cwd = workspace;
      return JSON.stringify(rec);
    } catch {
      return line; // keep a malformed line as it is: the reader must cope with it
    }
  });
  const dir = path.join(claudeDir, 'projects', claudeProjectSlug(workspace));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${sessionId}.jsonl`);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

/**
 * Creates `<parent>/<name>`: a git repository on `feat/upi-refund` whose first commit holds the refund
 * workbench fixture (at the workspace root, the default `workbenchDir`).
 * @param {string} parent an existing temporary folder
 * @param {string} [name] folder name of the workspace
 * @returns {string} the workspace's real absolute path
 */
export function createGitWorkspace(parent, name = 'refund-service') {
  const ws = path.join(fs.realpathSync(parent), name);
  fs.mkdirSync(ws, { recursive: true });
  fs.cpSync(path.join(fixturesDir(), 'workbench-refund'), ws, { recursive: true });
  // The fixtures are read-only; the copies must be editable by tests and by the extension.
  for (const f of fs.readdirSync(ws, { recursive: true })) {
    const p = path.join(ws, String(f));
    fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644);
  }
  fs.writeFileSync(path.join(ws, 'README.md'), '# refund-service\n\nTest workspace for Session Handoff.\n');
  git(ws, 'init', '-q', '-b', FIXTURE_BRANCH);
  git(ws, 'config', 'user.name', 'Handoff Test');
  git(ws, 'config', 'user.email', 'handoff-test@example.invalid');
  git(ws, 'config', 'commit.gpgsign', 'false');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'Start the refund work');
  return ws;
}

/**
 * An agent home for one code-server run: an empty Claude config dir and an empty Codex home. Both are
 * exported to code-server (CLAUDE_CONFIG_DIR, CODEX_HOME) so the extension host reads them.
 * @param {string} runDir the run's temporary folder
 * @returns {{claudeDir: string, codexHome: string}}
 */
export function createAgentHome(runDir) {
  const root = path.join(fs.realpathSync(runDir), 'agent-home');
  const agentHome = { claudeDir: path.join(root, 'claude'), codexHome: path.join(root, 'codex') };
  fs.mkdirSync(path.join(agentHome.claudeDir, 'projects'), { recursive: true });
  fs.mkdirSync(agentHome.codexHome, { recursive: true });
  return agentHome;
}

/**
 * A fresh workspace in `dir` with the fixture transcript for it in the agent home.
 * @param {string} dir an existing, empty temporary folder for this workspace
 * @param {{claudeDir: string}} agentHome from createAgentHome
 * @returns {{workspace: string, transcript: string}}
 */
export function createTestWorkspace(dir, agentHome) {
  const workspace = createGitWorkspace(dir);
  const transcript = addClaudeTranscript(agentHome.claudeDir, workspace);
  return { workspace, transcript };
}
