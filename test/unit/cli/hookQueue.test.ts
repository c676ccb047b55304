import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { coalesce, privateQueueDir, QUEUE_FOLDER, runWorker, WORKER_LOCK } from '../../../src/cli/commands/hookDetached';
import type { QueuedEvent } from '../../../src/cli/commands/hookDetached';
import { appendInside } from '../../../src/core/ownLog';
import { redact } from '../../../src/core/redact';
import { makeTempDir, repoRoot } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { workbenchRepo } from '../helpers/workbenchRepo';
import { waitFor } from '../helpers/waitFor';

const main = (): string => path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');
const exists = (p: string): Promise<boolean> => fs.lstat(p).then(() => true, () => false);

/** The `handoff hook` workers of this state folder alive now (not the git they are starting). */
function workersOf(state: string): number[] {
  const found: { pid: number; ppid: number }[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!environ.includes(`HANDOFF_STATE_DIR=${state}`) || !environ.includes('HANDOFF_HOOK_WORKER=1')) continue;
      found.push({ pid: Number(pid), ppid: Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) });
    } catch {
      // gone meanwhile
    }
  }
  const pids = new Set(found.map((p) => p.pid));
  return found.filter((p) => !pids.has(p.ppid)).map((p) => p.pid);
}

const queued = async (state: string): Promise<string[]> => (await fs.readdir(path.join(state, QUEUE_FOLDER)).catch(() => [] as string[])).filter((n) => n.endsWith('.event'));
const drained = async (state: string): Promise<boolean> => (await queued(state)).length === 0 && !(await exists(path.join(state, QUEUE_FOLDER, WORKER_LOCK))) && workersOf(state).length === 0;

function hookAsync(event: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [main(), 'hook'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('close', (code) => res(code));
    child.stdin.end(JSON.stringify(event));
  });
}

describe('SessionEnd hooks: one private queue, one worker (real processes)', function () {
  // Real processes on a machine that may be busy: the waits are for states, with room to reach them.
  this.timeout(180_000);
  if (process.platform !== 'linux') return;
  const make = tempRepos(workbenchRepo);
  let state: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(async () => {
    state = await makeTempDir('handoff-state-');
    const home = await makeTempDir('handoff-home-');
    env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), HANDOFF_STATE_DIR: state };
    delete env['HANDOFF_HOOK_INLINE'];
  });

  it('a burst of 20 SessionEnd hooks starts one worker at a time, writes the packet and leaves an empty private queue', async () => {
    const r = make();
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, workersOf(state).length)), 10);
    try {
      const codes = await Promise.all(Array.from({ length: 20 }, (_, i) => hookAsync({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: `s${i % 3}`, reason: 'exit' }, env)));
      assert.deepEqual(codes, Array.from({ length: 20 }, () => 0));
      await waitFor('the queue drained', () => drained(state), 60_000);
    } finally {
      clearInterval(sampler);
    }
    assert.equal(most, 1, 'exactly one worker ran at a time');
    const log = await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8');
    assert.match(log, /hook SessionEnd: packet written to /);
    assert.ok((await fs.stat(path.join(r.dir, 'outputs/handoff/sess-a/handoff.json'))).isFile());
    const queue = path.join(state, QUEUE_FOLDER);
    assert.equal((await fs.stat(queue)).mode & 0o777, 0o700, 'the queue is private');
    assert.deepEqual((await fs.readdir(queue)).filter((n) => n !== 'folders'), [], 'no event, lock or temp file left');
    assert.deepEqual(await fs.readdir(path.join(queue, 'folders')).catch(() => []), [], 'no per-folder lock folder left');
  });

  it('refuses a queue folder another user made, and says so in the folder\'s hook.log; nothing is started', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const r = make();
    const queue = path.join(state, QUEUE_FOLDER);
    await fs.mkdir(queue, { mode: 0o777 });
    await fs.chown(queue, 4242, 4242);
    assert.equal(await hookAsync({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's1' }, env), 0);
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8'), /no packet written: the hook queue \S+ belongs to another user \(uid 4242\); nothing queued there — remove it/);
    assert.deepEqual(await fs.readdir(queue), [], 'nothing written into the foreign folder');
    assert.deepEqual(workersOf(state), []);
  });

  it('a link in place of the queue folder is refused, not followed', async () => {
    const r = make();
    const elsewhere = await makeTempDir('handoff-elsewhere-');
    await fs.symlink(elsewhere, path.join(state, QUEUE_FOLDER));
    assert.equal(await hookAsync({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's1' }, env), 0);
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8'), /the hook queue \S+ is not a folder \(a link or a file is in its place\)/);
    assert.deepEqual(await fs.readdir(elsewhere), []);
  });

  it('a state folder that cannot be written: the hook returns, says why in the folder\'s hook.log, and starts no worker', async () => {
    const r = make();
    const blocker = path.join(await makeTempDir('handoff-ro-'), 'a-file');
    await fs.writeFile(blocker, '');
    env['HANDOFF_STATE_DIR'] = path.join(blocker, 'state');
    assert.equal(await hookAsync({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's1' }, env), 0);
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8'), /no packet written: the hook queue \S+ cannot be created: ENOTDIR/);
    assert.deepEqual(workersOf(env['HANDOFF_STATE_DIR']), []);
  });

  it('a repository deleted while its event waits is not made again, not even for a log line', async () => {
    const gone = make();
    const other = make();
    // A worker "runs" (this process holds the lock): the first event only waits in the queue.
    const q = await privateQueueDir(env);
    assert.ok(q.ok);
    await fs.writeFile(path.join(q.dir, WORKER_LOCK), JSON.stringify({ pid: process.pid, at: Date.now() }));
    assert.equal(await hookAsync({ hook_event_name: 'SessionEnd', cwd: gone.dir, session_id: 's1' }, env), 0);
    assert.equal((await queued(state)).length, 1);
    gone.remove();
    await fs.rm(path.join(q.dir, WORKER_LOCK));
    // The next event starts a worker, which takes both.
    assert.equal(await hookAsync({ hook_event_name: 'SessionEnd', cwd: other.dir, session_id: 's2' }, env), 0);
    await waitFor('the queue drained', () => drained(state), 60_000);
    assert.equal(await exists(gone.dir), false, 'the deleted repository stays deleted');
    assert.match(await fs.readFile(path.join(state, 'hook.log'), 'utf8'), new RegExp(`${gone.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a git repository and holds no workbench files; nothing done`));
    assert.match(await fs.readFile(path.join(other.dir, 'outputs/handoff/hook.log'), 'utf8'), /packet written to/);
  });
});

describe('the hook worker and its queue (in process)', () => {
  const event = (cwd: string, session: string, at: number): QueuedEvent => ({ raw: JSON.stringify({ hook_event_name: 'SessionEnd', cwd, session_id: session }), args: [], cwd: '/', queued_at: at, env: {} });

  it('folds the events of one folder and session into the newest, keeping the order they came in', () => {
    const { events, folded } = coalesce([event('/a', 's1', 1), event('/b', 's1', 2), event('/a', 's1', 3), event('/a', 's2', 4), { ...event('/a', 's1', 5), raw: 'not json' }]);
    assert.deepEqual(events.map((e) => e.queued_at), [2, 3, 4, 5]);
    assert.equal(folded, 1);
  });

  it('a worker past its deadline handles nothing more, says how many wait, and lets the lock go', async () => {
    const env = { HANDOFF_STATE_DIR: await makeTempDir('handoff-state-') };
    const q = await privateQueueDir(env);
    assert.ok(q.ok);
    for (let i = 0; i < 3; i++) await fs.writeFile(path.join(q.dir, `00000000000000${i}-1-ab.event`), JSON.stringify(event(`/r${i}`, 's', i)));
    const lines: string[] = [];
    const handled: unknown[] = [];
    const n = await runWorker(env, async (e) => void handled.push(e.raw), async (l) => void lines.push(l), -1);
    assert.equal(n, 0);
    assert.equal(handled.length, 0);
    assert.match(lines.join('\n'), /stopped at its 0 s deadline; 3 event\(s\) wait for the next hook/);
    assert.equal(await exists(path.join(q.dir, WORKER_LOCK)), false);
    // In time, it takes them all, oldest first, and removes each.
    assert.equal(await runWorker(env, async (e) => void handled.push((JSON.parse(e.raw) as { cwd: string }).cwd), async (l) => void lines.push(l)), 3);
    assert.deepEqual(handled, ['/r0', '/r1', '/r2']);
    assert.deepEqual(await fs.readdir(q.dir), []);
  });

  it('a second worker leaves the queue to the one that holds the lock', async () => {
    const env = { HANDOFF_STATE_DIR: await makeTempDir('handoff-state-') };
    const q = await privateQueueDir(env);
    assert.ok(q.ok);
    await fs.writeFile(path.join(q.dir, '000000000000001-1-ab.event'), JSON.stringify(event('/r', 's', 1)));
    // A live process (our parent) holds it.
    await fs.writeFile(path.join(q.dir, WORKER_LOCK), JSON.stringify({ pid: process.ppid, at: Date.now() }));
    assert.equal(await runWorker(env, async () => undefined, async () => undefined), 0);
    assert.equal((await fs.readdir(q.dir)).filter((n) => n.endsWith('.event')).length, 1, 'the event still waits');
    // Its holder gone: the lock is stale and taken over.
    await fs.writeFile(path.join(q.dir, WORKER_LOCK), JSON.stringify({ pid: 2 ** 22 + 17, at: Date.now() }));
    assert.equal(await runWorker(env, async () => undefined, async () => undefined), 1);
  });

  it('removes this user\'s idle queue folders that older versions left in the shared temp folder; a held one stays', async () => {
    const idle = path.join(os.tmpdir(), `handoff-hook-queue-${randomBytes(8).toString('hex')}`);
    const held = path.join(os.tmpdir(), `handoff-hook-queue-${randomBytes(8).toString('hex')}`);
    await fs.mkdir(idle);
    await fs.mkdir(held);
    await fs.writeFile(path.join(idle, '.lock'), JSON.stringify({ pid: 2 ** 22 + 17, at: Date.now() }));
    await fs.writeFile(path.join(held, '.lock'), JSON.stringify({ pid: process.pid, at: Date.now() }));
    try {
      await runWorker({ HANDOFF_STATE_DIR: await makeTempDir('handoff-state-') }, async () => undefined, async () => undefined);
      assert.equal(await exists(idle), false);
      assert.equal(await exists(held), true);
    } finally {
      await fs.rm(idle, { recursive: true, force: true });
      await fs.rm(held, { recursive: true, force: true });
    }
  });

  it('a log line for a workspace removed meanwhile creates nothing', async () => {
    const root = path.join(await makeTempDir('handoff-gone-'), 'repo');
    const why = await appendInside(path.join(root, 'outputs/handoff/hook.log'), root, redact('line\n'));
    assert.match(why ?? '', /repo no longer exists; not written/);
    assert.equal(await exists(root), false);
  });
});
