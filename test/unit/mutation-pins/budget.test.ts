import * as assert from 'node:assert/strict';
import { budgetLevel, checkBudget, compactionPoint, DEFAULT_BUDGET, LevelTracker } from '../../../src/core/context/budget';
import type { LevelChange } from '../../../src/core/context/budget';
import type { ContextReading, ContextResult } from '../../../src/core/context/types';

function reading(percent: number, over: Partial<ContextReading> = {}): ContextReading {
  return { known: true, source: 'claude', sessionId: 's1', usedTokens: percent * 2000, windowTokens: 200_000, percent, compactAtPercent: 83.5, at: '', ...over };
}
const unknown: ContextResult = { known: false, source: 'claude', sessionId: 's1', reason: 'no call yet' };

describe('wrap-up budget: thresholds, levels and when to prompt', () => {
  describe('compactionPoint', () => {
    it('is window − 33 000 for Claude (of its window), 90 % for Codex, none for a generic reading', () => {
      assert.equal(compactionPoint('claude'), 0.835);
      assert.equal(compactionPoint('claude', 1_000_000), 0.967);
      assert.equal(compactionPoint('codex'), 0.9);
      assert.equal(compactionPoint('codex', 1_000_000), 0.9);
      assert.equal(compactionPoint('generic'), undefined);
    });
  });

  describe('checkBudget', () => {
    it('rejects thresholds outside 0 < warnAt < urgeAt < 1 and says what it got', () => {
      const bad = checkBudget({ warnAt: -0.1, urgeAt: 0.5 });
      assert.deepEqual(bad, { ok: false, error: 'wrap-up thresholds must satisfy 0 < warnAt < urgeAt < 1 (got warnAt -0.1, urgeAt 0.5)' });
      for (const b of [{ warnAt: 0.5, urgeAt: Number.POSITIVE_INFINITY }, { warnAt: 0.5, urgeAt: Number.NaN }, { warnAt: 0.5, urgeAt: 1.2 }]) {
        assert.equal(checkBudget(b).ok, false, JSON.stringify(b));
      }
      assert.equal(checkBudget({ warnAt: 0.01, urgeAt: 0.99 }).ok, true);
    });

    it('passes the budget back unchanged', () => {
      const budget = { warnAt: 0.4, urgeAt: 0.6 };
      const r = checkBudget(budget);
      assert.ok(r.ok);
      assert.equal(r.budget, budget);
    });

    it('without a reading, warns for Claude at exactly its compaction point and for Codex at 90 %', () => {
      const atClaude = checkBudget({ warnAt: 0.5, urgeAt: 0.835 });
      assert.deepEqual(atClaude.ok && atClaude.warnings, [
        "urgeAt 83.5 % is at or past Claude Code's auto-compaction point with a 200 000-token window (83.5 %): the wrap-up prompt would come too late",
      ]);
      const justBelow = checkBudget({ warnAt: 0.5, urgeAt: 0.834 });
      assert.deepEqual(justBelow.ok && justBelow.warnings, []);
      const atCodex = checkBudget({ warnAt: 0.5, urgeAt: 0.9 });
      assert.equal(atCodex.ok && atCodex.warnings.length, 2);
      assert.match(atCodex.ok ? atCodex.warnings[0]! : '', /^urgeAt 90 % is at or past Claude Code's auto-compaction point with a 200 000-token window \(83\.5 %\)/);
      assert.match(atCodex.ok ? atCodex.warnings[1]! : '', /^urgeAt 90 % is at or past Codex CLI's auto-compaction point \(90 %\)/);
    });

    it("with a reading, checks only that agent's own compaction point", () => {
      const r1m = checkBudget({ warnAt: 0.5, urgeAt: 0.9 }, reading(10, { windowTokens: 1_000_000, compactAtPercent: 96.7 }));
      assert.deepEqual(r1m.ok && r1m.warnings, []);
      const codex = checkBudget({ warnAt: 0.5, urgeAt: 0.9 }, reading(10, { source: 'codex', compactAtPercent: 90 }));
      assert.deepEqual(codex.ok && codex.warnings, [
        "urgeAt 90 % is at or past Codex CLI's auto-compaction point (90 %): the wrap-up prompt would come too late",
      ]);
    });

    it('names a generic reading by the agent that wrote it, and skips an agent that never compacts', () => {
      const named = checkBudget({ warnAt: 0.5, urgeAt: 0.8 }, reading(10, { source: 'generic', agent: 'claude-code', compactAtPercent: 80 }));
      assert.match(named.ok ? named.warnings[0]! : '', /Claude Code's auto-compaction point \(80 %\)/);
      const codexAgent = checkBudget({ warnAt: 0.5, urgeAt: 0.8 }, reading(10, { source: 'generic', agent: 'codex-cli', compactAtPercent: 80 }));
      assert.match(codexAgent.ok ? codexAgent.warnings[0]! : '', /Codex CLI's/);
      const other = checkBudget({ warnAt: 0.5, urgeAt: 0.8 }, reading(10, { source: 'generic', agent: 'aider', compactAtPercent: 70 }));
      assert.match(other.ok ? other.warnings[0]! : '', /past aider's auto-compaction point \(70 %\)/);
      const bySource = checkBudget({ warnAt: 0.5, urgeAt: 0.8 }, reading(10, { source: 'generic', compactAtPercent: 70 }));
      assert.match(bySource.ok ? bySource.warnings[0]! : '', /past generic's/);
      const never = checkBudget({ warnAt: 0.5, urgeAt: 0.98 }, reading(10, { source: 'generic', compactAtPercent: 100 }));
      assert.deepEqual(never.ok && never.warnings, []);
    });

    it('an unknown reading is checked like no reading', () => {
      const r = checkBudget({ warnAt: 0.5, urgeAt: 0.95 }, unknown);
      assert.equal(r.ok && r.warnings.length, 2);
    });
  });

  describe('budgetLevel', () => {
    it('starts wrap-up exactly at warnAt and urgent exactly at urgeAt', () => {
      const b = { warnAt: 0.4, urgeAt: 0.6 };
      assert.equal(budgetLevel(reading(39.9), b), 'ok');
      assert.equal(budgetLevel(reading(40), b), 'wrap-up');
      assert.equal(budgetLevel(reading(59.9), b), 'wrap-up');
      assert.equal(budgetLevel(reading(60), b), 'urgent');
      assert.equal(budgetLevel(unknown, b), undefined);
    });

    it('uses 50 % / 75 % by default', () => {
      assert.deepEqual(DEFAULT_BUDGET, { warnAt: 0.5, urgeAt: 0.75 });
      assert.equal(budgetLevel(reading(49)), 'ok');
      assert.equal(budgetLevel(reading(50)), 'wrap-up');
      assert.equal(budgetLevel(reading(75)), 'urgent');
    });
  });

  describe('LevelTracker', () => {
    it('fires wrap-up and urgent once each per session, with the level before', () => {
      const t = new LevelTracker();
      const seen: LevelChange[] = [];
      t.onLevelChange((c) => seen.push(c));
      assert.equal(t.update(unknown), undefined);
      assert.equal(t.update(reading(10)), undefined);
      const w = t.update(reading(55));
      assert.deepEqual(w && { level: w.level, previous: w.previous, source: w.source, sessionId: w.sessionId, percent: w.reading.percent }, {
        level: 'wrap-up', previous: 'ok', source: 'claude', sessionId: 's1', percent: 55,
      });
      assert.equal(t.update(reading(60)), undefined);
      assert.equal(t.update(reading(80))?.previous, 'wrap-up');
      assert.equal(t.update(reading(90)), undefined);
      assert.deepEqual(seen.map((c) => c.level), ['wrap-up', 'urgent']);
    });

    it('the first reading has no level before it', () => {
      const t = new LevelTracker();
      assert.equal(t.update(reading(80))?.previous, undefined);
    });

    it('does not prompt to wrap up after the urgent prompt, even when compaction drops the reading', () => {
      const t = new LevelTracker();
      assert.equal(t.update(reading(80))?.level, 'urgent');
      assert.equal(t.update(reading(20)), undefined);
      assert.equal(t.update(reading(55)), undefined);
      assert.equal(t.update(reading(80)), undefined);
    });

    it('keeps sessions and agents apart', () => {
      const t = new LevelTracker();
      assert.ok(t.update(reading(55)));
      assert.ok(t.update(reading(55, { sessionId: 's2' })));
      assert.ok(t.update(reading(55, { source: 'codex' })));
    });

    it('reset forgets one session, or every session', () => {
      const t = new LevelTracker();
      t.update(reading(55));
      t.update(reading(55, { sessionId: 's2' }));
      t.reset('claude', 's1');
      assert.equal(t.update(reading(56))?.level, 'wrap-up');
      assert.equal(t.update(reading(56, { sessionId: 's2' })), undefined);
      t.reset('claude');
      assert.equal(t.update(reading(57))?.level, 'wrap-up');
      assert.equal(t.update(reading(57, { sessionId: 's2' }))?.level, 'wrap-up');
    });

    it('takes a new budget at once', () => {
      const t = new LevelTracker();
      assert.equal(t.update(reading(30)), undefined);
      t.setBudget({ warnAt: 0.2, urgeAt: 0.4 });
      assert.equal(t.update(reading(30))?.level, 'wrap-up');
    });

    it('stops calling a listener once it unsubscribed, and calls every listener', () => {
      const t = new LevelTracker();
      const a: string[] = [];
      const b: string[] = [];
      const off = t.onLevelChange((c) => a.push(c.level));
      t.onLevelChange((c) => b.push(c.level));
      t.update(reading(55));
      off();
      t.update(reading(80));
      assert.deepEqual(a, ['wrap-up']);
      assert.deepEqual(b, ['wrap-up', 'urgent']);
    });
  });
});
