import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader } from '../../../src/core/context/claude';
import { codexRolloutReader } from '../../../src/core/context/codex';
import { agentLabel } from '../../../src/core/context/format';
import { parseGenericUsage } from '../../../src/core/context/generic';
import { parseStatuslineInput } from '../../../src/core/context/statuslineInput';
import type { ContextReading, ContextResult } from '../../../src/core/context/types';
import { compactAtPercentFor } from '../../../src/core/context/usage';
import { claudeCall, claudeUser, codexMeta, codexTokens } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function log(name: string, lines: string[]): Promise<string> {
  const file = path.join(await makeTempDir('ctx-agent-logs-'), name);
  await fs.writeFile(file, lines.join(''));
  return file;
}
const json = (v: unknown) => `${JSON.stringify(v)}\n`;
function known(r: ContextResult): ContextReading {
  assert.ok(r.known, `expected a reading, got: ${r.known ? '' : r.reason}`);
  return r;
}
/** A Claude Code compact_boundary line (main chain unless `extra` says otherwise). */
const boundary = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  json({
    parentUuid: null, isSidechain: false, sessionId: 'sess-1', type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted',
    timestamp: '2026-11-20T10:00:00.000Z', compactMetadata: { trigger: 'auto', ...meta }, ...extra,
  });

const UUID = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('Claude Code transcripts: what counts as a call and as a compaction', () => {
  it('an assistant line whose usage is not an object is not a call', async () => {
    const odd = json({ type: 'assistant', isSidechain: false, sessionId: 'sess-1', timestamp: 'T2', message: { model: 'claude-sonnet-4-5', usage: 'n/a' } });
    const r = known(await claudeTranscriptReader(await log('s.jsonl', [claudeCall({ input: 20_000 }), odd])).read());
    assert.equal(r.usedTokens, 20_000);
    assert.equal(r.at, '2026-11-20T09:00:00.000Z');
  });

  it('a torn line in the middle (written half, then the session went on) is skipped wherever it sits', async () => {
    const tornCall = claudeCall({ input: 90_000 }).slice(0, -60) + '\n';
    const tornBoundary = boundary({ preTokens: 150_000, postTokens: 1 }).slice(0, -40) + '\n';
    const file = await log('s.jsonl', [claudeCall({ input: 10_000 }), tornBoundary, claudeCall({ input: 20_000, timestamp: 'T2' }), tornCall, claudeUser('and now?')]);
    const r = known(await claudeTranscriptReader(file).read());
    assert.equal(r.usedTokens, 20_000);
    assert.equal(r.at, 'T2');
    assert.ok(!('compaction' in r));
  });

  it('a count too big for a number (1e999 parses as Infinity) counts as zero, like any unusable count', async () => {
    const huge = '{"type":"assistant","isSidechain":false,"sessionId":"sess-1","timestamp":"T2","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":1e999,"cache_read_input_tokens":30000}}}\n';
    const r = known(await claudeTranscriptReader(await log('s.jsonl', [huge])).read());
    assert.equal(r.usedTokens, 30_000);
    assert.equal(r.percent, 15);
  });

  it('other system lines after a call (turn_duration, local_command) neither end the reading nor count as a compaction', async () => {
    const file = await log('s.jsonl', [
      claudeCall({ input: 50_000 }),
      json({ type: 'system', subtype: 'turn_duration', durationMs: 4_200, isSidechain: false, sessionId: 'sess-1', timestamp: 'T3' }),
      json({ type: 'system', subtype: 'local_command', content: '<command-name>/cost</command-name>', isSidechain: false, sessionId: 'sess-1', timestamp: 'T4' }),
    ]);
    const r = known(await claudeTranscriptReader(file).read());
    assert.equal(r.usedTokens, 50_000);
    assert.ok(!('compaction' in r));
  });

  it('only a system line is a compact boundary, whatever subtype another line carries', async () => {
    const notSystem = json({ type: 'progress', subtype: 'compact_boundary', isSidechain: false, sessionId: 'sess-1', timestamp: 'T5', compactMetadata: { preTokens: 150_000 } });
    const r = known(await claudeTranscriptReader(await log('s.jsonl', [claudeCall({ input: 50_000 }), notSystem])).read());
    assert.equal(r.usedTokens, 50_000);
    assert.ok(!('compaction' in r));
  });

  it('a compaction reports how full the window was before it only for a positive preTokens', async () => {
    const compaction = async (preTokens: unknown) =>
      known(await claudeTranscriptReader(await log('s.jsonl', [claudeCall({ input: 160_000 }), boundary({ preTokens, postTokens: 12_000 })])).read()).compaction;
    assert.deepEqual(await compaction(160_000), { at: '2026-11-20T10:00:00.000Z', percent: 80 });
    assert.deepEqual(await compaction(0), { at: '2026-11-20T10:00:00.000Z' });
    assert.deepEqual(await compaction(-5), { at: '2026-11-20T10:00:00.000Z' });
    assert.deepEqual(await compaction('160000'), { at: '2026-11-20T10:00:00.000Z' });
  });

  it('a compaction without a time is not reported (it cannot be compared with the handoff), but its postTokens still count', async () => {
    const file = await log('s.jsonl', [claudeCall({ input: 160_000 }), boundary({ preTokens: 160_000, postTokens: 12_000 }, { timestamp: undefined })]);
    const r = known(await claudeTranscriptReader(file).read());
    assert.equal(r.usedTokens, 12_000);
    assert.ok(!('compaction' in r), JSON.stringify(r.compaction));
  });

  it('postTokens 0 is a reading of 0 tokens, not a missing one', async () => {
    const r = known(await claudeTranscriptReader(await log('s.jsonl', [claudeCall({ input: 160_000 }), boundary({ postTokens: 0 })])).read());
    assert.equal(r.usedTokens, 0);
    assert.equal(r.percent, 0);
  });

  it('a sub-agent line after the last call never changes the session id', async () => {
    const side = json({ type: 'user', isSidechain: true, agentId: 'a1', sessionId: 'sub-agent', timestamp: 'T6', message: { role: 'user', content: 'look it up' } });
    const r = known(await claudeTranscriptReader(await log('file-name.jsonl', [claudeCall({ input: 10_000, sessionId: 'main-chain' }), side])).read());
    assert.equal(r.sessionId, 'main-chain');
  });

  it('a negative window override is ignored like 0: the window is detected', async () => {
    const file = await log('s.jsonl', [claudeCall({ input: 100_000 })]);
    const r = known(await claudeTranscriptReader(file, { windowOverride: -400_000 }).read());
    assert.equal(r.windowTokens, 200_000);
    assert.equal(r.percent, 50);
  });

  it('a compaction after a long stretch without calls settles the reading without scanning back to the last call', async () => {
    const talk = Array.from({ length: 300 }, (_, i) => claudeUser(`question ${i} ${'q'.repeat(2_000)}`));
    const file = await log('s.jsonl', [claudeCall({ input: 150_000 }), ...talk, boundary({ preTokens: 150_000, postTokens: 9_000 })]);
    const size = (await fs.stat(file)).size;
    const reader = claudeTranscriptReader(file, { chunkSize: 4_096 });
    assert.equal(known(await reader.read()).usedTokens, 9_000);
    assert.ok(reader.stats.bytesRead < size / 10, `read ${reader.stats.bytesRead} of ${size}`);
  });
});

describe('Codex rollouts: counts, session and model', () => {
  it('a token_count of 0 tokens is a reading of 0, not a missing one', async () => {
    const r = known(await codexRolloutReader(await log('r.jsonl', [codexTokens(30_000, 112_000), codexTokens(0, 112_000)])).read());
    assert.equal(r.usedTokens, 0);
    assert.equal(r.percent, 0);
  });

  it('a torn line in the middle of a rollout is skipped', async () => {
    const torn = codexTokens(99_000, 112_000).slice(0, -30) + '\n';
    const file = await log('r.jsonl', [codexTokens(30_000, 112_000), torn, codexTokens(40_000, 112_000), torn]);
    assert.equal(known(await codexRolloutReader(file).read()).usedTokens, 40_000);
  });

  it('finds the session id at the top of the file however the JSON is spaced, as the full parse would', async () => {
    const spaced = '{"timestamp": "2026-11-22T20:45:35.610Z", "type": "session_meta", "payload": { "id": "spaced-id", "cwd": "/w"}}\n';
    const tight = '{"timestamp":"2026-11-22T20:45:35.610Z","type":"session_meta","payload":{"id":"tight-id","cwd":"/w"}}\n';
    for (const [meta, id] of [[spaced, 'spaced-id'], [tight, 'tight-id']] as const) {
      const file = await log(`rollout-2026-11-22T20-45-35-${UUID}.jsonl`, [meta, codexTokens(40_000, 112_000)]);
      assert.equal(known(await codexRolloutReader(file).read()).sessionId, id);
    }
  });

  it('only a session_meta line names the session, and only a turn_context names the model', async () => {
    const file = await log(`rollout-${UUID}.jsonl`, [
      codexMeta({ id: 'the-session' }),
      json({ timestamp: 't', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5.1-codex' } }),
      codexTokens(40_000, 112_000),
      json({ timestamp: 't', type: 'response_item', payload: { type: 'message', id: 'msg_0a1b', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] } }),
      json({ timestamp: 't', type: 'event_msg', payload: { type: 'agent_message', message: 'done', model: 'gpt-4o' } }),
    ]);
    const r = known(await codexRolloutReader(file).read());
    assert.equal(r.sessionId, 'the-session');
    const after = await log(`rollout-${UUID}.jsonl`, [
      codexTokens(40_000, 112_000),
      json({ timestamp: 't', type: 'turn_context', payload: { cwd: '/w', model: 'gpt-5.1-codex' } }),
      json({ timestamp: 't', type: 'event_msg', payload: { type: 'agent_message', message: 'done', model: 'gpt-4o' } }),
    ]);
    assert.equal(known(await codexRolloutReader(after).read()).model, 'gpt-5.1-codex');
  });
});

describe('the statusLine input: each field is checked, and the reason names it', () => {
  const problem = (v: unknown) => {
    const r = parseStatuslineInput(JSON.stringify(v));
    return r.ok ? 'ok' : r.reason;
  };

  it('names the type it received for the whole input', () => {
    assert.equal(problem(null), 'statusLine input: field "(root)": Expected object, received null');
    assert.equal(problem([{ cwd: '/c' }]), 'statusLine input: field "(root)": Expected object, received array');
    assert.equal(problem('/c'), 'statusLine input: field "(root)": Expected object, received string');
  });

  it('rejects a wrong type in every known field, naming the field and what it received', () => {
    const cases: [unknown, string][] = [
      [{ session_id: 7 }, 'field "session_id": Expected string, received number'],
      [{ transcript_path: ['/t.jsonl'] }, 'field "transcript_path": Expected string, received array'],
      [{ workspace: '/w' }, 'field "workspace": Expected object, received string'],
      [{ workspace: { current_dir: 1 } }, 'field "workspace.current_dir": Expected string, received number'],
      [{ workspace: { project_dir: false } }, 'field "workspace.project_dir": Expected string, received boolean'],
      [{ model: 'claude-opus-4' }, 'field "model": Expected object, received string'],
      [{ model: { id: 4 } }, 'field "model.id": Expected string, received number'],
      [{ model: { display_name: {} } }, 'field "model.display_name": Expected string, received object'],
      [{ context_window: [] }, 'field "context_window": Expected object, received array'],
      [{ context_window: { context_window_size: '200000' } }, 'field "context_window.context_window_size": Expected number, received string'],
      [{ context_window: { used_percentage: -1 } }, 'field "context_window.used_percentage": Number must be from 0 to 100'],
      [{ context_window: { used_percentage: 100.5 } }, 'field "context_window.used_percentage": Number must be from 0 to 100'],
      [{ context_window: { current_usage: 5 } }, 'field "context_window.current_usage": Expected object, received number'],
      [{ context_window: { current_usage: { output_tokens: -3 } } }, 'field "context_window.current_usage.output_tokens": Number must be greater than or equal to 0'],
    ];
    for (const [fields, why] of cases) assert.equal(problem({ cwd: '/c', ...(fields as object) }), `statusLine input: ${why}`);
  });

  it('accepts the edges: 0 and 100 percent, zero token counts', () => {
    assert.equal(problem({ cwd: '/c', context_window: { used_percentage: 0 } }), 'ok');
    assert.equal(problem({ cwd: '/c', context_window: { used_percentage: 100 } }), 'ok');
    const zeros = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
    assert.equal(problem({ cwd: '/c', context_window: { current_usage: zeros } }), 'ok');
  });
});

describe('context_usage.json written by any agent', () => {
  const usage = { session_id: 's-1', used_tokens: 50_000, context_window: 200_000, updated_at: '2026-01-02T03:04:05Z' };

  it('a writer named like a built-in object property is shown by its own name', () => {
    for (const source of ['constructor', 'toString', '__proto__']) {
      assert.equal(agentLabel(parseGenericUsage(JSON.stringify({ ...usage, source }), 'cu.json')), `${source} (context_usage.json)`);
    }
  });

  it('any writer whose name starts with codex compacts at 90 %', () => {
    assert.equal(compactAtPercentFor('Codex CLI', 200_000), 90);
    assert.equal(known(parseGenericUsage(JSON.stringify({ ...usage, source: 'codex-cli' }), 'cu.json')).compactAtPercent, 90);
    assert.equal(compactAtPercentFor('my-codex', 200_000), 100);
  });
});
