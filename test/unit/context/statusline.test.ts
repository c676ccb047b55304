import * as assert from 'node:assert/strict';
import { asShown, statuslineText, shortPercent } from '../../../src/core/context/format';
import { parseGenericUsage } from '../../../src/core/context/generic';
import { formatGenericUsage } from '../../../src/core/context/usage';
import { parseStatuslineInput, usageFromStatusline } from '../../../src/core/context/statuslineInput';
import type { ContextReading } from '../../../src/core/context/types';

const NOW = new Date('2026-11-20T09:05:00Z');

const documentedInput = {
  session_id: 'sess-42',
  transcript_path: '/nonexistent/sess-42.jsonl',
  cwd: '/home/dev/refund-service',
  workspace: { current_dir: '/home/dev/refund-service', project_dir: '/home/dev/refund-service' },
  model: { id: 'claude-sonnet-4-5-20250929', display_name: 'Sonnet 4.5' },
  context_window: {
    context_window_size: 200_000,
    used_percentage: 49.6,
    current_usage: { input_tokens: 12, cache_creation_input_tokens: 1200, cache_read_input_tokens: 98_000, output_tokens: 310 },
  },
};

describe('statusLine input', () => {
  it('turns the documented JSON into a valid context_usage.json record', () => {
    const p = parseStatuslineInput(JSON.stringify(documentedInput));
    assert.ok(p.ok);
    assert.equal(p.dir, '/home/dev/refund-service');
    const usage = usageFromStatusline(p.input, NOW);
    assert.deepEqual(usage, { source: 'claude', session_id: 'sess-42', used_tokens: 99_212, context_window: 200_000, updated_at: NOW.toISOString(), model: 'claude-sonnet-4-5-20250929' });
    const back = parseGenericUsage(formatGenericUsage(usage!), 'context_usage.json');
    assert.ok(back.known && back.percent === 49.6 && back.agent === 'claude');
  });

  it('falls back to used_percentage, and gives no record without any usage', () => {
    const noUsage = { ...documentedInput, context_window: { context_window_size: 200_000, used_percentage: 25, current_usage: null } };
    const p = parseStatuslineInput(JSON.stringify(noUsage));
    assert.ok(p.ok);
    assert.equal(usageFromStatusline(p.input, NOW)?.used_tokens, 50_000);
    const bare = parseStatuslineInput(JSON.stringify({ session_id: 's', cwd: '/x', context_window: null }));
    assert.ok(bare.ok);
    assert.equal(usageFromStatusline(bare.input, NOW), undefined);
  });

  it('explains bad input instead of throwing', () => {
    for (const [text, re] of [['', /no statusLine input/], ['{oops', /not JSON/], ['{"cwd": 5}', /field "cwd"/], ['{"session_id":"s"}', /no cwd/]] as const) {
      const p = parseStatuslineInput(text);
      assert.equal(p.ok, false);
      assert.match(p.ok ? '' : p.reason, re);
    }
  });
});

describe('statusline text', () => {
  const r = (percent: number): ContextReading => ({ known: true, source: 'claude', sessionId: 's', usedTokens: 1, windowTokens: 2, percent, compactAtPercent: 83.5, at: '' });

  it('shows the percentage rounded, the extras when ok, and the call to action otherwise', () => {
    assert.equal(statuslineText(r(49.4), 'ok', ['clean', 'handoff fresh']), 'ctx 49% · clean · handoff fresh');
    assert.equal(shortPercent(r(49.6)), '50%');
    const shown = asShown(r(49.6));
    assert.equal(shown.known ? shown.percent : null, 50);
    assert.equal(statuslineText(r(62.2), 'wrap-up', ['clean']), 'ctx 62% · wrap up: run handoff generate');
    assert.match(statuslineText(r(80), 'urgent'), /^ctx 80% · wrap up now: run handoff generate$/);
    assert.equal(shortPercent({ known: false, reason: 'x' }), '—');
  });
});
