import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug, SessionDiscovery } from '../../../src/core/context/discovery';
import { ContextMeter } from '../../../src/core/context/meter';
import { claudeCall, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

interface Homes {
  root: string;
  folder: string;
  claude: string;
  codex: string;
}

async function homes(): Promise<Homes> {
  const root = await makeTempDir('ctx-disc-');
  const folder = path.join(root, 'work', 'refund-service');
  await fs.mkdir(folder, { recursive: true });
  return { root, folder, claude: path.join(root, 'claude'), codex: path.join(root, 'codex') };
}

async function writeAt(file: string, content: string, mtime: Date): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.utimes(file, mtime, mtime);
  return file;
}

const NOW = new Date('2026-11-22T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

function transcript(h: Homes, cwd: string, name: string): string {
  return path.join(h.claude, 'projects', claudeProjectSlug(cwd), `${name}.jsonl`);
}

function rollout(h: Homes, day: string, name: string): string {
  return path.join(h.codex, 'sessions', day, `rollout-2026-11-22T10-00-00-${name}.jsonl`);
}

describe('SessionDiscovery', () => {
  it('picks the newest Claude transcript whose cwd is the folder or inside it, never another folder', async () => {
    const h = await homes();
    const other = path.join(h.root, 'work', 'refund-service-v2');
    await writeAt(transcript(h, h.folder, 'old'), claudeCall({ cwd: h.folder, sessionId: 'old' }), minutesAgo(30));
    await writeAt(transcript(h, path.join(h.folder, 'pkg'), 'inner'), claudeCall({ cwd: path.join(h.folder, 'pkg'), sessionId: 'inner' }), minutesAgo(10));
    // Newest of all, and its project dir starts with the folder's slug, but its cwd is another folder.
    await writeAt(transcript(h, other, 'other'), claudeCall({ cwd: other, sessionId: 'other' }), minutesAgo(1));
    const d = new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex, now: () => NOW });
    const found = await d.find();
    assert.equal(found.length, 1);
    assert.equal(found[0]?.source, 'claude');
    assert.equal(found[0]?.sessionId, 'inner');
  });

  it('reads each head once and caches it by mtime and size', async () => {
    const h = await homes();
    const file = await writeAt(transcript(h, h.folder, 'main'), claudeCall({ cwd: h.folder, sessionId: 'aaaa' }), minutesAgo(5));
    const d = new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex });
    assert.equal((await d.find())[0]?.sessionId, 'aaaa');
    // Same size and mtime, different head: a cached discovery does not look again.
    await writeAt(file, claudeCall({ cwd: h.folder, sessionId: 'bbbb' }), minutesAgo(5));
    assert.equal((await d.find())[0]?.sessionId, 'aaaa');
    assert.equal((await new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).find())[0]?.sessionId, 'bbbb');
  });

  it('skips a sub-agent transcript (all sidechain) even when it is the newest', async () => {
    const h = await homes();
    await writeAt(transcript(h, h.folder, 'main'), claudeCall({ cwd: h.folder, sessionId: 'main' }), minutesAgo(5));
    await writeAt(transcript(h, h.folder, 'agent-1'), claudeCall({ cwd: h.folder, sessionId: 'main', sidechain: true }), minutesAgo(1));
    const found = await new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).find();
    assert.equal(found[0]?.file, transcript(h, h.folder, 'main'));
  });

  it('finds a main transcript that opens with sub-agent (Warmup) lines', async () => {
    const h = await homes();
    const file = transcript(h, h.folder, 'main');
    const warmup = claudeCall({ cwd: h.folder, sessionId: 'main', sidechain: true });
    await writeAt(file, warmup + warmup + claudeCall({ cwd: h.folder, sessionId: 'main', input: 42_000 }), minutesAgo(1));
    const found = await new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).find();
    assert.equal(found[0]?.file, file);
    assert.equal(found[0]?.sessionId, 'main');
  });

  it('looks again at a transcript whose head was not usable yet, once it changes', async () => {
    const h = await homes();
    const file = transcript(h, h.folder, 'starting');
    // The session has only written its sub-agent warm-up and a half line so far.
    await writeAt(file, claudeCall({ cwd: h.folder, sessionId: 'starting', sidechain: true }) + '{"parentUuid":null,"cwd":', minutesAgo(2));
    const d = new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex });
    assert.deepEqual(await d.find(), []);
    // Same discovery (its head cache is warm): the completed main line is found, not the cached miss.
    await writeAt(file, claudeCall({ cwd: h.folder, sessionId: 'starting', sidechain: true }) + claudeCall({ cwd: h.folder, sessionId: 'starting' }), minutesAgo(1));
    assert.equal((await d.find())[0]?.sessionId, 'starting');
  });

  it('does not cache a head it could not read', async () => {
    const h = await homes();
    const file = await writeAt(transcript(h, h.folder, 'locked'), claudeCall({ cwd: h.folder, sessionId: 'locked' }), minutesAgo(1));
    let fail = true;
    const d = new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex });
    // The first read of the head fails (busy file); the file itself does not change afterwards.
    const read = (d as unknown as { head: (f: string, st: unknown, r: (f: string) => Promise<unknown>) => Promise<unknown> }).head.bind(d);
    (d as unknown as { head: unknown }).head = (f: string, st: unknown, r: (f: string) => Promise<unknown>) =>
      read(f, st, async (x: string) => {
        if (fail) throw Object.assign(new Error('EBUSY'), { code: 'EBUSY' });
        return r(x);
      });
    // Found all the same, by the cwds its lines name, but without what the head says (its session id).
    const first = await d.find();
    assert.deepEqual([first[0]?.file, first[0]?.sessionId], [file, undefined]);
    fail = false;
    const again = await d.find();
    assert.deepEqual([again[0]?.file, again[0]?.sessionId], [file, 'locked']);
  });

  it('names where it looks, for the log', () => {
    const places = new SessionDiscovery({ folder: '/w/api', claudeConfigDir: '/c', codexHome: '/x', sources: ['claude', 'generic'] }).places();
    assert.equal(places.length, 2);
    assert.match(places[0] ?? '', /^Claude Code: \/c\/projects\/-w-api\* \(and sessions that moved into the folder\)$/);
    assert.match(places[1] ?? '', /context_usage\.json$/);
  });

  it('reads a session_meta line longer than one head chunk', async () => {
    const h = await homes();
    const meta = JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'big', cwd: h.folder, source: 'cli', base_instructions: { text: 'i'.repeat(200_000) } } });
    await writeAt(rollout(h, '2026/11/22', 'big'), `${meta}\n${codexTokens(20_000)}`, minutesAgo(3));
    const found = await new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex, now: () => NOW }).find();
    assert.equal(found[0]?.sessionId, 'big');
  });

  it('ignores sub-agent Codex rollouts, and finds a rollout of an old date folder that was appended to (a resumed session)', async () => {
    const h = await homes();
    await writeAt(rollout(h, '2026/11/22', 'main'), codexMeta({ id: 'main', cwd: h.folder }) + codexTokens(40_000), minutesAgo(20));
    await writeAt(rollout(h, '2026/11/22', 'sub'), codexMeta({ id: 'sub', cwd: h.folder, source: { subagent: 'review' } }) + codexTokens(90_000), minutesAgo(2));
    await writeAt(rollout(h, '2026/10/01', 'ancient'), codexMeta({ id: 'ancient', cwd: h.folder }) + codexTokens(1), minutesAgo(1));
    const d = new SessionDiscovery({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex, now: () => NOW, codexDays: 7 });
    const found = await d.find();
    assert.deepEqual(found.map((c) => [c.source, c.sessionId]), [['codex', 'ancient']]);
  });
});

describe('ContextMeter', () => {
  it('lets the most recently updated session win and still lists the others', async () => {
    const h = await homes();
    const t = await writeAt(transcript(h, h.folder, 's1'), claudeCall({ cwd: h.folder, sessionId: 's1', input: 60_000 }), minutesAgo(5));
    await writeAt(rollout(h, '2026/11/22', 'cx'), codexMeta({ id: 'cx', cwd: h.folder }) + codexTokens(135_200), minutesAgo(1));
    const meter = new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex, now: () => NOW });
    let m = await meter.read();
    assert.deepEqual(m.candidates.map((c) => c.source), ['codex', 'claude']);
    assert.ok(m.current.known && m.current.source === 'codex' && m.current.percent === 50);
    assert.ok(m.candidates[1]?.result.known && m.candidates[1].result.usedTokens === 60_000);

    // Claude speaks again: it becomes the newest and wins, read incrementally.
    const line = claudeCall({ cwd: h.folder, sessionId: 's1', input: 70_000 });
    await fs.appendFile(t, line);
    m = await meter.read();
    assert.ok(m.current.known && m.current.source === 'claude' && m.current.usedTokens === 70_000);
    const cost = meter.statsFor(t);
    assert.equal(cost?.mode, 'append');
    assert.ok((cost?.bytesRead ?? Infinity) <= line.length + 512);
  });

  it('takes the window of a 1M Claude session from the statusLine bridge of the same session', async () => {
    const h = await homes();
    await writeAt(transcript(h, h.folder, 's1'), claudeCall({ cwd: h.folder, sessionId: 's1', input: 150_000 }), minutesAgo(1));
    const bridge = { source: 'claude', session_id: 's1', used_tokens: 149_000, context_window: 1_000_000, updated_at: minutesAgo(2).toISOString() };
    await writeAt(path.join(h.folder, 'context_usage.json'), JSON.stringify(bridge), minutesAgo(2));
    const m = await new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.ok(m.current.known && m.current.source === 'claude');
    assert.equal(m.current.windowTokens, 1_000_000);
    assert.equal(m.current.percent, 15);
    // Another session's bridge file does not change the window.
    await writeAt(path.join(h.folder, 'context_usage.json'), JSON.stringify({ ...bridge, session_id: 'other' }), minutesAgo(3));
    const m2 = await new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.ok(m2.current.known && m2.current.windowTokens === 200_000 && m2.current.percent === 75);
  });

  it('says why when no session is found, instead of 0 %', async () => {
    const h = await homes();
    const m = await new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.equal(m.current.known, false);
    assert.match(m.current.known ? '' : m.current.reason, /no agent session found for /);
    assert.deepEqual(m.candidates, []);
  });

  it('reads the workbench context_usage.json as a candidate', async () => {
    const h = await homes();
    await fs.writeFile(path.join(h.folder, 'context_usage.json'), JSON.stringify({ source: 'claude', session_id: 'g', used_tokens: 100_000, context_window: 200_000, updated_at: NOW.toISOString() }));
    const m = await new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.ok(m.current.known && m.current.source === 'generic' && m.current.percent === 50);
  });

  it('reads the statusLine\'s context_usage.json in the output dir, the newer of the two winning', async () => {
    const h = await homes();
    const record = (used: number) => JSON.stringify({ source: 'claude', session_id: 'g', used_tokens: used, context_window: 200_000, updated_at: NOW.toISOString() });
    await writeAt(path.join(h.folder, 'outputs', 'handoff', 'context_usage.json'), record(60_000), minutesAgo(1));
    const alone = await new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.ok(alone.current.known && alone.current.percent === 30, JSON.stringify(alone.current));
    // A root file left by an earlier version, older: the output dir's reading stays current.
    await writeAt(path.join(h.folder, 'context_usage.json'), record(20_000), minutesAgo(5));
    const both = await new ContextMeter({ folder: h.folder, claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.ok(both.current.known && both.current.percent === 30, JSON.stringify(both.current));
    // A custom output dir is where it is looked for.
    const custom = await new ContextMeter({ folder: h.folder, outputDir: path.join(h.folder, 'elsewhere'), claudeConfigDir: h.claude, codexHome: h.codex }).read();
    assert.ok(custom.current.known && custom.current.percent === 10, JSON.stringify(custom.current));
  });
});
