// The real-sessions tier: runs the built CLI on every session of the development corpus
// (`../shared/real-sessions/`, or HANDOFF_REAL_SESSIONS) the way a user's machine would hold it — the
// file where its agent writes it, its working directory rewritten to a fresh temporary repository,
// a fresh HOME, CLAUDE_CONFIG_DIR and CODEX_HOME — and checks the packet and the restart prompt against
// the corpus's `expect.json`. Nothing of the corpus is copied into the repository: every copy lives in
// a temporary folder that is removed afterwards.
// Usage: node test/real/realSessions.mjs [--only name] [--keep]   (prints `real: N passed, N failed`)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = process.env.HANDOFF_REAL_SESSIONS ?? path.resolve(root, '..', 'shared', 'real-sessions');
const cli = path.join(root, 'dist', 'cli.js');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const keep = args.includes('--keep');
const verbose = args.includes('--verbose');

if (!fs.existsSync(path.join(corpus, 'expect.json'))) {
  console.log(`real sessions: no corpus at ${corpus} (set HANDOFF_REAL_SESSIONS to its folder)`);
  console.log('real: 0 passed, 1 failed');
  process.exit(1);
}
if (!fs.existsSync(cli)) {
  console.log('real sessions: dist/cli.js is missing: run `node esbuild.mjs` first');
  console.log('real: 0 passed, 1 failed');
  process.exit(1);
}

const expect = JSON.parse(fs.readFileSync(path.join(corpus, 'expect.json'), 'utf8'));

function git(cwd, ...a) {
  const r = spawnSync('git', a, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' } });
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A function that rewrites every spelling of `original` (a POSIX or Windows path: either drive-letter
 * case, either separator, and the `/c/Users/…` form) at the start of a path to `repo`, and the
 * separators of the rest of that path to `/`.
 */
function rewriter(original, repo) {
  const win = /^[A-Za-z]:[\\/]/.test(original);
  let pattern;
  if (win) {
    const drive = original[0];
    const rest = original.slice(3).split(/[\\/]+/).filter(Boolean).map(escapeRe).join('[\\\\/]+');
    pattern = `(?:[${drive.toLowerCase()}${drive.toUpperCase()}]:[\\\\/]+|/${drive.toLowerCase()}/)${rest}`;
  } else {
    pattern = escapeRe(original.replace(/\/+$/, ''));
  }
  const re = new RegExp(`${pattern}((?:[\\\\/][^\\s"'\`\\\\/:*?<>|]*)*)`, win ? 'gi' : 'g');
  return (s) => s.replace(re, (_m, tail) => repo + tail.replace(/\\/g, '/'));
}

function mapStrings(v, f) {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapStrings(x, f);
    return o;
  }
  return v;
}

/** The session file's lines with the original cwd rewritten; unparsable lines are kept as they are. */
function rewriteLines(text, original, repo) {
  const f = rewriter(original, repo);
  return text.split('\n').map((line) => {
    if (!line.trim()) return line;
    try {
      return JSON.stringify(mapStrings(JSON.parse(line), f));
    } catch {
      return line;
    }
  }).join('\n');
}

function firstJson(text, pick) {
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = pick(JSON.parse(line));
      if (v) return v;
    } catch { /* not JSON */ }
  }
  return null;
}

const slug = (p) => p.replace(/[^A-Za-z0-9]/g, '-');

function setUp(key) {
  const [agent, name] = key.split('/');
  const file = path.join(corpus, agent, `${name}.jsonl`);
  const text = fs.readFileSync(file, 'utf8');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-real-'));
  const repo = path.join(base, 'repo');
  const home = path.join(base, 'home');
  const claudeDir = path.join(base, 'claude');
  const codexHome = path.join(base, 'codex');
  for (const d of [repo, home, claudeDir, codexHome]) fs.mkdirSync(d, { recursive: true });
  let branch = 'main';
  let original;
  let target;
  if (agent === 'claude') {
    original = firstJson(text, (o) => (typeof o.cwd === 'string' ? o.cwd : null));
    branch = firstJson(text, (o) => (typeof o.gitBranch === 'string' && o.gitBranch && o.gitBranch !== 'HEAD' ? o.gitBranch : null)) ?? 'main';
    const sessionId = firstJson(text, (o) => (typeof o.sessionId === 'string' ? o.sessionId : null)) ?? name;
    target = path.join(claudeDir, 'projects', slug(repo), `${sessionId}.jsonl`);
  } else {
    const meta = firstJson(text, (o) => (o.type === 'session_meta' ? o.payload : null));
    original = meta?.cwd;
    branch = meta?.git?.branch || 'main';
    const started = new Date(meta?.timestamp ?? Date.now());
    const p2 = (n) => String(n).padStart(2, '0');
    const day = path.join(String(started.getUTCFullYear()), p2(started.getUTCMonth() + 1), p2(started.getUTCDate()));
    const stamp = `${started.getUTCFullYear()}-${p2(started.getUTCMonth() + 1)}-${p2(started.getUTCDate())}T${p2(started.getUTCHours())}-${p2(started.getUTCMinutes())}-${p2(started.getUTCSeconds())}`;
    target = path.join(codexHome, 'sessions', day, `rollout-${stamp}-${meta?.id ?? name}.jsonl`);
  }
  if (!original) throw new Error(`${key}: no cwd found in the session`);
  git(repo, 'init', '-q', '-b', branch);
  fs.writeFileSync(path.join(repo, 'README.md'), '# test repository\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, rewriteLines(text, original, repo));
  const env = { ...process.env, HOME: home, USERPROFILE: home, CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexHome, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CACHE_HOME: path.join(home, '.cache'), NO_COLOR: '1' };
  delete env.CLAUDE_CODE_PROJECT_DIR_NAME;
  return { base, repo, env };
}

function run(env, cwd, ...a) {
  const r = spawnSync(process.execPath, [cli, ...a], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function findPacket(dir) {
  let best = null;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'handoff.json') {
        const m = fs.statSync(p).mtimeMs;
        if (!best || m > best.m) best = { p, m };
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return best?.p ?? null;
}

const re = (s, flags) => new RegExp(s, flags);

function check(key, spec) {
  const problems = [];
  const { base, repo, env } = setUp(key);
  let nextAction = '';
  let prompt = '';
  try {
    const gen = run(env, repo, 'generate', '--dir', repo, '--allow-dirty');
    if (gen.status !== 0) problems.push(`generate exited ${gen.status}: ${(gen.stderr || gen.stdout).trim().slice(0, 600)}`);
    const file = findPacket(path.join(repo, 'outputs', 'handoff'));
    const packetText = file ? fs.readFileSync(file, 'utf8') : '';
    if (!file) problems.push('no handoff.json was written');
    let packet = null;
    try { packet = packetText ? JSON.parse(packetText) : null; } catch (e) { problems.push(`handoff.json is not JSON: ${e.message}`); }
    nextAction = typeof packet?.next_action === 'string' ? packet.next_action : (packet?.next_action?.text ?? '');
    const p = run(env, repo, 'prompt', '--dir', repo);
    if (p.status !== 0) problems.push(`prompt exited ${p.status}: ${(p.stderr || p.stdout).trim().slice(0, 300)}`);
    prompt = p.stdout;
    const any = spec.any ?? [];
    if (any.length && !any.some((r) => re(r, 'i').test(nextAction))) problems.push(`next action matches none of: ${any.map((r) => `/${r}/`).join(' ')}`);
    for (const r of spec.not ?? []) if (re(r, 'i').test(nextAction)) problems.push(`next action matches what it must not: /${r}/`);
    for (const r of spec.packet_all ?? []) if (!re(r, '').test(packetText)) problems.push(`packet lacks /${r.length > 80 ? `${r.slice(0, 20)}…` : r}/`);
    for (const r of spec.prompt_any ?? []) if (!re(r, 'i').test(prompt)) problems.push(`prompt lacks /${r}/`);
    for (const r of spec.prompt_not ?? []) if (re(r, 'i').test(prompt)) problems.push(`prompt matches what it must not: /${r}/`);
  } finally {
    if (!keep) fs.rmSync(base, { recursive: true, force: true });
    else console.log(`  kept ${base}`);
  }
  return { problems, nextAction, prompt };
}

let passed = 0;
let failed = 0;
const started = Date.now();
for (const [key, spec] of Object.entries(expect)) {
  if (key.startsWith('_') || (only && !key.includes(only))) continue;
  let r;
  try {
    r = check(key, spec);
  } catch (e) {
    r = { problems: [`could not run: ${e.message}`], nextAction: '' };
  }
  if (r.problems.length === 0) {
    passed++;
    console.log(`  ✓ ${key}`);
    if (verbose) console.log(`      next action: ${r.nextAction}`);
  } else {
    failed++;
    console.log(`  ✗ ${key}`);
    console.log(`      next action: ${r.nextAction.replace(/\s+/g, ' ').slice(0, 500)}`);
    for (const p of r.problems) console.log(`      - ${p}`);
  }
}
console.log(`real sessions: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`real: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
