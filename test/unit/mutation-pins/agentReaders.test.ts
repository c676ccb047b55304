import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeCompactAtPercent, claudeTranscriptReader, claudeWindow, CLAUDE_WINDOW, CLAUDE_WINDOW_1M } from '../../../src/core/context/claude';
import { codexPercent, codexRolloutReader, codexSessionIdFromFile } from '../../../src/core/context/codex';
import type { ContextResult } from '../../../src/core/context/types';
import { claudeCall, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function log(name: string, lines: string[]): Promise<string> {
  const file = path.join(await makeTempDir('ctx-pins-'), name);
  await fs.writeFile(file, lines.join(''));
  return file;
}
const json = (v: unknown) => `${JSON.stringify(v)}\n`;
function known(r: ContextResult): Extract<ContextResult, { known: true }> {
  assert.ok(r.known, `expected a reading, got: ${r.known ? '' : r.reason}`);
  return r;
}
function unknownReason(r: ContextResult): string {
  assert.ok(!r.known, 'expected no reading');
  return r.reason;
}

const UUID = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('Codex rollouts: the rules of the reading', () => {
  it("Codex's percentage leaves the 12 000-token baseline out of both sides and clamps to 0–100", () => {
    assert.equal(codexPercent(62_000, 112_000), 50);
    assert.equal(codexPercent(5_000, 112_000), 0);
    assert.equal(codexPercent(200_000, 112_000), 100);
    assert.equal(codexPercent(12_000 + 33_333, 112_000), 33.3);
  });

  it('a window no bigger than the baseline is a plain share of it, still at most 100', () => {
    assert.equal(codexPercent(6_000, 12_000), 50);
    assert.equal(codexPercent(2_500, 10_000), 25);
    assert.equal(codexPercent(15_000, 10_000), 100);
    assert.equal(codexPercent(1, 3), 33.3);
  });

  it('the session id is the uuid at the end of the file name, else the base name', () => {
    assert.equal(codexSessionIdFromFile(`/x/rollout-2026-11-22T20-45-35-${UUID}.jsonl`), UUID);
    assert.equal(codexSessionIdFromFile(`/x/rollout-${UUID.toUpperCase()}.jsonl`), UUID.toUpperCase());
    assert.equal(codexSessionIdFromFile(`/x/rollout-${UUID}-copy.jsonl`), `rollout-${UUID}-copy`);
    assert.equal(codexSessionIdFromFile('/x/notes.jsonl'), 'notes');
  });

  it('reads the last token_count with usage: tokens, window, percentage, time, session and file', async () => {
    const file = await log(`rollout-2026-${UUID}.jsonl`, [codexMeta({ id: 'meta-id' }), codexTokens(40_000, 112_000), codexTokens(62_000, 112_000)]);
    const r = known(await codexRolloutReader(file).read());
    assert.deepEqual(r, {
      known: true, source: 'codex', sessionId: 'meta-id', usedTokens: 62_000, windowTokens: 112_000, percent: 50, compactAtPercent: 90,
      at: '2026-11-22T20:46:02.114Z', file,
    });
  });

  it('skips heartbeats and unusable counts back to the last real one', async () => {
    const tc = (info: unknown) => json({ timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info } });
    const file = await log('r.jsonl', [
      codexTokens(30_000, 112_000),
      codexTokens(null),
      tc({ last_token_usage: { total_tokens: -1 }, model_context_window: 112_000 }),
      tc({ last_token_usage: { total_tokens: 500 }, model_context_window: 0 }),
      tc({ last_token_usage: { total_tokens: '9' }, model_context_window: 112_000 }),
      tc({ last_token_usage: { total_tokens: 500 }, model_context_window: '112000' }),
      tc('not an object'),
      json({ timestamp: 't', type: 'response_item', payload: { type: 'token_count', info: { last_token_usage: { total_tokens: 1 }, model_context_window: 10 } } }),
      json({ type: 'event_msg', payload: { type: 'agent_message', info: { last_token_usage: { total_tokens: 1 }, model_context_window: 10 }, note: 'token_count' } }),
      'not json at all "token_count"\n',
      '[1,2,"token_count"]\n',
      'null\n',
      '7\n',
    ]);
    const r = known(await codexRolloutReader(file).read());
    assert.equal(r.usedTokens, 30_000);
    assert.equal(r.at, '2026-11-22T20:46:02.114Z');
  });

  it('the model comes from turn_context, the session from session_meta wherever its id sits', async () => {
    const file = await log('plain-name.jsonl', [
      codexTokens(62_000, 112_000),
      json({ timestamp: 't', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5-codex' } }),
      json({ timestamp: 't', type: 'session_meta', payload: { cwd: '/w', id: 'late-meta' } }),
    ]);
    const r = known(await codexRolloutReader(file).read());
    assert.equal(r.model, 'gpt-5-codex');
    assert.equal(r.sessionId, 'late-meta');
  });

  it('a reading without a timestamp has an empty time; without model or meta no model and the file id', async () => {
    const file = await log(`rollout-${UUID}.jsonl`, [json({ type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { total_tokens: 6_000 }, model_context_window: 12_000 } } })]);
    const r = known(await codexRolloutReader(file).read());
    assert.equal(r.at, '');
    assert.equal(r.sessionId, UUID);
    assert.equal(r.percent, 50);
    assert.ok(!('model' in r));
  });

  it('no usable count yet is unknown, saying so, with the session id', async () => {
    const file = await log(`rollout-${UUID}.jsonl`, [codexMeta({ id: 'm-1' }), codexTokens(null)]);
    const r = await codexRolloutReader(file).read();
    assert.equal(unknownReason(r), 'no token_count event with usage in the rollout yet');
    assert.equal(r.sessionId, 'm-1');
    assert.equal(r.source, 'codex');
  });
});

describe('Claude Code transcripts: the rules of the reading', () => {
  it('the window is 1M when the model says [1m], a call proved it, or usage is past 200 000; else the model table, unknown for a model it lacks', () => {
    assert.equal(claudeWindow('claude-sonnet-4-5', 10), CLAUDE_WINDOW);
    assert.equal(claudeWindow(undefined, 10), CLAUDE_WINDOW);
    assert.equal(claudeWindow('claude-sonnet-4-5', 200_000), CLAUDE_WINDOW);
    assert.equal(claudeWindow('claude-sonnet-4-5', 200_001), CLAUDE_WINDOW_1M);
    assert.equal(claudeWindow('claude-sonnet-4-5[1m]', 10), CLAUDE_WINDOW_1M);
    assert.equal(claudeWindow('claude-[1m]-sonnet', 10), undefined);
    assert.equal(claudeWindow('claude-sonnet-4-5', 10, true), CLAUDE_WINDOW_1M);
  });

  it('compacts 33 000 tokens before the end of the window', () => {
    assert.equal(claudeCompactAtPercent(200_000), 83.5);
    assert.equal(claudeCompactAtPercent(1_000_000), 96.7);
  });

  it('sums input, cache creation and cache read of the last main-chain call', async () => {
    const file = await log('sess.jsonl', [claudeCall({ input: 1, cacheRead: 1 }), claudeCall({ input: 100, cacheCreation: 2_000, cacheRead: 40_000, sessionId: 'abc', timestamp: 'T2' })]);
    const r = known(await claudeTranscriptReader(file).read());
    assert.deepEqual(r, {
      known: true, source: 'claude', sessionId: 'abc', model: 'claude-sonnet-4-5-20250929', usedTokens: 42_100, windowTokens: 200_000,
      percent: 21.1, compactAtPercent: 83.5, at: 'T2', file,
    });
  });

  it('counts unusable token fields as zero', async () => {
    const line = json({ type: 'assistant', sessionId: 's', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: -5, cache_creation_input_tokens: 'x', cache_read_input_tokens: 1_000 } } });
    const r = known(await claudeTranscriptReader(await log('s.jsonl', [line])).read());
    assert.equal(r.usedTokens, 1_000);
    assert.equal(r.at, '');
  });

  it('ignores sidechain, API-error and synthetic calls, and lines without usage', async () => {
    const file = await log('sess.jsonl', [
      claudeCall({ input: 20_000, sessionId: 'main' }),
      claudeCall({ input: 90_000, sidechain: true, sessionId: 'side' }),
      claudeCall({ input: 90_000, apiError: true }),
      claudeCall({ input: 90_000, model: '<synthetic>' }),
      json({ type: 'assistant', sessionId: 'main', message: { model: 'claude-sonnet-4-5', usage: null, text: '"usage"' } }),
      json({ type: 'user', message: { usage: { input_tokens: 90_000 } }, note: '"assistant"' }),
      'null\n',
      '["assistant", "usage", "compact_boundary"]\n',
    ]);
    const r = known(await claudeTranscriptReader(file).read());
    assert.equal(r.usedTokens, 20_000);
    assert.equal(r.sessionId, 'main');
  });

  it('once a call used more than 200 000 tokens, the rest of the session is read against 1M', async () => {
    const file = await log('sess.jsonl', [claudeCall({ input: 250_000 })]);
    const reader = claudeTranscriptReader(file);
    assert.equal(known(await reader.read()).windowTokens, 1_000_000);
    await fs.appendFile(file, claudeCall({ input: 50_000 }));
    const r = known(await reader.read());
    assert.equal(r.windowTokens, 1_000_000);
    assert.equal(r.percent, 5);
    assert.equal(r.compactAtPercent, 96.7);
    const exactly = await log('sess.jsonl', [claudeCall({ input: 200_000 })]);
    const second = claudeTranscriptReader(exactly);
    assert.equal(known(await second.read()).windowTokens, 200_000);
    await fs.appendFile(exactly, claudeCall({ input: 50_000 }));
    assert.equal(known(await second.read()).windowTokens, 200_000);
  });

  it('a [1m] model is read against 1M; a window override beats the detection, 0 does not', async () => {
    const file = await log('sess.jsonl', [claudeCall({ input: 100_000, model: 'claude-sonnet-4-5[1m]' })]);
    assert.equal(known(await claudeTranscriptReader(file).read()).percent, 10);
    assert.equal(known(await claudeTranscriptReader(file, { windowOverride: 400_000 }).read()).percent, 25);
    assert.equal(known(await claudeTranscriptReader(file, { windowOverride: 0 }).read()).windowTokens, 1_000_000);
  });

  it('a call without a model keeps the model seen before', async () => {
    const noModel = json({ type: 'assistant', sessionId: 's', message: { usage: { input_tokens: 10 } } });
    const file = await log('s.jsonl', [claudeCall({ model: 'claude-opus-4', input: 5 })]);
    const reader = claudeTranscriptReader(file);
    await reader.read();
    await fs.appendFile(file, noModel);
    const r = known(await reader.read());
    assert.equal(r.model, 'claude-opus-4');
    assert.equal(r.usedTokens, 10);
    const none = known(await claudeTranscriptReader(await log('s.jsonl', [noModel])).read());
    assert.ok(!('model' in none));
  });

  it('after a compaction, its postTokens until the next call; without them, unknown until then', async () => {
    const boundary = (post: unknown, extra: Record<string, unknown> = {}) =>
      json({ type: 'system', subtype: 'compact_boundary', sessionId: 'sess-1', timestamp: 'T9', compactMetadata: { trigger: 'auto', preTokens: 160_000, postTokens: post }, ...extra });
    const a = await log('a.jsonl', [claudeCall({ input: 160_000 })]);
    const reader = claudeTranscriptReader(a);
    await reader.read();
    await fs.appendFile(a, boundary(20_000));
    const withPost = known(await reader.read());
    assert.equal(withPost.usedTokens, 20_000);
    assert.equal(withPost.model, 'claude-sonnet-4-5-20250929');
    const without = await claudeTranscriptReader(await log('b.jsonl', [claudeCall({ input: 160_000 }), boundary(undefined)])).read();
    assert.equal(unknownReason(without), 'compacted at T9 without postTokens; waiting for the next call');
    const negative = await claudeTranscriptReader(await log('c.jsonl', [claudeCall({ input: 160_000 }), boundary(-1, { timestamp: undefined })])).read();
    assert.equal(unknownReason(negative), 'compacted at an unknown time without postTokens; waiting for the next call');
    const sidechain = known(await claudeTranscriptReader(await log('d.jsonl', [claudeCall({ input: 160_000 }), boundary(5, { isSidechain: true })])).read());
    assert.equal(sidechain.usedTokens, 160_000);
  });

  it('without any call it is unknown, with the file name as the session id', async () => {
    const r = await claudeTranscriptReader(await log('name-as-id.jsonl', [json({ type: 'user', message: { content: 'hi' } })])).read();
    assert.equal(unknownReason(r), 'no main-chain assistant call with usage in the transcript yet');
    assert.equal(r.sessionId, 'name-as-id');
  });
});
