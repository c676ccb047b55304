import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader } from '../../../src/core/context/claude';
import { codexPercent, codexRolloutReader } from '../../../src/core/context/codex';
import { parseGenericUsage, readGenericUsage } from '../../../src/core/context/generic';
import type { ContextResult } from '../../../src/core/context/types';
import { claudeCall, claudeUser, codexMeta, codexTokens } from '../helpers/agentLines';
import { fixturePath, makeTempDir } from '../helpers/fixtures';

function known(r: ContextResult): Extract<ContextResult, { known: true }> {
  assert.ok(r.known, `expected a reading, got: ${r.known ? '' : r.reason}`);
  return r;
}

async function writeTemp(name: string, content: string): Promise<string> {
  const file = path.join(await makeTempDir('ctx-readers-'), name);
  await fs.writeFile(file, content);
  return file;
}

describe('context readers on the shared fixtures', () => {
  it('Claude: the last main-chain call, 99 212 tokens = 49.6 %', async () => {
    const r = known(await claudeTranscriptReader(fixturePath('agents', 'claude-session.jsonl')).read());
    assert.equal(r.source, 'claude');
    assert.equal(r.usedTokens, 99_212);
    assert.equal(r.windowTokens, 200_000);
    assert.equal(r.percent, 49.6);
    assert.equal(r.compactAtPercent, 83.5);
    assert.equal(r.sessionId, '5b0c9a8e-1f2d-4c3b-9a8e-7d6c5b4a3f21');
    assert.equal(r.model, 'claude-sonnet-4-5-20250929');
  });

  it('Claude: after an auto-compaction with no call since, postTokens (21 450 = 10.7 %)', async () => {
    const r = known(await claudeTranscriptReader(fixturePath('agents', 'claude-compacted.jsonl')).read());
    assert.equal(r.usedTokens, 21_450);
    assert.equal(r.percent, 10.7);
  });

  it('Codex: last token_count with info, Codex\'s own percentage (15 % used, 85 % left)', async () => {
    const r = known(await codexRolloutReader(fixturePath('agents', 'codex-rollout.jsonl')).read());
    assert.equal(r.source, 'codex');
    assert.equal(r.usedTokens, 49_022);
    assert.equal(r.windowTokens, 258_400);
    assert.equal(Math.round(r.percent), 15);
    assert.equal(r.compactAtPercent, 90);
    assert.equal(r.sessionId, '019aad50-a7e6-7422-b7a8-0b384290624f');
  });
});

describe('Claude reader rules', () => {
  it('uses a 1M window for a [1m] model and when usage proves it, and honours an override', async () => {
    const m1 = known(await claudeTranscriptReader(await writeTemp('a.jsonl', claudeCall({ model: 'claude-opus-4-6[1m]', input: 10, cacheRead: 299_990 }))).read());
    assert.equal(m1.windowTokens, 1_000_000);
    assert.equal(m1.percent, 30);
    const proven = known(await claudeTranscriptReader(await writeTemp('b.jsonl', claudeCall({ cacheRead: 250_000 }))).read());
    assert.equal(proven.windowTokens, 1_000_000);
    const small = await writeTemp('c.jsonl', claudeCall({ cacheRead: 50_000 - 10 }));
    assert.equal(known(await claudeTranscriptReader(small).read()).percent, 25);
    const overridden = known(await claudeTranscriptReader(small, { windowOverride: 100_000 }).read());
    assert.equal(overridden.windowTokens, 100_000);
    assert.equal(overridden.percent, 50);
  });

  it('ignores sidechain, API-error and <synthetic> lines', async () => {
    const file = await writeTemp('s.jsonl',
      claudeCall({ input: 1000 }) +
      claudeCall({ input: 150_000, sidechain: true }) +
      claudeCall({ input: 90_000, apiError: true }) +
      claudeCall({ input: 0, model: '<synthetic>' }));
    assert.equal(known(await claudeTranscriptReader(file).read()).usedTokens, 1000);
  });

  it('is unknown, never 0 %, without a usable call', async () => {
    const r = await claudeTranscriptReader(await writeTemp('u.jsonl', claudeUser('hello'))).read();
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, /no main-chain assistant call/);
    const missing = await claudeTranscriptReader('/nonexistent/x.jsonl').read();
    assert.equal(missing.known, false);
  });
});

describe('Codex reader rules', () => {
  it('keeps the previous reading across info:null heartbeats and never uses the session total', async () => {
    const file = await writeTemp('rollout.jsonl', codexMeta({ id: 'c-9' }) + codexTokens(30_000) + codexTokens(null) + codexTokens(null));
    const r = known(await codexRolloutReader(file).read());
    assert.equal(r.usedTokens, 30_000);
    assert.equal(r.sessionId, 'c-9');
  });

  it('clamps the baseline percentage to 0–100', () => {
    assert.equal(codexPercent(5_000, 258_400), 0);
    assert.equal(codexPercent(300_000, 258_400), 100);
    assert.equal(codexPercent(135_200, 258_400), 50);
  });
});

describe('generic context_usage.json', () => {
  const good = { source: 'claude', session_id: 's1', used_tokens: 62_000, context_window: 200_000, updated_at: '2026-11-20T09:00:00Z' };

  it('reads a valid file', async () => {
    const file = await writeTemp('context_usage.json', JSON.stringify(good));
    const r = known(await readGenericUsage(file));
    assert.equal(r.source, 'generic');
    assert.equal(r.agent, 'claude');
    assert.equal(r.percent, 31);
    assert.equal(r.compactAtPercent, 83.5);
  });

  it('gives a reason naming the bad field, not a number', () => {
    const r = parseGenericUsage(JSON.stringify({ ...good, used_tokens: 'lots' }), 'context_usage.json');
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, /context_usage\.json: field "used_tokens"/);
    const w = parseGenericUsage(JSON.stringify({ ...good, context_window: 0 }), 'f.json');
    assert.match(w.known ? '' : w.reason, /"context_window"/);
    const d = parseGenericUsage(JSON.stringify({ ...good, updated_at: 'yesterday' }), 'f.json');
    assert.match(d.known ? '' : d.reason, /"updated_at"/);
    // Out of the date range: a reason too, never an exception out of the meter.
    const far = parseGenericUsage(JSON.stringify({ ...good, updated_at: 1e20 }), 'f.json');
    assert.match(far.known ? '' : far.reason, /"updated_at": not a valid time/);
    const j = parseGenericUsage('{"source":', 'f.json');
    assert.match(j.known ? '' : j.reason, /not valid JSON/);
  });
});
