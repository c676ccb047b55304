import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug, SessionDiscovery } from '../../../src/core/context/discovery';
import { claudeHead } from '../../../src/core/context/heads';
import { claudeCall } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function put(file: string, text: string, mtimeSec?: number): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  if (mtimeSec !== undefined) await fs.utimes(file, mtimeSec, mtimeSec);
  return file;
}

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

describe('agent log heads', () => {
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
