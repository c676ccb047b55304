import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader, claudeWindow, CLAUDE_MODEL_WINDOWS } from '../../../src/core/context/claude';
import { ContextMeter } from '../../../src/core/context/meter';
import { checkBudget } from '../../../src/core/context/budget';
import { usageFromStatusline } from '../../../src/core/context/statuslineInput';
import { claudeCall } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function transcript(lines: string): Promise<string> {
  const file = path.join(await makeTempDir('claude-window-'), 's.jsonl');
  await fs.writeFile(file, lines);
  return file;
}

describe('Claude window from the model (Claude Code 2.1.328)', () => {
  const oneM = ['claude-opus-5-5', 'claude-opus-5', 'claude-sonnet-5-5', 'claude-sonnet-5', 'claude-haiku-5-5', 'claude-fable-5', 'claude-mythos-5', 'claude-opus-4-8', 'claude-opus-4-7'];
  const small = ['claude-opus-4-6', 'claude-opus-4-5', 'claude-sonnet-4-6', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-opus-4', 'claude-sonnet-4', 'claude-3-7-sonnet', 'claude-3-5-haiku', 'claude-3-opus', 'claude-3-haiku'];

  it('gives 1M to the current models and 200 000 to claude-opus-4-6, claude-opus-4-5, claude-sonnet-4-6 and earlier', () => {
    for (const m of oneM) assert.equal(claudeWindow(m, 10), 1_000_000, m);
    for (const m of small) assert.equal(claudeWindow(m, 10), 200_000, m);
    assert.equal(Object.keys(CLAUDE_MODEL_WINDOWS).length >= oneM.length + small.length, true);
  });

  it('reads the id as the API writes it: with a date, a provider prefix or a Bedrock version', () => {
    assert.equal(claudeWindow('claude-opus-5-5-20261015', 10), 1_000_000);
    assert.equal(claudeWindow('us.anthropic.claude-opus-4-7-v1:0', 10), 1_000_000);
    assert.equal(claudeWindow('claude-opus-4-6@20260201', 10), 200_000);
    assert.equal(claudeWindow('CLAUDE-SONNET-4-5-20250929', 10), 200_000);
  });

  it('a [1m] suffix on any id is 1M, even on a model the table lacks', () => {
    assert.equal(claudeWindow('claude-opus-4-6[1m]', 10), 1_000_000);
    assert.equal(claudeWindow('claude-nova-9[1M]', 10), 1_000_000);
  });

  it('a model the table lacks has no window; a log without a model keeps the old default of 200 000', () => {
    assert.equal(claudeWindow('claude-nova-9', 10), undefined);
    // A whole-id match: a later minor version is not taken for an earlier one.
    assert.equal(claudeWindow('claude-opus-4-9', 10), undefined);
    assert.equal(claudeWindow(undefined, 10), 200_000);
    assert.equal(claudeWindow('', 10), 200_000);
    // Past 200 000 tokens only the 1M window fits, whatever the model.
    assert.equal(claudeWindow('claude-nova-9', 250_000), 1_000_000);
  });

  it('125 400 tokens of claude-opus-5-5 read as 12.5 % (not 62.7 %), compaction at 96.7 %', async () => {
    const r = await claudeTranscriptReader(await transcript(claudeCall({ model: 'claude-opus-5-5', input: 400, cacheRead: 125_000 }))).read();
    assert.ok(r.known);
    assert.equal(r.windowTokens, 1_000_000);
    assert.equal(r.percent, 12.5);
    assert.equal(r.compactAtPercent, 96.7);
  });

  it('an unknown model is an unknown reading that says how to fix it, keeping the prompt size; an override makes it known', async () => {
    const file = await transcript(claudeCall({ model: 'claude-nova-9', input: 400, cacheRead: 125_000, sessionId: 'nova' }));
    const r = await claudeTranscriptReader(file).read();
    assert.equal(r.known, false);
    assert.ok(!r.known);
    assert.match(r.reason, /context window of model "claude-nova-9" is not known/);
    assert.match(r.reason, /sessionHandoff\.context\.windowOverride/);
    assert.match(r.reason, /statusLine/);
    assert.equal(r.usedTokens, 125_400);
    assert.equal(r.model, 'claude-nova-9');
    assert.equal('percent' in r, false);
    const overridden = await claudeTranscriptReader(file, { windowOverride: 500_000 }).read();
    assert.ok(overridden.known);
    assert.equal(overridden.percent, 25.1);
  });

  it("the statusLine's own window beats the table and completes an unknown model's reading", async () => {
    const size = usageFromStatusline({ session_id: 's', model: { id: 'claude-opus-4-6' }, context_window: { context_window_size: 1_000_000, current_usage: { input_tokens: 100_000 } } }, new Date(0));
    assert.equal(size?.context_window, 1_000_000);
    const table = usageFromStatusline({ session_id: 's', model: { id: 'claude-opus-5-5' }, context_window: { current_usage: { input_tokens: 100_000 } } }, new Date(0));
    assert.equal(table?.context_window, 1_000_000);
    const unknown = usageFromStatusline({ session_id: 's', model: { id: 'claude-nova-9' }, context_window: { current_usage: { input_tokens: 100_000 } } }, new Date(0));
    assert.equal(unknown, undefined);

    const home = await makeTempDir('claude-window-home-');
    const folder = path.join(home, 'proj');
    await fs.mkdir(folder, { recursive: true });
    const projects = path.join(home, '.claude', 'projects', folder.replace(/[^a-zA-Z0-9]/g, '-'));
    await fs.mkdir(projects, { recursive: true });
    await fs.writeFile(path.join(projects, 'nova.jsonl'), claudeCall({ model: 'claude-nova-9', input: 400, cacheRead: 125_000, sessionId: 'nova', cwd: folder }));
    const bridge = { source: 'claude', session_id: 'nova', used_tokens: 1, context_window: 400_000, updated_at: '2026-11-20T08:00:00.000Z' };
    await fs.writeFile(path.join(folder, 'context_usage.json'), JSON.stringify(bridge));
    const meter = new ContextMeter({ folder, claudeConfigDir: path.join(home, '.claude'), codexHome: path.join(home, '.codex') });
    const { candidates } = await meter.read();
    const claude = candidates.find((c) => c.source === 'claude');
    assert.ok(claude?.result.known, claude && !claude.result.known ? claude.result.reason : 'no claude candidate');
    assert.equal(claude.result.windowTokens, 400_000);
    assert.equal(claude.result.percent, 31.4);
    assert.equal(claude.result.usedTokens, 125_400);
  });

  it('checkBudget without a reading says which window the Claude point is for', () => {
    const r = checkBudget({ warnAt: 0.5, urgeAt: 0.9 });
    assert.ok(r.ok);
    assert.match(r.warnings[0] ?? '', /Claude Code's auto-compaction point with a 200 000-token window \(83\.5 %\)/);
  });
});
