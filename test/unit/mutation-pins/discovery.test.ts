import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  claudeProjectSlug, defaultClaudeConfigDir, defaultCodexHome, isInsideFolder, recentDayFolders, SessionDiscovery,
} from '../../../src/core/context/discovery';
import { claudeHead, codexHead, scanHead } from '../../../src/core/context/heads';
import { ContextMeter } from '../../../src/core/context/meter';
import { claudeCall, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function put(file: string, text: string, mtimeSec?: number): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  if (mtimeSec !== undefined) await fs.utimes(file, mtimeSec, mtimeSec);
  return file;
}
const NOW = new Date('2026-11-22T12:00:00Z');

describe('finding the agent sessions of a folder', () => {
  it('the default homes come from the environment, else the home folder', () => {
    assert.equal(defaultClaudeConfigDir({ CLAUDE_CONFIG_DIR: '/c' }), '/c');
    assert.equal(defaultClaudeConfigDir({}), path.join(os.homedir(), '.claude'));
    assert.equal(defaultCodexHome({ CODEX_HOME: '/x' }), '/x');
    assert.equal(defaultCodexHome({ CODEX_HOME: '' }), path.join(os.homedir(), '.codex'));
  });

  it('a cwd belongs to the folder when it is the folder or inside it', () => {
    assert.ok(isInsideFolder('/w/app', '/w/app'));
    assert.ok(isInsideFolder('/w/app', '/w/app/sub/dir'));
    assert.ok(!isInsideFolder('/w/app', '/w/app2'));
    assert.ok(!isInsideFolder('/w/app', '/w'));
    assert.ok(!isInsideFolder('/w/app', '/other'));
    assert.ok(isInsideFolder('/w/app', '/w/app/..app/x'));
  });

  it("Claude's project folder name replaces every non-alphanumeric character", () => {
    assert.equal(claudeProjectSlug('/home/dev/my_app.v2'), '-home-dev-my-app-v2');
  });

  it('looks at the day folders of the last days, yesterday to tomorrow included', () => {
    const days = recentDayFolders(NOW, 2);
    assert.ok(days.includes('2026/11/23') && days.includes('2026/11/22') && days.includes('2026/11/21'));
    assert.ok(!days.includes('2026/11/20') && !days.includes('2026/11/24'));
    assert.equal(new Set(days).size, days.length);
  });

  it('finds the newest main-chain Claude transcript and Codex rollout of the folder, and the generic file; newest first', async () => {
    const root = await makeTempDir('disc-pins-');
    const folder = path.join(root, 'work', 'app');
    await fs.mkdir(folder, { recursive: true });
    const claudeDir = path.join(root, 'claude');
    const proj = path.join(claudeDir, 'projects', claudeProjectSlug(folder));
    const codexHome = path.join(root, 'codex');
    const day = path.join(codexHome, 'sessions', '2026', '11', '22');
    await put(path.join(proj, 'old.jsonl'), claudeCall({ cwd: folder, sessionId: 'old' }), 1000);
    const newest = await put(path.join(proj, 'new.jsonl'), claudeCall({ cwd: path.join(folder, 'sub'), sessionId: 'new' }), 3000);
    await put(path.join(proj, 'side.jsonl'), claudeCall({ cwd: folder, sidechain: true }), 5000);
    await put(path.join(proj, 'elsewhere.jsonl'), claudeCall({ cwd: path.join(root, 'other') }), 6000);
    await put(path.join(proj, 'notes.txt'), claudeCall({ cwd: folder }), 7000);
    await put(path.join(claudeDir, 'projects', 'unrelated', 'u.jsonl'), claudeCall({ cwd: folder }), 8000);
    const rollout = await put(path.join(day, 'rollout-a.jsonl'), codexMeta({ id: 'cx', cwd: folder }) + codexTokens(20_000), 2000);
    await put(path.join(day, 'rollout-sub.jsonl'), codexMeta({ id: 'sub', cwd: folder, source: { subagent: 'review' } }), 9000);
    await put(path.join(day, 'other.jsonl'), codexMeta({ id: 'no', cwd: folder }), 9500);
    const generic = await put(path.join(folder, 'context_usage.json'), '{}', 4000);
    const d = new SessionDiscovery({ folder, claudeConfigDir: claudeDir, codexHome, now: () => NOW });
    const found = await d.find();
    assert.deepEqual(found.map((c) => [c.source, c.file, c.sessionId, c.cwd]), [
      ['generic', generic, undefined, undefined],
      ['claude', newest, 'new', path.join(folder, 'sub')],
      ['codex', rollout, 'cx', folder],
    ]);
    assert.deepEqual((await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, codexHome, now: () => NOW, sources: ['codex'] }).find()).map((c) => c.source), ['codex']);
    // Weeks later the rollout is still found: rollouts are looked for in every date folder.
    const old = new SessionDiscovery({ folder, claudeConfigDir: claudeDir, codexHome, now: () => new Date('2026-12-20T12:00:00Z') });
    assert.ok((await old.find()).some((c) => c.source === 'codex' && c.file === rollout));
    const generic2 = new SessionDiscovery({ folder, workbenchDir: path.join(root, 'nowhere'), claudeConfigDir: claudeDir, codexHome, now: () => NOW });
    assert.ok(!(await generic2.find()).some((c) => c.source === 'generic'));
  });

  it('reads a head again only when the file was replaced or had no cwd yet', async () => {
    const root = await makeTempDir('disc-pins-');
    const folder = path.join(root, 'app');
    const claudeDir = path.join(root, 'claude');
    const file = path.join(claudeDir, 'projects', claudeProjectSlug(folder), 's.jsonl');
    await put(file, '{"type":"summary"}\n', 1000);
    const d = new SessionDiscovery({ folder, claudeConfigDir: claudeDir, codexHome: path.join(root, 'none'), sources: ['claude'] });
    assert.deepEqual(await d.find(), []);
    await fs.appendFile(file, claudeCall({ cwd: folder, sessionId: 'late' }));
    assert.equal((await d.find())[0]?.sessionId, 'late');
    await put(file, claudeCall({ cwd: path.join(root, 'elsewhere') }), 2000);
    assert.deepEqual(await d.find(), []);
  });

  it('heads: the first line with a cwd (Claude), the session_meta line (Codex), a sub-agent marked', async () => {
    const dir = await makeTempDir('heads-pins-');
    const c = await put(path.join(dir, 'c.jsonl'), `{"type":"summary"}\n\n${claudeCall({ cwd: '/w', sessionId: 's1', sidechain: true })}`);
    assert.deepEqual(await claudeHead(c), { cwd: '/w', sessionId: 's1', subAgent: true, settled: false });
    const noSession = await put(path.join(dir, 'c2.jsonl'), '{"cwd": "/w", "isSidechain": false}\n');
    assert.deepEqual(await claudeHead(noSession), { cwd: '/w', subAgent: false, settled: true });
    assert.deepEqual(await claudeHead(await put(path.join(dir, 'c3.jsonl'), '{"cwd": 5}\n["cwd"]\n')), {});
    const x = await put(path.join(dir, 'x.jsonl'), codexMeta({ id: 'cx', cwd: '/w' }));
    assert.deepEqual(await codexHead(x), { cwd: '/w', sessionId: 'cx', subAgent: false, settled: true });
    assert.deepEqual(await codexHead(await put(path.join(dir, 'x2.jsonl'), '{"type":"session_meta","payload":{"source":null}}\n')), { subAgent: false, settled: true });
    assert.deepEqual(await codexHead(await put(path.join(dir, 'x3.jsonl'), '{"type":"event_msg"}\n')), { settled: true });
    assert.deepEqual(await codexHead(await put(path.join(dir, 'x4.jsonl'), '')), {});
  });

  it('scanHead reads in steps, joins a line cut between them, and stops at maxBytes', async () => {
    const dir = await makeTempDir('heads-pins-');
    const long = `${'x'.repeat(70 * 1024)}MARK\n`;
    const f = await put(path.join(dir, 'f'), `${long}second\n`);
    assert.equal(await scanHead(f, (l) => (l.endsWith('MARK') ? l.length : undefined)), 70 * 1024 + 4);
    assert.equal(await scanHead(f, (l) => (l === 'second' ? 'found' : undefined)), 'found');
    assert.equal(await scanHead(f, (l) => (l === 'second' ? 'found' : undefined), 64 * 1024), undefined);
    assert.equal(await scanHead(f, () => undefined), undefined);
  });
});

describe('the context meter', () => {
  it('shows the newest session, and says none was found for the folder', async () => {
    const root = await makeTempDir('meter-pins-');
    const folder = path.join(root, 'app');
    const opts = { folder, claudeConfigDir: path.join(root, 'claude'), codexHome: path.join(root, 'codex') };
    const none = await new ContextMeter(opts).read();
    assert.deepEqual(none, { current: { known: false, reason: `no agent session found for ${folder}` }, candidates: [] });
    await put(path.join(root, 'claude', 'projects', claudeProjectSlug(folder), 's.jsonl'), claudeCall({ cwd: folder, sessionId: 'cs', input: 100_000 }));
    const meter = new ContextMeter(opts);
    const r = await meter.read();
    assert.ok(r.current.known && r.current.percent === 50 && r.current.sessionId === 'cs');
    assert.equal(r.candidates.length, 1);
    assert.equal(meter.statsFor(r.candidates[0]!.file)?.mode, 'initial');
    await meter.read();
    assert.equal(meter.statsFor(r.candidates[0]!.file)?.mode, 'unchanged');
    assert.equal(meter.statsFor('/nope'), undefined);
  });

  it("uses the statusLine bridge's window for the same Claude session, unless the user set one", async () => {
    const root = await makeTempDir('meter-pins-');
    const folder = path.join(root, 'app');
    const opts = { folder, claudeConfigDir: path.join(root, 'claude'), codexHome: path.join(root, 'codex') };
    await put(path.join(root, 'claude', 'projects', claudeProjectSlug(folder), 's.jsonl'), claudeCall({ cwd: folder, sessionId: 'cs', input: 100_000 }), 1000);
    const bridge = { source: 'claude', session_id: 'cs', used_tokens: 100_000, context_window: 1_000_000, updated_at: '2026-01-01T00:00:00Z' };
    await put(path.join(folder, 'context_usage.json'), JSON.stringify(bridge), 500);
    const r = await new ContextMeter(opts).read();
    assert.ok(r.current.known);
    assert.deepEqual([r.current.source, r.current.windowTokens, r.current.percent, r.current.compactAtPercent], ['claude', 1_000_000, 10, 96.7]);
    const overridden = await new ContextMeter({ ...opts, windowOverride: 400_000 }).read();
    assert.ok(overridden.current.known && overridden.current.windowTokens === 400_000);
    await put(path.join(folder, 'context_usage.json'), JSON.stringify({ ...bridge, session_id: 'other' }), 500);
    const other = await new ContextMeter(opts).read();
    assert.ok(other.current.known && other.current.windowTokens === 200_000);
    await put(path.join(folder, 'context_usage.json'), JSON.stringify({ ...bridge, source: 'codex' }), 500);
    const codexBridge = await new ContextMeter(opts).read();
    assert.ok(codexBridge.current.known && codexBridge.current.windowTokens === 200_000);
  });

  it('an unknown reading keeps the session id discovery found, and the generic file is re-read when it changes', async () => {
    const root = await makeTempDir('meter-pins-');
    const folder = path.join(root, 'app');
    const opts = { folder, claudeConfigDir: path.join(root, 'claude'), codexHome: path.join(root, 'codex'), now: () => NOW };
    await put(path.join(root, 'codex', 'sessions', '2026', '11', '22', 'rollout-z.jsonl'), codexMeta({ id: 'from-head', cwd: folder }), 1000);
    const meter = new ContextMeter(opts);
    const r = await meter.read();
    assert.ok(!r.current.known && r.current.sessionId === 'from-head');
    const file = await put(path.join(folder, 'context_usage.json'), JSON.stringify({ source: 'aider', session_id: 'g', used_tokens: 10, context_window: 100, updated_at: 5 }), 2000);
    assert.ok((await meter.read()).current.known);
    await put(file, JSON.stringify({ source: 'aider', session_id: 'g', used_tokens: 20, context_window: 100, updated_at: 5 }), 3000);
    const again = await meter.read();
    assert.ok(again.current.known && again.current.percent === 20);
  });
});
