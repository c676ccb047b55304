import * as assert from 'node:assert/strict';
import { parseStatuslineInput, usageFromStatusline } from '../../../src/core/context/statuslineInput';
import type { StatuslineInput } from '../../../src/core/context/statuslineInput';

const NOW = new Date('2026-05-06T07:08:09.000Z');
const parsed = (v: unknown): StatuslineInput => {
  const r = parseStatuslineInput(JSON.stringify(v));
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.input;
};

describe('the statusLine input Claude Code pipes in', () => {
  it('takes the folder from project_dir, else cwd, else current_dir', () => {
    const dir = (v: unknown) => { const r = parseStatuslineInput(JSON.stringify(v)); return r.ok ? r.dir : r.reason; };
    assert.equal(dir({ cwd: '/c', workspace: { project_dir: '/p', current_dir: '/w' } }), '/p');
    assert.equal(dir({ cwd: '/c', workspace: { project_dir: '', current_dir: '/w' } }), '/c');
    assert.equal(dir({ workspace: { current_dir: '/w' } }), '/w');
    assert.equal(dir({ session_id: 's' }), 'statusLine input has no cwd');
  });

  it('says what is wrong with empty, non-JSON or ill-typed input', () => {
    assert.deepEqual(parseStatuslineInput('  \n'), { ok: false, reason: 'no statusLine input on stdin' });
    assert.deepEqual(parseStatuslineInput('{'), { ok: false, reason: 'statusLine input is not JSON' });
    const r = parseStatuslineInput(JSON.stringify({ cwd: '/c', context_window: { used_percentage: 120 } }));
    assert.ok(!r.ok && r.reason.startsWith('statusLine input: field "context_window.used_percentage": '));
    const root = parseStatuslineInput('[1]');
    assert.ok(!root.ok && root.reason.startsWith('statusLine input: field "(root)": '));
    const neg = parseStatuslineInput(JSON.stringify({ cwd: '/c', context_window: { current_usage: { input_tokens: -1 } } }));
    assert.ok(!neg.ok);
    const zero = parseStatuslineInput(JSON.stringify({ cwd: '/c', context_window: { context_window_size: 0 } }));
    assert.ok(!zero.ok);
  });

  it('sums input and both cache counts of current_usage (not output) against the given window', () => {
    const input = parsed({
      cwd: '/c', session_id: 's-1', model: { id: 'claude-opus-4' },
      context_window: { context_window_size: 400_000, used_percentage: 90, current_usage: { input_tokens: 100, cache_creation_input_tokens: 2_000, cache_read_input_tokens: 30_000, output_tokens: 999 } },
    });
    assert.deepEqual(usageFromStatusline(input, NOW), {
      source: 'claude', session_id: 's-1', used_tokens: 32_100, context_window: 400_000, updated_at: '2026-05-06T07:08:09.000Z', model: 'claude-opus-4',
    });
  });

  it('without a window size, detects it from the model and the usage; missing counts are zero', () => {
    const small = parsed({ cwd: '/c', session_id: 's', context_window: { current_usage: { input_tokens: 150_000, cache_read_input_tokens: null } } });
    assert.equal(usageFromStatusline(small, NOW)?.context_window, 200_000);
    assert.equal(usageFromStatusline(small, NOW)?.used_tokens, 150_000);
    assert.ok(!('model' in usageFromStatusline(small, NOW)!));
    const big = parsed({ cwd: '/c', session_id: 's', model: { id: 'claude-sonnet-4-5[1m]' }, context_window: { current_usage: { input_tokens: 10 } } });
    assert.equal(usageFromStatusline(big, NOW)?.context_window, 1_000_000);
  });

  it('falls back to used_percentage of the window, rounded', () => {
    const input = parsed({ cwd: '/c', session_id: 's', context_window: { context_window_size: 200_000, used_percentage: 12.34567 } });
    assert.equal(usageFromStatusline(input, NOW)?.used_tokens, 24_691);
    const noWindow = parsed({ cwd: '/c', session_id: 's', context_window: { used_percentage: 12 } });
    assert.equal(usageFromStatusline(noWindow, NOW), undefined);
  });

  it('carries nothing without usage or without a session id', () => {
    assert.equal(usageFromStatusline(parsed({ cwd: '/c', session_id: 's' }), NOW), undefined);
    assert.equal(usageFromStatusline(parsed({ cwd: '/c', context_window: { context_window_size: 200_000, current_usage: { input_tokens: 5 } } }), NOW), undefined);
  });

  it('rounds fractional window sizes and counts', () => {
    const input = parsed({ cwd: '/c', session_id: 's', context_window: { context_window_size: 200_000.6, current_usage: { input_tokens: 10.4 } } });
    assert.deepEqual([usageFromStatusline(input, NOW)?.used_tokens, usageFromStatusline(input, NOW)?.context_window], [10, 200_001]);
  });
});
