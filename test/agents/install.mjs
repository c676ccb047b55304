// Installs the real agents the `agents` tier runs (Claude Code and Codex CLI, pinned in
// test/e2e/tools/agents/package.json and its lockfile) with `npm ci`, unless the pinned versions are
// already there, then checks each answers --version in a throwaway HOME. Only the npm registry is reached.
// Usage: node test/agents/install.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const agentsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../e2e/tools/agents');
export const claudeBin = path.join(agentsDir, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe');
export const codexBin = path.join(agentsDir, 'node_modules/@openai/codex/bin/codex.js');
const stamp = path.join(agentsDir, 'node_modules/.installed.json');
const say = (m) => console.log(`agents-install: ${m}`);

/** The pinned versions, from package.json (a version bump is one line there). */
export function pinned() {
  const deps = JSON.parse(fs.readFileSync(path.join(agentsDir, 'package.json'), 'utf8')).dependencies;
  return { claude: deps['@anthropic-ai/claude-code'], codex: deps['@openai/codex'] };
}
const lockText = () => fs.readFileSync(path.join(agentsDir, 'package-lock.json'), 'utf8');

/** Environment for a nested npm, without what an outer `npm run` exported. */
function npmEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'NODE' || /^npm_/i.test(k)) delete env[k];
  return env;
}

function versionOf(cmd, args) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-agent-version-'));
  try {
    const r = spawnSync(cmd, [...args, '--version'], {
      encoding: 'utf8', timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: path.join(home, '.codex'), DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
    });
    return `${r.stdout ?? ''}`.trim();
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export function install() {
  const want = pinned();
  let s = {};
  try { s = JSON.parse(fs.readFileSync(stamp, 'utf8')); } catch { /* none yet */ }
  const lock = lockText();
  if (s.lock !== lock || !fs.existsSync(claudeBin) || !fs.existsSync(codexBin)) {
    say(`npm ci in ${path.relative(process.cwd(), agentsDir)} (Claude Code ${want.claude}, Codex ${want.codex})`);
    // --include=optional: the platform binaries of both are optional dependencies.
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--include=optional'], { cwd: agentsDir, env: npmEnv(), stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`npm ci failed in ${agentsDir}`);
  }
  const claude = versionOf(claudeBin, []);
  const codex = versionOf(process.execPath, [codexBin]);
  if (!claude.startsWith(want.claude)) throw new Error(`Claude Code does not start (want ${want.claude}): ${claude}`);
  if (!codex.includes(want.codex)) throw new Error(`Codex does not start (want ${want.codex}, is its ${process.platform}-${process.arch} binary installed?): ${codex}`);
  fs.writeFileSync(stamp, `${JSON.stringify({ lock }, null, 0)}\n`);
  say(`${claude}; ${codex.split('\n')[0]}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { install(); } catch (e) { console.error(`agents-install: ${e instanceof Error ? e.message : e}`); process.exit(1); }
}
