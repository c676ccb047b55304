import * as assert from 'node:assert/strict';
import { budgetLevel, checkBudget, LevelTracker } from '../../../src/core/context/budget';
import type { ContextReading } from '../../../src/core/context/types';

function reading(percent: number, sessionId = 's1', source: ContextReading['source'] = 'claude'): ContextReading {
  return { known: true, source, sessionId, usedTokens: percent * 2000, windowTokens: 200_000, percent, compactAtPercent: source === 'codex' ? 90 : 83.5, at: '' };
}

describe('budget', () => {
  it('validates 0 < warnAt < urgeAt < 1 with a clear message', () => {
    assert.equal(checkBudget({ warnAt: 0.5, urgeAt: 0.75 }).ok, true);
    for (const bad of [{ warnAt: 0, urgeAt: 0.5 }, { warnAt: 0.8, urgeAt: 0.7 }, { warnAt: 0.5, urgeAt: 1 }, { warnAt: 0.5, urgeAt: 0.5 }, { warnAt: Number.NaN, urgeAt: 0.5 }]) {
      const r = checkBudget(bad);
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.error, /0 < warnAt < urgeAt < 1/);
    }
  });

  it('warns when urgeAt is at or past the agent\'s compaction point', () => {
    const def = checkBudget({ warnAt: 0.5, urgeAt: 0.75 });
    assert.deepEqual(def.ok && def.warnings, []);
    const late = checkBudget({ warnAt: 0.5, urgeAt: 0.85 });
    assert.ok(late.ok && late.warnings.length === 1 && /Claude Code.*83\.5 %/.test(late.warnings[0] ?? ''));
    const codexOnly = checkBudget({ warnAt: 0.5, urgeAt: 0.85 }, reading(10, 's', 'codex'));
    assert.deepEqual(codexOnly.ok && codexOnly.warnings, []);
    const both = checkBudget({ warnAt: 0.5, urgeAt: 0.95 });
    assert.equal(both.ok && both.warnings.length, 2);
  });

  it('maps a reading to ok / wrap-up / urgent, and unknown to none', () => {
    assert.equal(budgetLevel(reading(49.9)), 'ok');
    assert.equal(budgetLevel(reading(50)), 'wrap-up');
    assert.equal(budgetLevel(reading(75)), 'urgent');
    assert.equal(budgetLevel({ known: false, reason: 'x' }), undefined);
  });

  it('fires each level once per agent session', () => {
    const t = new LevelTracker({ warnAt: 0.5, urgeAt: 0.75 });
    const seen: string[] = [];
    const off = t.onLevelChange((c) => seen.push(`${c.sessionId}:${c.level}`));
    for (const p of [10, 55, 60, 20, 52, 80, 81, 60, 30]) t.update(reading(p));
    t.update(reading(55, 's2'));
    off();
    t.update(reading(90, 's2'));
    assert.deepEqual(seen, ['s1:wrap-up', 's1:urgent', 's2:wrap-up']);
  });
});
