import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader } from '../../../src/core/context/claude';
import { codexRolloutReader } from '../../../src/core/context/codex';
import { claudeCall, claudeUser, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function log(lines: string[]): Promise<string> {
  const file = path.join(await makeTempDir('tail-agents-'), 'log.jsonl');
  await fs.writeFile(file, lines.join(''));
  return file;
}

describe('agent logs are read from the tail: the newest call settles the reading', () => {
  it('Claude: stops at the last main-chain call, or at a compaction, without reading the rest', async () => {
    const pad = 'p'.repeat(2_000);
    const lines = Array.from({ length: 300 }, (_, i) => claudeCall({ input: 1_000 + i, text: pad }));
    const calls = await log([...lines, claudeUser('next question')]);
    const size = (await fs.stat(calls)).size;
    const r = claudeTranscriptReader(calls, { chunkSize: 4_096 });
    const reading = await r.read();
    assert.ok(reading.known && reading.usedTokens === 1_299);
    assert.ok(r.stats.bytesRead < size / 10, `read ${r.stats.bytesRead} of ${size}`);
    const compacted = await log([...lines, `${JSON.stringify({ type: 'system', subtype: 'compact_boundary', sessionId: 'sess-1', timestamp: 't', compactMetadata: { postTokens: 5_000 } })}\n`]);
    const c = claudeTranscriptReader(compacted, { chunkSize: 4_096 });
    const after = await c.read();
    assert.ok(after.known && after.usedTokens === 5_000);
    assert.ok(c.stats.bytesRead < size / 10, `read ${c.stats.bytesRead}`);
  });

  it('Claude: sidechain calls, API errors and lines that only mention "usage" do not stop the scan', async () => {
    const lines = [claudeCall({ input: 42_000 }), claudeCall({ input: 1, sidechain: true }), claudeCall({ input: 2, apiError: true }), claudeUser('"assistant" and "usage" and compact_boundary')];
    const r = await claudeTranscriptReader(await log(lines), { chunkSize: 64 }).read();
    assert.ok(r.known && r.usedTokens === 42_000);
  });

  it('Codex: stops at the last token_count with usage, skipping heartbeats', async () => {
    const pad = `${JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', content: 'q'.repeat(2_000) } })}\n`;
    const lines = [codexMeta({ id: 'cx' })];
    for (let i = 0; i < 300; i++) lines.push(pad, codexTokens(20_000 + i));
    lines.push(codexTokens(null), pad);
    const file = await log(lines);
    const size = (await fs.stat(file)).size;
    const r = codexRolloutReader(file, { chunkSize: 4_096 });
    const reading = await r.read();
    assert.ok(reading.known && reading.usedTokens === 20_299 && reading.sessionId === 'cx');
    assert.ok(r.stats.bytesRead < size / 10, `read ${r.stats.bytesRead} of ${size}`);
  });
});
