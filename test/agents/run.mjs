// The `agents` tier: the real Claude Code and Codex CLIs (pinned in test/e2e/tools/agents) against a
// scripted model on 127.0.0.1 (modelServer.mjs), each in a temporary HOME and git repository after
// `handoff setup <agent>`. Nothing but loopback is reached. Prints `agents: N passed, N failed`.
// Usage: node test/agents/run.mjs   (after node esbuild.mjs --all; installs the agents when missing)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { claudeBin, codexBin, install } from './install.mjs';
import { startModelServer } from './modelServer.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist/cli.js');
const AGENT_SET_TIMEOUT_MS = 240_000;
const TIER_TIMEOUT_MS = 12 * 60_000;

/** A temporary HOME with a git repository, a `handoff` launcher on PATH and env that keeps the agent on loopback. */
function sandbox(server) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-agents-'));
  const repo = path.join(home, 'repo');
  const bin = path.join(home, 'bin');
  fs.mkdirSync(repo);
  fs.mkdirSync(bin);
  const launcher = path.join(bin, 'handoff');
  fs.writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
  const env = {
    PATH: [bin, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: home, TMPDIR: os.tmpdir(), LANG: 'C.UTF-8', TERM: 'dumb',
    XDG_CONFIG_HOME: path.join(home, '.config'), XDG_STATE_HOME: path.join(home, '.local/state'),
    // Claude Code: the scripted model, a dummy key, no telemetry, updates or other traffic; bypass
    // permissions is allowed as root only in a sandbox; MCP tools offered up front, not deferred.
    ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'dummy', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', IS_SANDBOX: '1', ENABLE_TOOL_SEARCH: 'false',
    // Codex: its home, a dummy key (the provider in config.toml points at loopback).
    CODEX_HOME: path.join(home, '.codex'), OPENAI_API_KEY: 'dummy',
  };
  const git = (...args) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: repo, env, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  git('add', '.');
  git('commit', '-qm', 'initial');
  const handoff = (...args) => spawnSync(process.execPath, [cli, ...args], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
  return { home, repo, env, launcher, handoff, cleanup: () => { if (process.env.HANDOFF_AGENTS_KEEP) console.log(`  kept: ${home}`); else {
    // A detached packet writer of the last session may still be at work: retry, and never fail the tier over it.
    try { fs.rmSync(home, { recursive: true, force: true, maxRetries: 25, retryDelay: 200 }); } catch (e) { console.log(`  (temporary home left behind: ${e.code ?? e})`); }
  } } };
}

/** Runs an agent in its own process group; the whole group is killed when `deadline` passes. */
function runAgent(cmd, args, { cwd, env, deadline }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, Math.max(1, deadline - Date.now()));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* the group is gone */ }
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** The packets written in the repository, newest last. */
function packets(repo) {
  const dir = path.join(repo, 'outputs/handoff');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, 'handoff.md')))
    .map((d) => ({ id: d, md: fs.readFileSync(path.join(dir, d, 'handoff.md'), 'utf8'), mtime: fs.statSync(path.join(dir, d, 'handoff.md')).mtimeMs }))
    .sort((a, b) => a.mtime - b.mtime);
}
/**
 * The packet of a session. The SessionEnd hook hands the writing to a detached process that may still be
 * at work when the agent exits: wait for it (a bound on waiting, not a timing assertion).
 */
async function packetOf(repo, sessionId) {
  for (let i = 0; i < 300; i++) {
    const p = packets(repo).find((x) => x.id.startsWith(sessionId));
    if (p && nextAction(p.md)) return p;
    await new Promise((r) => setTimeout(r, 200));
  }
  return null;
}
/**
 * The hook log once a line of it matches `re`: an event handed to the background worker is logged when
 * the worker is done, which on a busy machine can be well after the agent exited. Its text as it is
 * after 60 s otherwise (a bound for a hang, not a speed check).
 */
async function hookLogWith(repo, re) {
  const file = path.join(repo, 'outputs/handoff/hook.log');
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  for (let i = 0; i < 300 && !re.test(read()); i++) await new Promise((r) => setTimeout(r, 200));
  return read();
}
/** The quoted next action of a packet. */
function nextAction(md) {
  const m = /## Next action[^\n]*\n+> ([^\n]+)/.exec(md);
  return m ? m[1] : null;
}
/** All text of an Anthropic request: system blocks and every message's text / tool results. */
function anthropicText(body) {
  const parts = [];
  const walk = (v) => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') { if (typeof v.text === 'string') parts.push(v.text); if (v.content !== undefined) walk(v.content); }
  };
  walk(body.system);
  walk(body.messages);
  return parts.join('\n');
}

const results = [];
async function test(name, fn) {
  try {
    const r = await fn();
    if (r === 'pending') { results.push({ name, ok: true, pending: true }); console.log(`  - ${name} (pending)`); return; }
    results.push({ name, ok: true });
    console.log(`  ✓ ${name}`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`  ✗ ${name}\n    ${String(e instanceof Error ? e.stack ?? e.message : e).split('\n').slice(0, 6).join('\n    ')}`);
  }
}
const pendingNotes = [];

async function claudeScenarios(server) {
  console.log('Claude Code');
  const sb = sandbox(server);
  const deadline = Date.now() + AGENT_SET_TIMEOUT_MS;
  const claude = (args) => runAgent(claudeBin, ['-p', ...args, '--output-format', 'json', '--dangerously-skip-permissions'], { cwd: sb.repo, env: sb.env, deadline });
  const sessionOf = (r) => { try { return JSON.parse(r.stdout).session_id; } catch { throw new Error(`claude gave no JSON result (status ${r.status} ${r.signal ?? ''}): ${r.stdout.slice(0, 400)} ${r.stderr.slice(0, 400)}`); } };
  let first = null;
  try {
    await test('claude: setup claude writes the hooks and the MCP server', () => {
      const r = sb.handoff('setup', 'claude', '--launcher', sb.launcher);
      assert.equal(r.status, 0, r.stderr);
      const settings = JSON.parse(fs.readFileSync(path.join(sb.home, '.claude/settings.json'), 'utf8'));
      assert.ok(settings.hooks?.SessionStart && settings.hooks?.SessionEnd, 'SessionStart and SessionEnd hooks');
      assert.ok(JSON.parse(fs.readFileSync(path.join(sb.home, '.claude.json'), 'utf8')).mcpServers?.handoff, 'the handoff MCP server');
    });
    await test('claude: `claude mcp list` shows the server connected and is no session (no packet, nothing logged)', async () => {
      const r = await runAgent(claudeBin, ['mcp', 'list'], { cwd: sb.repo, env: sb.env, deadline });
      assert.match(r.stdout, /handoff:[^\n]*Connected/, `mcp list: ${r.stdout.slice(0, 400)} ${r.stderr.slice(0, 400)}`);
      // SessionEnd fires on exit and hands the writing to a detached process: give it the time it takes.
      await new Promise((res) => setTimeout(res, 1500));
      const log = path.join(sb.repo, 'outputs/handoff/hook.log');
      assert.equal(packets(sb.repo).length, 0, 'a packet was written for `claude mcp list`');
      assert.ok(!fs.existsSync(log) || !/no session|no packet written/i.test(fs.readFileSync(log, 'utf8')), fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '');
    });
    await test('claude: a working session runs a command, edits a file, and leaves a packet', async () => {
      server.reset();
      server.setUsage({ input: 125_000, output: 400, cacheRead: 0, cacheCreation: 0 });
      server.script([
        { tool: { name: 'Bash', input: { command: 'git status --short', description: 'status' } } },
        { tool: { name: 'Write', input: { file_path: path.join(sb.repo, 'notes.txt'), content: 'notes\n' } } },
        { text: 'All done: wrote notes.txt.' },
      ]);
      const r = await claude(['write notes.txt']);
      first = sessionOf(r);
      assert.equal(fs.readFileSync(path.join(sb.repo, 'notes.txt'), 'utf8'), 'notes\n');
      const turns = server.turns();
      assert.equal(turns.length, 3, 'three model turns');
      assert.match(JSON.stringify(turns[1].body.messages), /tool_result/, 'the command output came back to the model');
      const p = await packetOf(sb.repo, first);
      assert.ok(p, `a packet for session ${first}: ${fs.existsSync(path.join(sb.repo, 'outputs/handoff')) ? fs.readdirSync(path.join(sb.repo, 'outputs/handoff')) : 'none'}`);
      assert.match(p.md, /notes\.txt/);
      assert.match(nextAction(p.md) ?? '', /All done: wrote notes\.txt/);
      // Every line type this version writes is one the reader knows; nothing of ours in the repository root.
      assert.doesNotMatch(p.md, /lines? of unknown types? skipped[^\n]*/);
      assert.deepEqual(fs.readdirSync(sb.repo).filter((f) => f !== '.git').sort(), ['README.md', 'notes.txt', 'outputs']);
    });
    await test('claude: the meter agrees with the usage the model reported (1 000 000 window)', () => {
      const r = sb.handoff('status', '--json');
      assert.equal(r.status, 0, r.stderr);
      const cur = JSON.parse(r.stdout).context?.current;
      assert.ok(cur?.known, `a context reading: ${JSON.stringify(cur)}`);
      const used = 125_000 + 400;
      const window = cur.windowTokens;
      assert.equal(window, 1_000_000, 'claude-opus-5-5 has a 1 000 000-token window, as Claude Code itself reports');
      const pct = cur.percent;
      assert.ok(Math.abs(pct - (used / 1_000_000) * 100) <= 1, `meter ${pct} % vs ${(used / 10_000).toFixed(1)} %`);
    });
    await test('claude: the next session gets the handoff whole in its first request', async () => {
      const before = await packetOf(sb.repo, first);
      const prompt = sb.handoff('prompt');
      assert.equal(prompt.status, 0, prompt.stderr);
      server.reset();
      server.script([{ text: 'Checked: notes.txt is there. Next: ask the user.' }]);
      await claude(['continue']);
      const turn = server.turns()[0];
      assert.ok(turn, 'a model request');
      const text = anthropicText(turn.body);
      const at = text.indexOf('SessionStart hook additional context:');
      assert.ok(at >= 0, 'the SessionStart context reached the model');
      const injected = text.slice(at);
      assert.ok(injected.includes(nextAction(before.md)), 'the next action is in it');
      assert.ok(injected.includes(prompt.stdout.trim()), 'the handoff is in it whole');
    });
    await test('claude: --resume continues the first session with its history', async () => {
      server.reset();
      server.script([{ text: 'Resumed.' }]);
      const r = await claude(['--resume', first, 'one more thing']);
      assert.equal(sessionOf(r), first);
      const turn = server.turns()[0];
      assert.ok(turn, 'a model request');
      assert.match(JSON.stringify(turn.body.messages), /write notes\.txt/, 'the earlier prompt is in the resumed history');
    });
    await test('claude: /compact compacts the session, and the handoff comes back right after it', async () => {
      server.reset();
      server.script([]);
      const r = await claude(['--resume', first, '/compact']);
      assert.equal(r.status, 0, r.stderr.slice(0, 400));
      const projects = path.join(sb.home, '.claude/projects');
      const transcript = fs.readdirSync(projects).map((d) => path.join(projects, d, `${first}.jsonl`)).find((f) => fs.existsSync(f));
      assert.ok(transcript, 'the resumed transcript');
      const lines = fs.readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const boundary = lines.findIndex((o) => o.subtype === 'compact_boundary');
      assert.ok(boundary >= 0, 'Claude Code compacted the session');
      // The SessionStart(compact) hook's answer is what the model sees after the summary.
      const injected = lines.slice(boundary).find((o) => o.attachment?.type === 'hook_additional_context' && o.attachment.hookEvent === 'SessionStart');
      assert.ok(injected, 'the handoff was added after the compaction');
      const text = [].concat(injected.attachment.content).join('\n');
      assert.match(text, /the conversation was just compacted/);
      const packet = /the handoff packet (\S+) /.exec(text)?.[1];
      assert.ok(packet?.startsWith(first), `the handoff names this session's packet: ${text.slice(0, 300)}`);
      const md = fs.readFileSync(path.join(sb.repo, 'outputs/handoff', packet, 'handoff.md'), 'utf8');
      assert.ok(text.includes(nextAction(md)), 'the next action handed on is the packet\'s');
    });
    await test('claude: an MCP tool call through the model reaches the handoff server and its answer the model', async () => {
      server.reset();
      server.script([
        { tool: { name: 'mcp__handoff__handoff_status', input: {} } },
        { text: 'Status read.' },
      ]);
      await claude(['what is the handoff status?']);
      const turns = server.turns();
      assert.ok(turns[0]?.body.tools.some((t) => t.name === 'mcp__handoff__handoff_status'), 'the model was offered handoff_status');
      assert.ok(turns[1], 'a second request with the tool result');
      const msgs = turns[1].body.messages;
      const result = msgs[msgs.length - 1].content.find?.((c) => c.type === 'tool_result');
      assert.ok(result, 'a tool_result');
      assert.notEqual(result.is_error, true, JSON.stringify(result).slice(0, 400));
      const txt = anthropicText({ messages: [{ content: result.content }] });
      assert.ok(txt.length > 20 && !/still reading/i.test(txt), `an answer: ${txt.slice(0, 200)}`);
    });
    await test('claude: a session that does nothing leaves the previous next action in force', async () => {
      // The next action in force before: the one the handoff gives once the MCP session's packet is
      // written (by a detached process after Claude Code exits; a 60 s bound: beside two CPU-bound
      // processes the worker can take well over the few seconds it takes on a quiet machine).
      let before = '';
      for (let i = 0; i < 300 && !before.includes('Status read.'); i++) {
        if (i) await new Promise((r) => setTimeout(r, 200));
        before = sb.handoff('prompt').stdout;
      }
      const keep = /NEXT ACTION[^\n]*\n> ([^\n]+)/.exec(before)?.[1];
      assert.ok(keep, `a next action before: ${before.slice(0, 600)}`);
      server.reset();
      server.script([{ text: 'Hello.' }]);
      await claude(['hi']);
      const r = sb.handoff('prompt');
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stdout.includes(keep), `the handoff still says: ${keep}\n got: ${r.stdout.split("\n").filter((l) => /NEXT ACTION|^> |Derived/.test(l)).slice(0, 4).join("\n")}`);
    });
  } finally {
    sb.cleanup();
  }
}

/** Codex's shell tool, whichever of its forms this version offers, running `cmd`. */
function shellCall(body, cmd) {
  const names = (body.tools ?? []).map((t) => t.name ?? t.function?.name);
  if (names.includes('exec_command')) return { call: { name: 'exec_command', arguments: { cmd } } };
  if (names.includes('shell_command')) return { call: { name: 'shell_command', arguments: { command: cmd } } };
  return { call: { name: 'shell', arguments: { command: ['bash', '-lc', cmd] } } };
}
/** All text of a Responses request's input items of one role. */
const inputText = (body, role) => (body.input ?? []).filter((i) => i.role === role).map((i) => (Array.isArray(i.content) ? i.content.map((c) => c.text ?? '').join('\n') : String(i.content ?? ''))).join('\n');

async function codexScenarios(server) {
  console.log('Codex');
  const sb = sandbox(server);
  const deadline = Date.now() + AGENT_SET_TIMEOUT_MS;
  const codexHome = sb.env.CODEX_HOME;
  fs.mkdirSync(codexHome, { recursive: true });
  const configFile = path.join(codexHome, 'config.toml');
  fs.writeFileSync(configFile, [
    'model = "gpt-5.5"', 'model_provider = "scripted"', '',
    '[model_providers.scripted]', 'name = "scripted"', `base_url = "${server.url}/v1"`, 'wire_api = "responses"', 'env_key = "OPENAI_API_KEY"', '',
  ].join('\n'));
  const codex = (args) => runAgent(process.execPath, [codexBin, 'exec', ...args], { cwd: sb.repo, env: sb.env, deadline });
  const flags = ['--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'];
  const threadOf = (r) => {
    const line = r.stdout.split('\n').find((l) => l.includes('"thread.started"'));
    if (!line) throw new Error(`codex gave no thread (status ${r.status} ${r.signal ?? ''}): ${r.stdout.slice(-600)} ${r.stderr.slice(-600)}`);
    return JSON.parse(line).thread_id;
  };
  let first = null;
  try {
    await test('codex: setup codex, then --check says untrusted until the trust is recorded in [hooks.state]', () => {
      const r = sb.handoff('setup', 'codex', '--launcher', sb.launcher);
      assert.equal(r.status, 0, r.stderr);
      const before = sb.handoff('setup', 'codex', '--check');
      assert.notEqual(before.status, 0, 'untrusted hooks are not ok');
      assert.match(before.stdout + before.stderr, /not trusted yet/);
      // What /hooks records when the user approves each hook: its key and current hash.
      const hooksFile = path.join(codexHome, 'hooks.json');
      const { codexHookTrust } = createRequire(import.meta.url)(path.join(root, 'out/src/core/setup/codexTrust.js'));
      const statuses = codexHookTrust(hooksFile, JSON.parse(fs.readFileSync(hooksFile, 'utf8')), {});
      assert.ok(statuses.length > 0, 'our hooks are in hooks.json');
      fs.appendFileSync(configFile, `\n${statuses.map((s) => `[hooks.state.${JSON.stringify(s.key)}]\ntrusted_hash = ${JSON.stringify(s.hash)}\n`).join('\n')}`);
      const after = sb.handoff('setup', 'codex', '--check');
      assert.equal(after.status, 0, after.stdout + after.stderr);
      assert.doesNotMatch(after.stdout, /not trusted yet/);
    });
    await test('codex: a working session runs a command that edits a file, and leaves a packet', async () => {
      server.reset();
      server.setUsage({ input: 20_000, output: 300, cacheRead: 0, cacheCreation: 0 });
      server.script([
        (body) => shellCall(body, 'git status --short && printf "notes\\n" > notes.txt'),
        { text: 'All done: wrote notes.txt.' },
      ]);
      const r = await codex([...flags, 'write notes.txt']);
      first = threadOf(r);
      assert.equal(fs.readFileSync(path.join(sb.repo, 'notes.txt'), 'utf8'), 'notes\n', r.stderr.slice(-800));
      const p = await packetOf(sb.repo, first);
      assert.ok(p, `a packet for thread ${first}: ${fs.existsSync(path.join(sb.repo, 'outputs/handoff')) ? fs.readdirSync(path.join(sb.repo, 'outputs/handoff')) : 'none'}`);
      assert.match(nextAction(p.md) ?? '', /All done: wrote notes\.txt/);
      // Every line type this version writes is one the reader knows; nothing of ours in the repository root.
      assert.doesNotMatch(p.md, /lines? of unknown types? skipped[^\n]*/);
      assert.deepEqual(fs.readdirSync(sb.repo).filter((f) => f !== '.git').sort(), ['README.md', 'notes.txt', 'outputs']);
    });
    await test('codex: the meter agrees with the figure Codex itself shows (its window, less its 12 000-token baseline)', () => {
      const r = sb.handoff('status', '--json');
      assert.equal(r.status, 0, r.stderr);
      const cur = JSON.parse(r.stdout).context?.current;
      assert.ok(cur?.known && cur.source === 'codex', `a Codex reading: ${JSON.stringify(cur)}`);
      // What Codex recorded for its last turn, and the "% context left" its terminal UI derives from it.
      const rollouts = [];
      const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const f = path.join(d, e.name); if (e.isDirectory()) walk(f); else if (f.endsWith('.jsonl')) rollouts.push(f); } };
      walk(path.join(codexHome, 'sessions'));
      const rollout = rollouts.find((f) => f.includes(first));
      assert.ok(rollout, `the rollout of ${first}`);
      const info = fs.readFileSync(rollout, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
        .filter((o) => o.payload?.type === 'token_count' && o.payload.info).map((o) => o.payload.info).at(-1);
      assert.ok(info?.model_context_window, 'Codex recorded its window');
      assert.equal(cur.windowTokens, info.model_context_window);
      const BASELINE = 12_000;
      const effective = info.model_context_window - BASELINE;
      const left = Math.round(Math.max(0, effective - Math.max(0, info.last_token_usage.total_tokens - BASELINE)) / effective * 100);
      assert.ok(Math.abs((100 - cur.percent) - left) <= 1, `meter ${cur.percent} % used vs Codex's ${left} % left`);
    });
    await test('codex: the next session gets the handoff whole as a developer message', async () => {
      const prompt = sb.handoff('prompt', '--for', 'codex');
      assert.equal(prompt.status, 0, prompt.stderr);
      server.reset();
      server.script([{ text: 'Checked.' }]);
      await codex([...flags, 'continue']);
      const turn = server.turns()[0];
      assert.ok(turn, 'a model request');
      const dev = inputText(turn.body, 'developer');
      assert.ok(dev.includes(nextAction((await packetOf(sb.repo, first)).md)), 'the next action is in a developer item');
      const missing = prompt.stdout.split('\n').filter((l) => l.trim() && !dev.includes(l));
      assert.deepEqual(missing, [], `every line of the handoff is in it:\n${dev.slice(0, 3000)}`);
    });
    await test('codex: exec resume continues the first thread with its history', async () => {
      server.reset();
      server.script([{ text: 'Resumed.' }]);
      const r = await codex(['resume', ...flags, first, 'one more thing']);
      assert.equal(threadOf(r), first);
      assert.match(inputText(server.turns()[0].body, 'user'), /write notes\.txt/);
    });
    await test('codex: a session that does nothing leaves the previous next action in force', async () => {
      // The next action in force before: the one the handoff gives now.
      // The resume's packet is written by a detached process after Codex exits: wait for it (60 s bound).
      let before = '';
      for (let i = 0; i < 300 && !before.includes('Resumed.'); i++) {
        if (i) await new Promise((r) => setTimeout(r, 200));
        before = sb.handoff('prompt', '--for', 'codex').stdout;
      }
      const keep = /NEXT ACTION[^\n]*\n> ([^\n]+)/.exec(before)?.[1];
      assert.ok(keep, `a next action before: ${before.slice(0, 600)}`);
      server.reset();
      server.script([{ text: 'Hello.' }]);
      await codex([...flags, 'hi']);
      const r = sb.handoff('prompt', '--for', 'codex');
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stdout.includes(keep), `the handoff still says: ${keep}\n got: ${r.stdout.split("\n").filter((l) => /NEXT ACTION|^> |Derived/.test(l)).slice(0, 4).join("\n")}`);
    });
    await test('codex: an MCP tool call through the model reaches the handoff server and its answer the model', async () => {
      server.reset();
      // Codex 0.169 offers MCP tools behind `tool_search`: the model searches, the next request carries
      // the tool found, the model calls it, and the answer comes back in the request after.
      let found = null;
      server.script([
        { item: { type: 'tool_search_call', call_id: 'ts_1', status: 'completed', execution: 'client', arguments: { query: 'handoff status', limit: 8 } } },
        (body) => {
          const tools = JSON.stringify(body.tools ?? []) + JSON.stringify(body.input ?? []);
          found = /handoff_status/.test(tools) ? body : null;
          const offered = [...(body.tools ?? []), ...(body.input ?? []).filter((i) => i.type === 'tool_search_output').flatMap((i) => i.tools ?? [])];
          const ns = offered.find((t) => t.type === 'namespace' && /handoff/.test(t.name ?? ''));
          const fn = (ns ? ns.tools ?? [] : offered).find((t) => /handoff_status$/.test(t.name ?? ''));
          return fn ? { call: { name: fn.name, arguments: {}, ...(ns ? { namespace: ns.name } : {}) } } : { text: 'no tool' };
        },
        { text: 'Status read.' },
      ]);
      const r = await codex([...flags, 'what is the handoff status?']);
      const turns = server.turns();
      assert.ok(found, `tool_search found handoff_status for the next request: ${r.stdout.slice(-600)}`);
      const out = (turns[2]?.body.input ?? []).find((i) => i.type === 'function_call_output');
      assert.ok(out, `a function_call_output came back: ${r.stdout.slice(-600)}`);
      const txt = typeof out.output === 'string' ? out.output : JSON.stringify(out.output);
      assert.ok(txt.length > 20 && !/still reading|is not a function|unknown tool|not found/i.test(txt), `an answer: ${txt.slice(0, 300)}`);
    });
    await test('codex: an auto-compaction mid-turn writes the packet first (PreCompact) and hands it back right after the summary', async () => {
      server.reset();
      // Over the compaction limit after the first reply: Codex compacts before it sends the command's output.
      server.setUsage({ input: 20_000, output: 300, cacheRead: 0, cacheCreation: 0 });
      server.script([(body) => shellCall(body, 'printf "more\\n" >> notes.txt'), { text: 'Appended to notes.txt.' }]);
      const r = await codex(['-c', 'model_auto_compact_token_limit=15000', ...flags, 'append to notes.txt']);
      const thread = threadOf(r);
      // PreCompact hands the writing to the background worker, which logs it when done. Should the
      // packet SessionStart writes again after the compaction have begun first, that one covers the event.
      const precompact = new RegExp(`hook PreCompact: (packet written to [^\\n]*${thread}|the packet begun at [^\\n]* already covers this event)`);
      const log = await hookLogWith(sb.repo, precompact);
      assert.match(log, precompact, `PreCompact wrote a packet:\n${log.slice(-1500)}`);
      // The summary request (Codex's compaction prompt, no tools), then the turn carrying on from the summary.
      const compaction = server.requests.findIndex((q) => inputText(q.body ?? {}, 'user').includes('CONTEXT CHECKPOINT COMPACTION'));
      assert.ok(compaction >= 0, `Codex compacted: ${r.stdout.slice(-600)}`);
      const after = server.requests.slice(compaction + 1).find((q) => (q.body?.input ?? []).length);
      assert.ok(after, 'a request after the compaction');
      const dev = inputText(after.body, 'developer');
      assert.match(dev, /the conversation was just compacted/);
      // The packet it hands back is one of this thread's (PreCompact's, or SessionStart's own rewrite of it).
      assert.ok(await packetOf(sb.repo, thread), 'a packet of the thread');
      const actions = packets(sb.repo).filter((p) => p.id.startsWith(thread)).map((p) => nextAction(p.md)).filter(Boolean);
      assert.ok(actions.some((a) => dev.includes(a)), `one of the packets' next actions (${actions.join(' | ')}) is in it:\n${dev.slice(0, 1500)}`);
    });
  } finally {
    sb.cleanup();
  }
}

async function main() {
  const started = Date.now();
  const tierTimer = setTimeout(() => { console.log('agents: the tier ran out of its time budget'); process.exit(1); }, TIER_TIMEOUT_MS);
  if (!fs.existsSync(cli)) { console.log('agents: 0 passed, 1 failed (build first: node esbuild.mjs --all)'); process.exit(1); }
  try { install(); } catch (e) {
    console.log(`agents: 0 passed, 1 failed (the agents could not be installed: ${e instanceof Error ? e.message : e})`);
    process.exit(1);
  }
  const server = await startModelServer();
  try {
    await claudeScenarios(server);
    await codexScenarios(server);
  } finally {
    await server.close();
    clearTimeout(tierTimer);
  }
  for (const n of pendingNotes) console.log(`  pending: ${n}`);
  const passed = results.filter((r) => r.ok && !r.pending).length;
  const failed = results.filter((r) => !r.ok).length;
  const pending = results.filter((r) => r.pending).length;
  console.log(`agents: ${passed} passed, ${failed} failed${pending ? ` (${pending} pending)` : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(failed ? 1 : 0);
}
await main();
