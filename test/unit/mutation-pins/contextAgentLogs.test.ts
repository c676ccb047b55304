import * as assert from 'node:assert/strict';
import { agentLabel } from '../../../src/core/context/format';
import { parseGenericUsage } from '../../../src/core/context/generic';
import type { ContextReading, ContextResult } from '../../../src/core/context/types';
import { compactAtPercentFor } from '../../../src/core/context/usage';

function known(r: ContextResult): ContextReading {
  assert.ok(r.known, `expected a reading, got: ${r.known ? '' : r.reason}`);
  return r;
}

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
