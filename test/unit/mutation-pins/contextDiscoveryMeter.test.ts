import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { COMPACTION_GRACE_MS, uncoveredCompaction } from '../../../src/core/context/compaction';
import { claudeProjectSlug, isInsideFolder, recentDayFolders, SessionDiscovery } from '../../../src/core/context/discovery';
import { claudeHead, codexHead, scanHead } from '../../../src/core/context/heads';
import { ContextMeter } from '../../../src/core/context/meter';
import type { ContextResult } from '../../../src/core/context/types';
import { claudeCall, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function put(file: string, text: string, mtimeSec?: number): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  if (mtimeSec !== undefined) await fs.utimes(file, mtimeSec, mtimeSec);
  return file;
}

/** Runs `f` with the process in another time zone (Node picks up a changed TZ at once). */
function inTimeZone<T>(tz: string, f: () => T): T {
  const before = process.env['TZ'];
  process.env['TZ'] = tz;
  try {
    return f();
  } finally {
    if (before === undefined) delete process.env['TZ'];
    else process.env['TZ'] = before;
  }
}

/** Runs `f` as if on another platform (only what reads `process.platform` at call time sees it). */
function onPlatform<T>(platform: NodeJS.Platform, f: () => T): T {
  const real = Object.getOwnPropertyDescriptor(process, 'platform') as PropertyDescriptor;
  Object.defineProperty(process, 'platform', { ...real, value: platform });
  try {
    return f();
  } finally {
    Object.defineProperty(process, 'platform', real);
  }
}

const sorted = (a: string[]) => [...a].sort();

describe('context discovery: paths, day folders and where it looks', () => {
  it('on Windows a cwd that differs from the folder only in case is inside it; elsewhere it is another folder', () => {
    onPlatform('win32', () => {
      assert.ok(isInsideFolder('/Users/Dev/App', '/users/dev/app/src'));
      assert.ok(isInsideFolder('/users/dev/app', '/USERS/DEV/APP'));
      // Windows folds case letter by letter: "Straße" and "STRASSE" are two folders.
      assert.ok(!isInsideFolder('/w/Straße', '/w/STRASSE'));
    });
    if (process.platform !== 'win32') {
      assert.ok(!isInsideFolder('/w/App', '/w/app'));
      assert.ok(!isInsideFolder('/w/app', '/w/App/src'));
    }
  });

  it('the day folders are zero-padded and reach back the given number of days (and a day ahead)', () => {
    inTimeZone('UTC', () => {
      assert.deepEqual(sorted(recentDayFolders(new Date('2026-03-05T12:00:00Z'), 1)), ['2026/03/05', '2026/03/06']);
      assert.deepEqual(sorted(recentDayFolders(new Date('2026-11-22T12:00:00Z'), 3)), ['2026/11/20', '2026/11/21', '2026/11/22', '2026/11/23']);
    });
  });

  it("the day folders of local time and of UTC both count when they differ (Codex names them in local time)", () => {
    // 12:00 UTC on the 22nd is 01:00 on the 23rd in Auckland (UTC+13 in November).
    const days = inTimeZone('Pacific/Auckland', () => recentDayFolders(new Date('2026-11-22T12:00:00Z'), 1));
    assert.deepEqual(sorted(days), ['2026/11/22', '2026/11/23', '2026/11/24']);
  });

  it('finds a rollout in a day folder of a single-digit month and day', async () => {
    const root = await makeTempDir('ctxdisc-');
    const folder = path.join(root, 'app');
    const codexHome = path.join(root, 'codex');
    const rollout = await put(path.join(codexHome, 'sessions', '2026', '03', '05', 'rollout-a.jsonl'), codexMeta({ id: 'march', cwd: folder }) + codexTokens(1_000));
    const found = await new SessionDiscovery({ folder, codexHome, sources: ['codex'], now: () => new Date('2026-03-05T12:00:00Z') }).find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId]), [[rollout, 'march']]);
  });

  it('names one place per enabled source: the Claude project dir, the Codex sessions (every date folder), the generic file', () => {
    const all = new SessionDiscovery({ folder: '/w/api', claudeConfigDir: '/c', codexHome: '/x' }).places();
    assert.equal(all.length, 3);
    assert.ok(all[0]?.startsWith(`Claude Code: ${path.join('/c', 'projects', claudeProjectSlug('/w/api'))}`), all[0]);
    assert.ok(all[1]?.startsWith(`Codex CLI: ${path.join('/x', 'sessions')} `) && all[1].includes('every date folder'), all[1]);
    assert.equal(all[2], `${path.join('/w/api', 'context_usage.json')}, ${path.join('/w/api', 'outputs', 'handoff', 'context_usage.json')}`);

    const codex = new SessionDiscovery({ folder: '/w/api', codexHome: '/x', codexDays: 3, sources: ['codex'] }).places();
    assert.equal(codex.length, 1);
    assert.ok(codex[0]?.startsWith('Codex CLI: ') && !codex[0].includes('last 3 days'), codex[0]);

    const claude = new SessionDiscovery({ folder: '/w/api', claudeConfigDir: '/c', sources: ['claude'] }).places();
    assert.equal(claude.length, 1);
    assert.ok(claude[0]?.startsWith('Claude Code: '), claude[0]);

    const generic = new SessionDiscovery({ folder: '/w/api', workbenchDir: '/w/api/.handoff', outputDir: '/w/api/.handoff/out', sources: ['generic'] }).places();
    assert.deepEqual(generic, [`${path.join('/w/api/.handoff', 'context_usage.json')}, ${path.join('/w/api/.handoff/out', 'context_usage.json')}`]);
  });
});

describe('context discovery: long folder names', () => {
  async function longFolder(slugLength: number) {
    const root = await makeTempDir('ctxdisc-');
    const claudeDir = path.join(root, 'claude');
    const base = path.resolve(root);
    const folder = path.join(base, 'p'.repeat(slugLength - base.length - 1));
    assert.equal(claudeProjectSlug(folder).length, slugLength);
    return { root, claudeDir, folder, projects: path.join(claudeDir, 'projects') };
  }

  it('past 200 characters Claude Code shortens the project dir name; the transcript is still found', async () => {
    const { claudeDir, folder, projects } = await longFolder(230);
    const shortened = `${claudeProjectSlug(folder).slice(0, 200)}-1x2y3z`;
    const t = await put(path.join(projects, shortened, 's.jsonl'), claudeCall({ cwd: folder, sessionId: 'long' }));
    const found = await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] }).find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId]), [[t, 'long']]);
  });

  it('a name of exactly 200 characters is kept whole, so other project dirs are not searched', async () => {
    const { claudeDir, folder, projects } = await longFolder(200);
    const own = await put(path.join(projects, claudeProjectSlug(folder), 'own.jsonl'), claudeCall({ cwd: folder, sessionId: 'own' }), 1000);
    await put(path.join(projects, '-somewhere-else', 'other.jsonl'), claudeCall({ cwd: folder, sessionId: 'other' }), 2000);
    const found = await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] }).find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId]), [[own, 'own']]);
  });
});

describe('context discovery: heads read once', () => {
  async function setup() {
    const root = await makeTempDir('ctxdisc-');
    const folder = path.join(root, 'app');
    const claudeDir = path.join(root, 'claude');
    const file = path.join(claudeDir, 'projects', claudeProjectSlug(folder), 's.jsonl');
    const discovery = new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] });
    return { folder, file, discovery };
  }

  it('a settled head is not read again as its log grows (its first lines never change)', async () => {
    const { folder, file, discovery } = await setup();
    await put(file, claudeCall({ cwd: folder, sessionId: 'aaaa' }), 1000);
    assert.equal((await discovery.find())[0]?.sessionId, 'aaaa');
    // Bigger and newer; the first line differs only so that a second read would show.
    await put(file, claudeCall({ cwd: folder, sessionId: 'bbbb' }) + claudeCall({ cwd: folder, sessionId: 'bbbb' }), 2000);
    const found = await discovery.find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId, c.mtimeMs]), [[file, 'aaaa', 2_000_000]]);
  });

  it('an unsettled head is kept only while the file is exactly as it was read', async () => {
    const { folder, file, discovery } = await setup();
    // A session caught while it had written only its sub-agent warm-up: not the session yet.
    const warmup = claudeCall({ cwd: folder, sessionId: 'abcd', sidechain: true });
    const main = claudeCall({ cwd: folder, sessionId: 'abc' });
    assert.equal(main.length, warmup.length);
    await put(file, warmup, 1000);
    assert.deepEqual(await discovery.find(), []);
    // Same size, same mtime: taken for the same file, not read again.
    await put(file, main, 1000);
    assert.deepEqual(await discovery.find(), []);
    // It grew, within the same mtime tick: read again.
    await fs.appendFile(file, main);
    await fs.utimes(file, 1000, 1000);
    assert.deepEqual((await discovery.find()).map((c) => [c.file, c.sessionId]), [[file, 'abc']]);
  });

  it('an unsettled head is read again once the mtime changes, even at the same size', async () => {
    const { folder, file, discovery } = await setup();
    const warmup = claudeCall({ cwd: folder, sessionId: 'abcd', sidechain: true });
    const main = claudeCall({ cwd: folder, sessionId: 'abc' });
    await put(file, warmup, 1000);
    assert.deepEqual(await discovery.find(), []);
    await put(file, main, 1001);
    assert.deepEqual((await discovery.find()).map((c) => c.sessionId), ['abc']);
  });
});

describe('agent log heads', () => {
  it('scanHead never reads past maxBytes, in one step or several', async () => {
    const dir = await makeTempDir('ctxdisc-');
    const small = await put(path.join(dir, 'small'), 'first\nsecond\n');
    const second = (l: string) => (l === 'second' ? 'found' : undefined);
    assert.equal(await scanHead(small, second, 8), undefined);
    assert.equal(await scanHead(small, second, 13), 'found');
    // A line that ends between 100 KiB and 128 KiB: past the cap of 100 KiB, within two full steps.
    const big = await put(path.join(dir, 'big'), `${'a'.repeat(70 * 1024)}\n${'b'.repeat(40 * 1024)}\n`);
    const bs = (l: string) => (l.startsWith('b') ? l.length : undefined);
    assert.equal(await scanHead(big, bs, 100 * 1024), undefined);
    assert.equal(await scanHead(big, bs, 120 * 1024), 40 * 1024);
  });

  it('skips blank lines, even ones of spaces or a carriage return', async () => {
    const dir = await makeTempDir('ctxdisc-');
    const x = await put(path.join(dir, 'x.jsonl'), `  \r\n\r\n${codexMeta({ id: 'cx', cwd: '/w' })}`);
    assert.deepEqual(await codexHead(x), { cwd: '/w', sessionId: 'cx', subAgent: false, settled: true });
  });

  it('decodes a character whose bytes are cut between two reading steps', async () => {
    const dir = await makeTempDir('ctxdisc-');
    const cwd = '/home/josé/app';
    const line = claudeCall({ cwd, sessionId: 's' });
    // A first line of such a length that the "é" of the cwd starts on the last byte of the first 64 KiB.
    const before = Buffer.byteLength(line.slice(0, line.indexOf('é')));
    const filler = (n: number) => `${JSON.stringify({ type: 'summary', summary: 'x'.repeat(n) })}\n`;
    const pad = 64 * 1024 - 1 - before - filler(0).length;
    const file = await put(path.join(dir, 'c.jsonl'), filler(pad) + line);
    assert.equal(Buffer.byteLength(filler(pad)) + before, 64 * 1024 - 1);
    assert.deepEqual(await claudeHead(file), { cwd, sessionId: 's', subAgent: false, settled: true });
  });

  it('closes every file it opens', async function () {
    if (!(await fs.stat('/proc/self/fd').catch(() => null))) this.skip();
    const dir = await makeTempDir('ctxdisc-');
    const c = await put(path.join(dir, 'c.jsonl'), claudeCall({ cwd: '/w' }));
    const x = await put(path.join(dir, 'x.jsonl'), codexMeta({ cwd: '/w' }));
    const open = async () => (await fs.readdir('/proc/self/fd')).length;
    const before = await open();
    for (let i = 0; i < 20; i++) await Promise.all([claudeHead(c), codexHead(x), scanHead(c, () => undefined)]);
    assert.ok((await open()) < before + 5, 'file descriptors left open');
  });

  it("a transcript of sub-agent lines only is settled when named agent-*, or when it reaches the bytes a head may use", async () => {
    const dir = await makeTempDir('ctxdisc-');
    const side = claudeCall({ cwd: '/w', sessionId: 's', sidechain: true });
    const head = { cwd: '/w', sessionId: 's', subAgent: true };
    assert.deepEqual(await claudeHead(await put(path.join(dir, 'agent-1.jsonl'), side)), { ...head, settled: true });
    const file = await put(path.join(dir, 'warmup.jsonl'), side + '{"type":"summary"}\n');
    const size = (await fs.stat(file)).size;
    assert.deepEqual(await claudeHead(file), { ...head, settled: false });
    // Whatever is appended now lies past the bytes read: it can never make this the main session.
    assert.deepEqual(await claudeHead(file, size), { ...head, settled: true });
    assert.deepEqual(await claudeHead(file, size - 5), { ...head, settled: true });
    assert.deepEqual(await claudeHead(file, size + 1), { ...head, settled: false });
  });
});

describe('the context meter: readers and caches', () => {
  it('drops the reader of a log that is no longer a candidate; one that comes back is read from the start', async () => {
    const root = await makeTempDir('ctxdisc-');
    const folder = path.join(root, 'app');
    const proj = path.join(root, 'claude', 'projects', claudeProjectSlug(folder));
    const meter = new ContextMeter({ folder, claudeConfigDir: path.join(root, 'claude'), sources: ['claude'] });
    const a = await put(path.join(proj, 'a.jsonl'), claudeCall({ cwd: folder, sessionId: 'a', input: 10_000 }), 1000);
    await meter.read();
    assert.equal(meter.statsFor(a)?.mode, 'initial');
    const b = await put(path.join(proj, 'b.jsonl'), claudeCall({ cwd: folder, sessionId: 'b', input: 20_000 }), 2000);
    assert.equal((await meter.read()).current.sessionId, 'b');
    assert.equal(meter.statsFor(a), undefined);
    assert.equal(meter.statsFor(b)?.mode, 'initial');
    await fs.appendFile(a, claudeCall({ cwd: folder, sessionId: 'a', input: 30_000 }));
    await fs.utimes(a, 3000, 3000);
    const r = await meter.read();
    assert.ok(r.current.known && r.current.sessionId === 'a' && r.current.usedTokens === 30_000);
    assert.equal(meter.statsFor(a)?.mode, 'initial');
    assert.equal(meter.statsFor(b), undefined);
  });

  it('reads context_usage.json again when its size changed, even at the same mtime', async () => {
    const root = await makeTempDir('ctxdisc-');
    const folder = path.join(root, 'app');
    const usage = (used: number) => JSON.stringify({ source: 'aider', session_id: 'g', used_tokens: used, context_window: 1000, updated_at: 5 });
    const file = await put(path.join(folder, 'context_usage.json'), usage(10), 1000);
    const meter = new ContextMeter({ folder, sources: ['generic'] });
    const first = (await meter.read()).current;
    assert.ok(first.known && first.percent === 1);
    await put(file, usage(200), 1000);
    const second = (await meter.read()).current;
    assert.ok(second.known && second.percent === 20);
  });

  it('a log that vanished after discovery found it reads as unknown, still naming the session', async () => {
    const root = await makeTempDir('ctxdisc-');
    const folder = path.join(root, 'app');
    const file = await put(path.join(root, 'claude', 'projects', claudeProjectSlug(folder), 's.jsonl'), claudeCall({ cwd: folder, sessionId: 'cs' }));
    const meter = new ContextMeter({ folder, claudeConfigDir: path.join(root, 'claude'), sources: ['claude'] });
    assert.ok((await meter.read()).current.known);
    // The transcript is removed right after discovery looked at it, before the meter reads it.
    const realStat = fs.stat;
    let removed = false;
    fs.stat = (async (p: string, ...rest: unknown[]) => {
      const st = await (realStat as (p: string, ...r: unknown[]) => Promise<unknown>)(p, ...rest);
      if (!removed && p === file) {
        removed = true;
        await fs.rm(file);
      }
      return st;
    }) as typeof fs.stat;
    let r: ContextResult;
    try {
      r = (await meter.read()).current;
    } finally {
      fs.stat = realStat;
    }
    assert.ok(removed);
    assert.ok(!r.known);
    assert.equal(r.sessionId, 'cs');
    assert.match(r.reason, /cannot read/);
  });

  it("the statusLine bridge's window is for the Claude transcript only, not a Codex rollout of the same id", async () => {
    const root = await makeTempDir('ctxdisc-');
    const folder = path.join(root, 'app');
    const codexHome = path.join(root, 'codex');
    await put(path.join(codexHome, 'sessions', '2026', '11', '22', 'rollout-s.jsonl'), codexMeta({ id: 'same', cwd: folder }) + codexTokens(100_000), 2000);
    const bridge = { source: 'claude', session_id: 'same', used_tokens: 100_000, context_window: 1_000_000, updated_at: '2026-11-22T10:00:00Z' };
    await put(path.join(folder, 'context_usage.json'), JSON.stringify(bridge), 1000);
    const r = await new ContextMeter({ folder, codexHome, sources: ['codex', 'generic'], now: () => new Date('2026-11-22T12:00:00Z') }).read();
    assert.deepEqual(r.candidates.map((c) => c.source), ['codex', 'generic']);
    assert.ok(r.current.known && r.current.source === 'codex');
    assert.equal(r.current.windowTokens, 258_400);
  });
});

describe('a compaction without a handoff', () => {
  const at = '2026-11-21T10:05:00.000Z';
  const reading = (compaction: { at: string; percent?: number }): ContextResult =>
    ({ known: false, source: 'claude', sessionId: 's', reason: 'waiting for the next call', compaction });

  it('says when and how full, and leaves the percent out when the log does not say', () => {
    assert.deepEqual(uncoveredCompaction(reading({ at, percent: 84.2 }), []), { at, percent: 84.2, text: 'compacted at 84 % without a handoff' });
    assert.deepEqual(uncoveredCompaction(reading({ at }), []), { at, text: 'compacted without a handoff' });
  });

  it('a packet written exactly the grace period before the compaction covers it', () => {
    const t = Date.parse(at);
    assert.equal(uncoveredCompaction(reading({ at }), [t - COMPACTION_GRACE_MS]), null);
    assert.notEqual(uncoveredCompaction(reading({ at }), [t - COMPACTION_GRACE_MS - 1]), null);
  });

  it('a compaction whose time cannot be read is not reported', () => {
    assert.equal(uncoveredCompaction(reading({ at: 'not a time' }), []), null);
    assert.equal(uncoveredCompaction(reading({ at: '' }), []), null);
  });
});
