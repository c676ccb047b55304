import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug, SessionDiscovery } from '../../../src/core/context/discovery';
import { claudeHead, CwdScanner } from '../../../src/core/context/heads';
import { ContextMeter } from '../../../src/core/context/meter';
import { readFolderSession } from '../../../src/core/session/tracker';
import { claudeCall, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';
import { expectedFor, fixtureText } from '../session/sessionFixture';

async function writeAt(file: string, content: string, mtime = new Date()): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.utimes(file, mtime, mtime);
  return file;
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const userLine = (cwd: string | null, text: string, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: text }, uuid: 'u', timestamp: '2026-11-20T10:00:00.000Z', ...(cwd ? { cwd } : {}), sessionId: 'moved', ...extra })}\n`;

describe('discovery never misses a session of the folder', () => {
  it('finds a session that started above the folder and cd-ed into it, the newest matching one winning', async () => {
    const root = await makeTempDir('disc-cd-');
    const home = path.join(root, 'home', 'dev');
    const folder = path.join(home, 'ledger');
    await fs.mkdir(folder, { recursive: true });
    const claude = path.join(root, 'claude');
    const own = await writeAt(path.join(claude, 'projects', claudeProjectSlug(folder), 'own.jsonl'), claudeCall({ cwd: folder, sessionId: 'own' }), minutesAgo(30));
    // Started in $HOME, then `cd ledger`: the transcript stays in $HOME's project folder.
    const moved = path.join(claude, 'projects', claudeProjectSlug(home), 'moved.jsonl');
    await writeAt(moved, claudeCall({ cwd: home, sessionId: 'moved' }) + claudeCall({ cwd: home, sessionId: 'moved' }) + claudeCall({ cwd: path.join(folder, 'src'), sessionId: 'moved' }), minutesAgo(5));
    // Newer still, in $HOME too, but it never went into the folder.
    await writeAt(path.join(claude, 'projects', claudeProjectSlug(home), 'stayed.jsonl'), claudeCall({ cwd: home, sessionId: 'stayed' }), minutesAgo(1));
    const d = new SessionDiscovery({ folder, claudeConfigDir: claude, codexHome: path.join(root, 'none'), sources: ['claude'] });
    const found = await d.find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId, c.cwd]), [[moved, 'moved', path.join(folder, 'src')]]);
    // Once the moved session ends, the folder's own session is the newest match again.
    await fs.utimes(moved, minutesAgo(60), minutesAgo(60));
    assert.equal((await d.find())[0]?.file, own);
    // A session that cd-s out of the folder later still belongs to it.
    await fs.appendFile(own, claudeCall({ cwd: home, sessionId: 'own' }));
    assert.equal((await d.find())[0]?.file, own);
  });

  it('finds a transcript whose first line is over 1 MB with its cwd at the end, and the session read gets its first request', async () => {
    const root = await makeTempDir('disc-big-');
    const folder = path.join(root, 'app');
    await fs.mkdir(folder);
    const claude = path.join(root, 'claude');
    const image = 'A'.repeat(1_300_000);
    const big = `${JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } }, { type: 'text', text: '[Image #1] Why is this red?' }] }, uuid: 'u1', timestamp: '2026-11-20T10:00:00.000Z', cwd: folder, sessionId: 'big', version: '2.1.160' })}\n`;
    assert.ok(big.indexOf('"cwd"') > 1_000_000);
    const file = await writeAt(path.join(claude, 'projects', claudeProjectSlug(folder), 'big.jsonl'), `{"type":"queue-operation","operation":"enqueue"}\n${big}${claudeCall({ cwd: folder, sessionId: 'big', input: 30_000 })}`);
    assert.deepEqual(await claudeHead(file), { cwd: folder, sessionId: 'big', subAgent: false, settled: true });
    const found = await new SessionDiscovery({ folder, claudeConfigDir: claude, sources: ['claude'] }).find();
    assert.equal(found[0]?.file, file);
    const facts = await readFolderSession({ folder, claudeConfigDir: claude, agents: ['claude'] });
    assert.equal(facts?.firstUserRequest, '[Image #1] Why is this red?');
    assert.ok(!JSON.stringify(facts).includes('AAAAAAAAAA'), 'no image data in the facts');
    const reading = (await new ContextMeter({ folder, claudeConfigDir: claude, sources: ['claude'] }).read()).current;
    assert.ok(reading.known && reading.usedTokens === 30_000);
  });

  it('finds the shared claude-bigline fixture through its 317 KB first line', async () => {
    const root = await makeTempDir('disc-bigline-');
    const folder = path.join(root, 'export');
    await fs.mkdir(folder);
    const claude = path.join(root, 'claude');
    const file = await writeAt(path.join(claude, 'projects', claudeProjectSlug(folder), '4f7d2c1e-8a3b-4e6f-9c0d-5b2a1e8f7c63.jsonl'), await fixtureText('claude-bigline', folder));
    const expected = await expectedFor('claude-bigline', folder);
    const found = await new SessionDiscovery({ folder, claudeConfigDir: claude, sources: ['claude'] }).find();
    assert.deepEqual([found[0]?.file, found[0]?.cwd, found[0]?.sessionId], [file, expected['cwd'], expected['session_id']]);
    const reading = (await new ContextMeter({ folder, claudeConfigDir: claude, sources: ['claude'] }).read()).current;
    assert.ok(reading.known && reading.usedTokens === expected['context_tokens'], JSON.stringify(reading));
  });

  it('finds a Codex rollout in a date folder 40 days old whose mtime is today (a resumed session)', async () => {
    const root = await makeTempDir('disc-codex-old-');
    const folder = path.join(root, 'portal');
    await fs.mkdir(folder);
    const codex = path.join(root, 'codex');
    const old = new Date(Date.now() - 40 * 86_400_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const day = path.join(codex, 'sessions', String(old.getFullYear()), pad(old.getMonth() + 1), pad(old.getDate()));
    const file = await writeAt(path.join(day, 'rollout-2026-10-22T09-00-00-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68.jsonl'), codexMeta({ id: 'resumed', cwd: folder }) + codexTokens(40_000));
    // An older rollout of today for the same folder loses to the resumed one.
    const now = new Date();
    await writeAt(path.join(codex, 'sessions', String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()), 'rollout-2026-11-30T09-00-00-019f8a3c-0000-7e40-b9a7-3c5e1f0d2b68.jsonl'), codexMeta({ id: 'today', cwd: folder }), minutesAgo(30));
    const found = await new SessionDiscovery({ folder, codexHome: codex, sources: ['codex'] }).find();
    assert.deepEqual([found[0]?.file, found[0]?.sessionId], [file, 'resumed']);
  });

  it('between two full listings, a thread named in session_index.jsonl is followed into its old date folder', async () => {
    const root = await makeTempDir('disc-codex-index-');
    const folder = path.join(root, 'portal');
    await fs.mkdir(folder);
    const codex = path.join(root, 'codex');
    const id = '019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b99';
    const file = await writeAt(path.join(codex, 'sessions', '2025', '01', '02', `rollout-2025-01-02T09-00-00-${id}.jsonl`), codexMeta({ id, cwd: path.join(root, 'elsewhere') }), minutesAgo(600));
    for (let i = 0; i < 40; i++) await writeAt(path.join(codex, 'sessions', '2025', '02', '03', `rollout-2025-02-03T09-00-${String(i).padStart(2, '0')}-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2c${String(i).padStart(2, '0')}.jsonl`), codexMeta({ cwd: path.join(root, 'elsewhere') }), minutesAgo(300 - i));
    const d = new SessionDiscovery({ folder, codexHome: codex, sources: ['codex'] });
    assert.deepEqual(await d.find(), []);
    // Resumed in the folder: the thread appends to its old rollout and is renamed.
    await fs.appendFile(file, `${JSON.stringify({ timestamp: 't', type: 'turn_context', payload: { cwd: folder, model: 'gpt-5.5' } })}\n`);
    await writeAt(path.join(codex, 'session_index.jsonl'), `${JSON.stringify({ id, thread_name: 'billing', updated_at: new Date().toISOString() })}\n`);
    assert.equal((await d.find())[0]?.file, file);
  });

  it('finds sessions of a folder whose path has non-ASCII characters, however the project folder spells them', async () => {
    const root = await makeTempDir('disc-utf-');
    const folder = path.join(root, 'Projets', 'café ünï 日本');
    await fs.mkdir(folder, { recursive: true });
    const claude = path.join(root, 'claude');
    const file = await writeAt(path.join(claude, 'projects', claudeProjectSlug(folder), 's.jsonl'), claudeCall({ cwd: folder, sessionId: 'utf' }));
    assert.equal((await new SessionDiscovery({ folder, claudeConfigDir: claude, sources: ['claude'] }).find())[0]?.file, file);
    // A decomposed accent (macOS) gives the folder name one more dash.
    const nfd = path.join(root, 'claude2', 'projects', claudeProjectSlug(folder.normalize('NFD')), 's.jsonl');
    assert.notEqual(path.basename(path.dirname(nfd)), claudeProjectSlug(folder));
    await writeAt(nfd, claudeCall({ cwd: folder.normalize('NFD'), sessionId: 'nfd' }));
    assert.equal((await new SessionDiscovery({ folder, claudeConfigDir: path.join(root, 'claude2'), sources: ['claude'] }).find())[0]?.sessionId, 'nfd');
  });

  it('the cwd scan reads only what was appended, skips nested (escaped) keys, and starts over on a replaced file', async () => {
    const dir = await makeTempDir('cwdscan-');
    const file = path.join(dir, 's.jsonl');
    await fs.writeFile(file, userLine('/a', 'pasted {"cwd":"/fake"} text') + userLine(null, 'x'));
    const scanner = new CwdScanner();
    const st = async () => fs.stat(file);
    assert.deepEqual(await scanner.scan(file, await st()), ['/a']);
    await fs.appendFile(file, userLine('/a/b', 'y') + '{"cwd":"/torn');
    assert.deepEqual(await scanner.scan(file, await st()), ['/a', '/a/b']);
    await fs.appendFile(file, `"}\n`);
    assert.deepEqual(await scanner.scan(file, await st()), ['/a', '/a/b', '/torn']);
    await fs.writeFile(file, userLine('/z', 'new'));
    assert.deepEqual(await scanner.scan(file, await st()), ['/z']);
  });

  it('the cwd scan of a big file goes a part at a time within its budget, on where it stopped', async () => {
    const dir = await makeTempDir('cwdscan-big-');
    const file = path.join(dir, 's.jsonl');
    const filler = userLine('/home', 'x'.repeat(1024 * 1024));
    await fs.writeFile(file, filler.repeat(12) + userLine('/home/app', 'cd app'));
    const scanner = new CwdScanner();
    const st = await fs.stat(file);
    assert.deepEqual(await scanner.scan(file, st, 4 * 1024 * 1024), ['/home']);
    assert.ok(scanner.lastBytes >= 4 * 1024 * 1024 && scanner.lastBytes < 9 * 1024 * 1024, String(scanner.lastBytes));
    let cwds = await scanner.scan(file, st, 4 * 1024 * 1024);
    for (let i = 0; i < 3 && !cwds.includes('/home/app'); i++) cwds = await scanner.scan(file, st, 4 * 1024 * 1024);
    assert.deepEqual(cwds, ['/home', '/home/app']);
    assert.equal(await scanner.scan(file, st, 4 * 1024 * 1024).then(() => scanner.lastBytes), 0, 'nothing left to read');
  });
});
