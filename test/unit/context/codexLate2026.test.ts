import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { codexRolloutReader, codexSessionIdFromFile, codexRolloutIdFromFile } from '../../../src/core/context/codex';
import { SessionDiscovery } from '../../../src/core/context/discovery';
import { ContextMeter } from '../../../src/core/context/meter';
import { streamZst } from '../../../src/core/zstd';
import { codexMeta, codexTokens } from '../helpers/agentLines';
import { fixturePath, makeTempDir } from '../helpers/fixtures';
import { writePaginated } from '../helpers/codexPaginated';
import { storedZstd } from '../helpers/zstdFrame';

const THREAD = '019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68';
const NAME = `rollout-2026-11-20T16-00-00-${THREAD}.jsonl`;
const FIXTURE_ZST = fixturePath('transcripts', 'codex-zst', 'sessions', '2026', '11', '20', `${NAME}.zst`);

async function writeAt(file: string, content: Buffer | string, mtime: Date): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.utimes(file, mtime, mtime);
  return file;
}

const weekAgo = new Date(Date.now() - 8 * 86_400_000);

describe('zstd decoding (streamZst)', () => {
  it('decodes the zstd CLI output of the fixture byte for byte, and stops when asked', async () => {
    const plain = await fs.readFile(fixturePath('transcripts', 'codex-2026.jsonl'));
    const pieces: Buffer[] = [];
    const done = await streamZst(FIXTURE_ZST, (p) => void pieces.push(p));
    assert.ok(Buffer.concat(pieces).equals(plain));
    assert.deepEqual([done?.decodedBytes, done?.stopped, done?.bytesRead], [plain.length, false, (await fs.stat(FIXTURE_ZST)).size]);
    let calls = 0;
    const early = await streamZst(FIXTURE_ZST, () => ++calls === 1);
    assert.deepEqual([early?.stopped, calls], [true, 1]);
  });

  it('concatenated frames are all decoded; a file that is not zstd is refused with its name; a missing one is null', async () => {
    const dir = await makeTempDir('zstd-');
    const data = Buffer.from('a\n'.repeat(100_000));
    const multi = await writeAt(path.join(dir, 'm.zst'), storedZstd(data, 4), new Date());
    const pieces: Buffer[] = [];
    await streamZst(multi, (p) => void pieces.push(p));
    assert.ok(Buffer.concat(pieces).equals(data));
    const bad = await writeAt(path.join(dir, 'bad.jsonl.zst'), '{"not":"zstd"}\n', new Date());
    await assert.rejects(streamZst(bad, () => undefined), (e: Error) => e.message.startsWith(`${bad}: not readable as zstd`));
    assert.equal(await streamZst(path.join(dir, 'none.zst'), () => undefined), null);
  });
});

describe('Codex compressed rollouts: discovery and the meter', () => {
  it('a rollout idle for a week, compressed in sessions/ or archived_sessions/, is the folder\'s session', async () => {
    const root = await makeTempDir('zst-disc-');
    const folder = path.join(root, 'work', 'app');
    await fs.mkdir(folder, { recursive: true });
    const home = path.join(root, 'codex');
    const text = codexMeta({ id: THREAD, cwd: folder }) + codexTokens(40_000);
    const file = await writeAt(path.join(home, 'sessions', '2026', '11', '20', `${NAME}.zst`), storedZstd(Buffer.from(text)), weekAgo);
    const found = await new SessionDiscovery({ folder, codexHome: home, sources: ['codex'] }).find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId, c.cwd]), [[file, THREAD, folder]]);

    const archived = path.join(home, 'archived_sessions', `${NAME}.zst`);
    await fs.mkdir(path.dirname(archived), { recursive: true });
    await fs.rename(file, archived);
    const meter = await new ContextMeter({ folder, codexHome: home, sources: ['codex'] }).read();
    assert.ok(meter.current.known, meter.current.known ? '' : meter.current.reason);
    assert.deepEqual([meter.current.file, meter.current.sessionId, meter.current.usedTokens], [archived, THREAD, 40_000]);
  });

  it('a compressed rollout that started elsewhere and moved into the folder is found by its later cwd', async () => {
    const root = await makeTempDir('zst-moved-');
    const folder = path.join(root, 'app');
    await fs.mkdir(folder, { recursive: true });
    const home = path.join(root, 'codex');
    const later = JSON.stringify({ timestamp: '2026-11-20T16:01:00.000Z', type: 'turn_context', payload: { cwd: folder, model: 'gpt-5.5' } });
    const text = `${codexMeta({ id: THREAD, cwd: root })}${later}\n${codexTokens(30_000)}`;
    const file = await writeAt(path.join(home, 'sessions', '2026', '11', '20', `${NAME}.zst`), storedZstd(Buffer.from(text)), weekAgo);
    const found = await new SessionDiscovery({ folder, codexHome: home, sources: ['codex'] }).find();
    assert.deepEqual(found.map((c) => [c.file, c.cwd]), [[file, folder]]);
  });

  it('a rollout that flips between .jsonl and .jsonl.zst is the same session; while both exist the plain one wins', async () => {
    const root = await makeTempDir('zst-flip-');
    const folder = path.join(root, 'app');
    await fs.mkdir(folder, { recursive: true });
    const home = path.join(root, 'codex');
    const plain = path.join(home, 'sessions', '2026', '11', '20', NAME);
    const text = codexMeta({ id: THREAD, cwd: folder }) + codexTokens(40_000);
    await writeAt(plain, text, weekAgo);
    const meter = new ContextMeter({ folder, codexHome: home, sources: ['codex'] });
    const before = (await meter.read()).current;
    // Codex compresses it: for a moment both exist, then the plain file goes.
    await writeAt(`${plain}.zst`, storedZstd(Buffer.from(text)), weekAgo);
    const both = await new SessionDiscovery({ folder, codexHome: home, sources: ['codex'] }).find();
    assert.deepEqual(both.map((c) => c.file), [plain]);
    await fs.rm(plain);
    // The same meter, seconds later (before its next full listing of the date folders): it looks for the other name.
    const after = (await meter.read()).current;
    // Resumed: plain again, appended to.
    await writeAt(plain, text + codexTokens(52_000), new Date());
    await fs.rm(`${plain}.zst`);
    const resumed = (await meter.read()).current;
    assert.ok(before.known && after.known && resumed.known);
    assert.deepEqual([before.sessionId, after.sessionId, resumed.sessionId], [THREAD, THREAD, THREAD]);
    assert.deepEqual([before.usedTokens, after.usedTokens, resumed.usedTokens], [40_000, 40_000, 52_000]);
    assert.equal(after.file, `${plain}.zst`);
  });

  it('the meter reads the compressed fixture exactly as the plain rollout, and reads it again only when it changes', async () => {
    const dir = await makeTempDir('zst-meter-');
    const plain = path.join(dir, NAME);
    await fs.copyFile(fixturePath('transcripts', 'codex-2026.jsonl'), plain);
    const a = await codexRolloutReader(plain).read();
    const reader = codexRolloutReader(FIXTURE_ZST);
    const b = await reader.read();
    assert.ok(a.known && b.known);
    assert.deepEqual({ ...b, file: '' }, { ...a, file: '' });
    assert.equal(reader.stats.mode, 'initial');
    await reader.read();
    assert.deepEqual([reader.stats.mode, reader.stats.bytesRead], ['unchanged', 0]);
  });

  it('the file name gives the thread id, also of a compressed file and of a later page', () => {
    const page = `/h/sessions/rollout-2026-11-21T09-41-12-${THREAD}_019fa1d4-7b10-7e22-8a6c-0d1e2f3a4b5c.jsonl.zst`;
    assert.equal(codexSessionIdFromFile(page), THREAD);
    assert.equal(codexRolloutIdFromFile(page), '019fa1d4-7b10-7e22-8a6c-0d1e2f3a4b5c');
    assert.equal(codexRolloutIdFromFile(`/h/${NAME}.zst`), THREAD);
  });
});

describe('Codex paginated history: discovery and the meter', () => {
  it('the thread\'s newest page is the session, and its token events give the reading', async () => {
    const folder = await makeTempDir('paginated-meter-');
    const home = path.join(folder, '.codex-home');
    const { expected } = await writePaginated(folder, home);
    // Written in the same instant: the page written after the revert still comes first.
    const same = new Date();
    for (const f of expected.files_head_first) await fs.utimes(path.join(home, f.path.replace(/^codex-home\//, '')), same, same);
    const r = (await new ContextMeter({ folder, codexHome: home, sources: ['codex'] }).read()).current;
    assert.ok(r.known, r.known ? '' : r.reason);
    assert.equal(r.file, path.join(home, expected.files_head_first[0]!.path.replace(/^codex-home\//, '')));
    assert.equal(r.sessionId, expected.thread_id);
    const t = expected.tokens_last_turn;
    assert.deepEqual([r.usedTokens, r.windowTokens, Math.round(r.percent)], [t.last_token_usage_total_tokens, t.model_context_window, t.codex_footer_pct_used]);
  });

  it('a page Codex just started, with no usage yet, reads the thread\'s last usage before the cut, never the reverted turn\'s', async () => {
    const folder = await makeTempDir('paginated-fresh-');
    const home = path.join(folder, '.codex-home');
    const { page1, page2, expected } = await writePaginated(folder, home);
    // Page 2 as it is right after the revert: its session_meta only.
    const first = (await fs.readFile(page2, 'utf8')).split('\n')[0]!;
    await fs.writeFile(page2, `${first}\n`);
    const cut = (JSON.parse(first) as { payload: { history_base: { end_ordinal_exclusive: number } } }).payload.history_base.end_ordinal_exclusive;
    type Line = { ordinal: number; payload: { type?: string; info?: { last_token_usage: { total_tokens: number } } | null } };
    const usage = (lines: Line[]) => lines.filter((l) => l.payload.type === 'token_count' && l.payload.info).map((l) => l.payload.info!.last_token_usage.total_tokens);
    const all = (await fs.readFile(page1, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
    const before = usage(all.filter((l) => l.ordinal < cut));
    const reverted = usage(all.filter((l) => l.ordinal >= cut));
    assert.ok(before.length && reverted.length);
    const r = (await new ContextMeter({ folder, codexHome: home, sources: ['codex'] }).read()).current;
    assert.ok(r.known, r.known ? '' : r.reason);
    assert.deepEqual([r.usedTokens, r.file, r.sessionId], [before[before.length - 1], page1, expected.thread_id]);
    assert.ok(!reverted.includes(r.usedTokens));
  });
});
