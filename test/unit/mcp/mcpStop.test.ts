import * as assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createWriteStream, existsSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeCall } from '../helpers/agentLines';
import { makeTempDir, repoRoot } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { workbenchRepo } from '../helpers/workbenchRepo';

// The server's processes end with their call or their client; a slow read never answers "still
// reading" on a small session. Every wait here is for a state (a process there or gone, an answer),
// never a measure of time: a `git` that waits until told stands in for a slow read.

const cli = () => path.join(repoRoot(), 'dist', 'cli.js');
const temps: string[] = [];
after(() => Promise.all(temps.map((d) => fs.rm(d, { recursive: true, force: true }))));

/** True while the process runs (a zombie, waiting to be reaped, has ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The processes a process started (its direct children). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

async function until(what: string, ok: () => boolean): Promise<void> {
  // A bound only so that a broken build fails instead of hanging; no assertion rests on it.
  for (let i = 0; i < 1200; i++) {
    if (ok()) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.fail(`never: ${what}`);
}

interface Setup {
  env: Record<string, string>;
  /** The pids of the `git` runs so far (each waits until `release`). */
  gits: () => number[];
  release: () => Promise<void>;
  home: string;
}

/** A home of its own and a `git` first on PATH that records its pid and waits until released. */
async function setup(): Promise<Setup> {
  const home = await makeTempDir('mcp-stop-');
  temps.push(home);
  const bin = path.join(home, 'bin');
  await fs.mkdir(bin);
  const pids = path.join(home, 'git.pids');
  const released = path.join(home, 'released');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await fs.writeFile(path.join(bin, 'git'), `#!/bin/sh\necho $$ >> '${pids}'\nwhile [ ! -f '${released}' ]; do sleep 0.05; done\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex'), XDG_STATE_HOME: path.join(home, '.state'), PATH: `${bin}:${process.env['PATH'] ?? ''}` };
  const gits = () => (existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number) : []);
  return { env, gits, release: () => fs.writeFile(released, ''), home };
}

/** The server started as an agent starts it, spoken to line by line. */
function server(cwd: string, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [cli(), 'mcp', ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] }) as ChildProcessWithoutNullStreams;
  const replies = new Map<number, Record<string, unknown>>();
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      const r = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      replies.set(r['id'] as number, r);
      buf = buf.slice(nl + 1);
    }
  });
  const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ method: 'notifications/initialized' });
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => send({ id, method: 'tools/call', params: { name, arguments: args } });
  const text = (id: number) => ((replies.get(id)?.['result'] as { content?: { text: string }[] } | undefined)?.content ?? []).map((c) => c.text).join('\n');
  return { child, replies, send, call, text };
}

describe('handoff mcp: its processes end with their call or client; a small session is read whole', function () {
  this.timeout(180_000);
  if (process.platform !== 'linux') return;
  const make = tempRepos(workbenchRepo);
  const started: ChildProcessWithoutNullStreams[] = [];
  afterEach(() => started.splice(0).forEach((c) => c.kill('SIGKILL')));

  it('a client that goes away mid-generate leaves no process running: the server, its handoff child and the git it ran end', async () => {
    const r = make();
    const s = await setup();
    const srv = server(r.dir, s.env);
    started.push(srv.child);
    srv.call(1, 'handoff_generate', { goal: 'ship refunds' });
    await until('the generate child runs git', () => s.gits().length > 0);
    const kids = childrenOf(srv.child.pid!);
    assert.ok(kids.length >= 1, 'the generate child is running');
    const all = [srv.child.pid!, ...kids, ...s.gits()];
    assert.ok(all.every(alive));
    // The client dies: both ends of its pipes close.
    srv.child.stdin.destroy();
    srv.child.stdout.destroy();
    await until('every process has ended', () => !all.some(alive));
    assert.deepEqual(all.filter(alive), []);
  });

  it('notifications/cancelled stops that call\'s child (and its git); the server goes on answering', async () => {
    const r = make();
    const s = await setup();
    const srv = server(r.dir, s.env, ['--answer-within', '600000']);
    started.push(srv.child);
    srv.call(1, 'handoff_generate');
    await until('the generate child runs git', () => s.gits().length > 0);
    const work = [...childrenOf(srv.child.pid!), ...s.gits()];
    assert.ok(work.length >= 2 && work.every(alive));
    srv.send({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'the user pressed Esc' } });
    await until('the cancelled call\'s processes have ended', () => !work.some(alive));
    srv.send({ id: 2, method: 'ping' });
    await until('ping answered', () => srv.replies.has(2));
    assert.deepEqual(srv.replies.get(2)?.['result'], {});
    assert.equal(srv.replies.has(1), false, 'a cancelled request is not answered');
    assert.ok(alive(srv.child.pid!));
    assert.deepEqual(childrenOf(srv.child.pid!).filter(alive), []);
  });

  it('runs two processes at a time, queues four, and refuses the next call with a clear error', async () => {
    const r = make();
    const s = await setup();
    const srv = server(r.dir, s.env, ['--answer-within', '600000']);
    started.push(srv.child);
    for (let id = 1; id <= 7; id++) srv.call(id, 'handoff_generate', { goal: `goal ${id}` });
    await until('the seventh call is refused', () => srv.replies.has(7));
    const refused = srv.replies.get(7)!['result'] as { isError?: boolean };
    assert.equal(refused.isError, true);
    assert.match(srv.text(7), /^busy: 2 calls are running and 4 waiting.*call again once one of them has answered/);
    await until('two generate children run git', () => new Set(s.gits()).size >= 2);
    assert.equal(childrenOf(srv.child.pid!).filter(alive).length, 2, 'two children, not seven');
    for (let id = 1; id <= 6; id++) assert.equal(srv.replies.has(id), false);
    // Released, every queued call runs and is answered with its packet.
    await s.release();
    await until('the six calls are answered', () => [1, 2, 3, 4, 5, 6].every((id) => srv.replies.has(id)));
    for (let id = 1; id <= 6; id++) assert.equal((JSON.parse(srv.text(id)) as { kind: string }).kind, 'written', srv.text(id));
  });

  it('a small session is never answered with "still reading", however long its read takes', async () => {
    const r = make();
    const s = await setup();
    const srv = server(r.dir, s.env, ['--answer-within', '100']);
    started.push(srv.child);
    srv.call(1, 'handoff_status');
    await until('the status child runs git', () => s.gits().length > 0);
    // Past the call's deadline (the git it waits on started after the call did): no partial answer.
    srv.send({ id: 2, method: 'ping' });
    await until('ping answered', () => srv.replies.has(2));
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(srv.replies.has(1), false, srv.text(1));
    await s.release();
    await until('status answered', () => srv.replies.has(1));
    assert.doesNotMatch(srv.text(1), /Still/);
    assert.match(srv.text(1), /Clean    /);
  });

  it('a big session past the deadline is answered with what is known, names the session and its size; the packet comes with a later call', async () => {
    const r = make();
    const s = await setup();
    const projects = path.join(s.env['CLAUDE_CONFIG_DIR']!, 'projects', path.resolve(r.dir).replace(/[^a-zA-Z0-9]/g, '-'));
    await fs.mkdir(projects, { recursive: true });
    const out = createWriteStream(path.join(projects, 'big-session.jsonl'));
    const pad = 'x'.repeat(16 * 1024);
    for (let i = 0, size = 0; size < 20 * 1024 * 1024; i++) {
      const line = claudeCall({ sessionId: 'big-session', cwd: r.dir, input: 1000 + i, id: `msg_${i}`, text: pad });
      size += Buffer.byteLength(line);
      if (!out.write(line)) await new Promise((res) => out.once('drain', () => res(undefined)));
    }
    await new Promise<void>((res) => out.end(() => res()));
    const srv = server(r.dir, s.env, ['--answer-within', '100']);
    started.push(srv.child);
    const names = ['handoff_status', 'handoff_generate', 'handoff_risks', 'handoff_prompt'];
    names.forEach((name, i) => srv.call(i + 1, name));
    await until('all four answered', () => [1, 2, 3, 4].every((id) => srv.replies.has(id)));
    for (const [i, name] of names.entries()) {
      const t = srv.text(i + 1);
      assert.match(t, /(^|\n)Still /, `${name}: ${t}`);
      assert.match(t, name === 'handoff_prompt' ? /handoff packet/ : /big-session\.jsonl \(2\d MB\)/, `${name}: ${t}`);
    }
    assert.match(srv.text(1), /Context  /, 'the context reading is known at once');
    await s.release();
    let id = 10;
    for (; id < 600; id++) {
      srv.call(id, 'handoff_generate');
      await until(`generate ${id} answered`, () => srv.replies.has(id));
      if (srv.text(id).startsWith('{')) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.match(srv.text(id), /"packetDir"/);
  });
});
