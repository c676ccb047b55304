// Puts one session of the real-sessions corpus where its agent writes it, the way a user's machine
// would hold it: a fresh temporary git repository, a fresh HOME (with XDG folders inside it),
// CLAUDE_CONFIG_DIR and CODEX_HOME, the session's working directory rewritten to the repository, and
// the file at the agent's own place (Claude `projects/<slug>/`, Codex `sessions/YYYY/MM/DD/`, Cline
// `globalStorage/saoudrizwan.claude-dev/tasks/<taskId>/` plus `state/taskHistory.json`). Shared by the
// real-sessions tiers; everything lives under one temporary folder the caller removes (`base`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
export function rewriter(original, repo) {
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

const CLINE_CWD = /# Current (?:Working|Workspace) Directory \(([^)\n]+)\)/;

/** Cline's first working directory: in a message's text, or in the `request` of an `api_req_started` message. */
function clineCwd(messages) {
  for (const m of messages) {
    const texts = [m?.text];
    if (m?.say === 'api_req_started' && typeof m.text === 'string') {
      try { texts.push(JSON.parse(m.text)?.request); } catch { /* not JSON */ }
    }
    for (const t of texts) {
      const hit = typeof t === 'string' ? CLINE_CWD.exec(t) : null;
      if (hit) return hit[1].trim();
    }
  }
  return null;
}

/** The text of Cline's first request (`say:task`, else the first message's text). */
function clineTask(messages) {
  const m = messages.find((x) => x?.say === 'task') ?? messages[0];
  return typeof m?.text === 'string' ? m.text : '';
}

/** Where the session file of `key` (`claude/<name>`, `codex/<name>`, `cline/<name>`) sits in the corpus. */
export function sessionFile(corpus, key) {
  const [agent, name] = key.split('/');
  return agent === 'cline' ? path.join(corpus, agent, name, 'ui_messages.json') : path.join(corpus, agent, `${name}.jsonl`);
}

/**
 * Places the session `key` of `corpus`: returns `{ base, repo, env, target }` — the temporary folder to
 * remove afterwards, the repository to run the CLI in, the environment to run it with, and where the
 * session file was written.
 */
export function placeSession(corpus, key) {
  const [agent, name] = key.split('/');
  const text = fs.readFileSync(sessionFile(corpus, key), 'utf8');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-real-'));
  const repo = path.join(base, 'repo');
  const home = path.join(base, 'home');
  const claudeDir = path.join(base, 'claude');
  const codexHome = path.join(base, 'codex');
  const xdgConfig = path.join(home, '.config');
  for (const d of [repo, home, claudeDir, codexHome]) fs.mkdirSync(d, { recursive: true });
  let branch = 'main';
  let original;
  let target;
  let content;
  try {
    if (agent === 'claude') {
      original = firstJson(text, (o) => (typeof o.cwd === 'string' ? o.cwd : null));
      branch = firstJson(text, (o) => (typeof o.gitBranch === 'string' && o.gitBranch && o.gitBranch !== 'HEAD' ? o.gitBranch : null)) ?? 'main';
      const sessionId = firstJson(text, (o) => (typeof o.sessionId === 'string' ? o.sessionId : null)) ?? name;
      target = path.join(claudeDir, 'projects', slug(repo), `${sessionId}.jsonl`);
      if (original) content = rewriteLines(text, original, repo);
    } else if (agent === 'codex') {
      const meta = firstJson(text, (o) => (o.type === 'session_meta' ? o.payload : null));
      original = meta?.cwd;
      branch = meta?.git?.branch || 'main';
      const started = new Date(meta?.timestamp ?? Date.now());
      const p2 = (n) => String(n).padStart(2, '0');
      const day = path.join(String(started.getUTCFullYear()), p2(started.getUTCMonth() + 1), p2(started.getUTCDate()));
      const stamp = `${started.getUTCFullYear()}-${p2(started.getUTCMonth() + 1)}-${p2(started.getUTCDate())}T${p2(started.getUTCHours())}-${p2(started.getUTCMinutes())}-${p2(started.getUTCSeconds())}`;
      target = path.join(codexHome, 'sessions', day, `rollout-${stamp}-${meta?.id ?? name}.jsonl`);
      if (original) content = rewriteLines(text, original, repo);
    } else if (agent === 'cline') {
      const messages = JSON.parse(text);
      if (!Array.isArray(messages) || messages.length === 0) throw new Error(`${key}: ui_messages.json holds no messages`);
      original = clineCwd(messages);
      if (original) {
        const rewritten = mapStrings(messages, rewriter(original, repo));
        const taskId = String(rewritten[0].ts);
        const storage = path.join(xdgConfig, 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
        target = path.join(storage, 'tasks', taskId, 'ui_messages.json');
        content = JSON.stringify(rewritten);
        const last = rewritten[rewritten.length - 1];
        const history = [{ id: taskId, ts: typeof last?.ts === 'number' ? last.ts : Number(taskId), task: clineTask(rewritten), cwdOnTaskInitialization: repo, tokensIn: 0, tokensOut: 0, totalCost: 0 }];
        fs.mkdirSync(path.join(storage, 'state'), { recursive: true });
        fs.writeFileSync(path.join(storage, 'state', 'taskHistory.json'), JSON.stringify(history));
      }
    } else {
      throw new Error(`${key}: unknown agent folder ${agent}`);
    }
    if (!original) throw new Error(`${key}: no cwd found in the session`);
    git(repo, 'init', '-q', '-b', branch);
    fs.writeFileSync(path.join(repo, 'README.md'), '# test repository\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
  } catch (e) {
    fs.rmSync(base, { recursive: true, force: true });
    throw e;
  }
  const env = { ...process.env, HOME: home, USERPROFILE: home, CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexHome, XDG_CONFIG_HOME: xdgConfig, XDG_STATE_HOME: path.join(home, '.local', 'state'), XDG_CACHE_HOME: path.join(home, '.cache'), NO_COLOR: '1' };
  delete env.CLAUDE_CODE_PROJECT_DIR_NAME;
  return { base, repo, env, target };
}

/** Runs the built CLI (`cli`) with `args` in `cwd`. */
export function runCli(cli, env, cwd, ...args) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** The newest `handoff.json` under `dir`, or null. */
export function findPacket(dir) {
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
