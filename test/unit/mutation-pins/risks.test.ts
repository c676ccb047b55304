import * as assert from 'node:assert/strict';
import type { WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { ReviewReportSchema } from '../../../src/core/artifacts/schemas';
import type { CleanFinding } from '../../../src/core/clean/types';
import { collectRisks, REVIEW_RISK_BELOW, textOf } from '../../../src/core/packet/risks';
import type { Severity } from '../../../src/core/packet/schema';
import { orderBySeverity } from '../../../src/core/packet/severity';
import { snapshotWith } from '../helpers/workbenchSnapshot';

function withReview(s: WorkbenchSnapshot, review: unknown): WorkbenchSnapshot {
  return { ...s, review: { ...ReviewReportSchema.parse(review), file: 'review_report.json' } };
}

const board = { active: 'F-1', features: [{ id: 'F-1', status: 'in_progress', done_when: 'npm test -- refund' }, { id: 'F-2', status: 'todo', done_when: 'npm test -- other' }] };

describe('open risks: the rules behind each kind', () => {
  describe('verification findings', () => {
    it('turn into risks keyed by their code, with the mapped severity, detail and report file', () => {
      const s = snapshotWith({ verification: { passed: false, findings: [{ code: 'lint', severity: 'critical', detail: 'two errors' }] } });
      assert.deepEqual(collectRisks(s, null), [{ id: 'verify:lint', severity: 'block', detail: 'two errors', source: 'verification_report.json' }]);
    });

    it('fall back to the code for the detail, and to a generic id and detail when both are empty', () => {
      const s = snapshotWith({ verification: { passed: false, findings: [{ code: 'typecheck', severity: 'high' }, { severity: 'minor' }] } });
      const risks = collectRisks(s, null);
      assert.deepEqual(risks.map((r) => [r.id, r.severity, r.detail]), [
        ['verify:typecheck', 'high', 'typecheck'],
        ['verify:finding', 'info', 'verification finding'],
      ]);
    });

    it("carry the active feature's done_when as the check for acceptance findings only", () => {
      const s = snapshotWith({
        featureList: board,
        verification: { passed: false, findings: [{ code: 'ACCEPTANCE.failed', severity: 'block', detail: 'refund 500' }, { code: 'lint', severity: 'warn', detail: 'x' }] },
      });
      const risks = collectRisks(s, null);
      assert.equal(risks.find((r) => r.id === 'verify:ACCEPTANCE.failed')?.verify, 'npm test -- refund');
      assert.equal(risks.find((r) => r.id === 'verify:lint')?.verify, undefined);
      assert.ok(!('verify' in risks.find((r) => r.id === 'verify:lint')!));
    });

    it('take the active task from agent_state before the board, and only when it starts with "accept"', () => {
      const s = snapshotWith({
        agentState: { active_task_id: 'F-2' },
        featureList: board,
        verification: { passed: false, findings: [{ code: 'accept', detail: 'a' }, { code: 'not-accept', detail: 'b' }] },
      });
      const risks = collectRisks(s, null);
      assert.equal(risks.find((r) => r.detail === 'a')?.verify, 'npm test -- other');
      assert.ok(!('verify' in risks.find((r) => r.detail === 'b')!));
    });

    it('carry no check when the active feature has none', () => {
      const s = snapshotWith({
        featureList: { active: 'F-9', features: [{ id: 'F-9', status: 'in_progress' }] },
        verification: { passed: false, findings: [{ code: 'acceptance', detail: 'a' }] },
      });
      assert.ok(!('verify' in collectRisks(s, null)[0]!));
    });

    it('a failed verification without findings is one blocking risk, with the done_when check', () => {
      const s = snapshotWith({ featureList: board, verification: { passed: false, findings: [] } });
      assert.deepEqual(collectRisks(s, null), [
        { id: 'verify:failed', severity: 'block', detail: 'verification failed without findings', source: 'verification_report.json', verify: 'npm test -- refund' },
      ]);
      const noBoard = collectRisks(snapshotWith({ verification: { passed: false } }), null);
      assert.deepEqual(noBoard, [{ id: 'verify:failed', severity: 'block', detail: 'verification failed without findings', source: 'verification_report.json' }]);
    });

    it('a passed verification without findings, or a failed one with findings, adds no "failed without findings"', () => {
      assert.deepEqual(collectRisks(snapshotWith({ verification: { passed: true, findings: [] } }), null), []);
      const withFinding = collectRisks(snapshotWith({ verification: { passed: false, findings: [{ code: 'x', detail: 'y' }] } }), null);
      assert.deepEqual(withFinding.map((r) => r.id), ['verify:x']);
    });
  });

  describe('blockers', () => {
    it('every non-empty blocker is a blocking risk numbered by its place in the list', () => {
      const s = snapshotWith({ agentState: { blockers: ['  waiting for the API key  ', '   ', { text: 'no staging DB' }, { detail: 'CI is red' }] } });
      assert.deepEqual(collectRisks(s, null), [
        { id: 'blocker:1', severity: 'block', detail: 'waiting for the API key', source: 'agent_state.json' },
        { id: 'blocker:3', severity: 'block', detail: 'no staging DB', source: 'agent_state.json' },
        { id: 'blocker:4', severity: 'block', detail: 'CI is red', source: 'agent_state.json' },
      ]);
    });

    it('textOf reads a string or the first of text, detail, description, trimmed', () => {
      assert.equal(textOf('  a  '), 'a');
      assert.equal(textOf({ text: ' t ', detail: 'd', description: 'x' }), 't');
      assert.equal(textOf({ detail: ' d ', description: 'x' }), 'd');
      assert.equal(textOf({ description: ' x ' }), 'x');
      assert.equal(textOf({}), '');
    });
  });

  describe('the review', () => {
    it(`a score below ${REVIEW_RISK_BELOW} is a warning naming the weakest dimension and its note`, () => {
      const s = withReview(snapshotWith({}), {
        total: 6.5, verdict: 'soft_fail',
        dimensions: [{ name: 'style', score: 6 }, { name: 'tests', score: 3, note: 'no edge cases' }, { name: 'docs', score: 5 }],
      });
      assert.deepEqual(collectRisks(s, null), [
        { id: 'review:score', severity: 'warn', detail: 'review soft_fail with 6.5/10; weakest: tests 3 (no edge cases)', source: 'review_report.json' },
      ]);
    });

    it('the weakest dimension without a note is named without parentheses; no dimensions, no "weakest"', () => {
      const one = withReview(snapshotWith({}), { total: 5, verdict: 'pass', dimensions: [{ name: 'tests', score: 2 }] });
      assert.equal(collectRisks(one, null)[0]?.detail, 'review pass with 5/10; weakest: tests 2');
      const none = withReview(snapshotWith({}), { total: 5, verdict: 'pass' });
      assert.equal(collectRisks(none, null)[0]?.detail, 'review pass with 5/10');
    });

    it(`a score of exactly ${REVIEW_RISK_BELOW} or more is no risk unless the verdict is a hard fail`, () => {
      assert.deepEqual(collectRisks(withReview(snapshotWith({}), { total: REVIEW_RISK_BELOW, verdict: 'soft_fail' }), null), []);
      assert.deepEqual(collectRisks(withReview(snapshotWith({}), { total: 9, verdict: 'pass' }), null), []);
      assert.equal(collectRisks(withReview(snapshotWith({}), { total: REVIEW_RISK_BELOW - 0.1, verdict: 'pass' }), null).length, 1);
    });

    it('a hard fail is a blocking risk whatever the score', () => {
      const s = withReview(snapshotWith({}), { total: 9, verdict: 'hard_fail' });
      assert.deepEqual(collectRisks(s, null), [{ id: 'review:hard_fail', severity: 'block', detail: 'review hard_fail with 9/10', source: 'review_report.json' }]);
    });
  });

  describe("the agent's own open risks", () => {
    it('strings are warnings numbered by place; blank ones are skipped', () => {
      const s = snapshotWith({ agentState: { open_risks: [' flaky retry test ', '  '] } });
      assert.deepEqual(collectRisks(s, null), [{ id: 'agent:1', severity: 'warn', detail: 'flaky retry test', source: 'agent_state.json' }]);
    });

    it('objects keep their id, severity, source, owner and check, trimmed', () => {
      const s = snapshotWith({
        agentState: {
          open_risks: [{ id: ' R-7 ', severity: 'major', detail: ' refund rounding ', source: ' src/refund.ts ', owner: 'human', verify: ' npm test -- rounding ' }],
        },
      });
      assert.deepEqual(collectRisks(s, null), [
        { id: 'agent:R-7', severity: 'high', detail: 'refund rounding', source: 'src/refund.ts', owner: 'human', verify: 'npm test -- rounding' },
      ]);
    });

    it('objects without id, source, a known owner or a check get the defaults and nothing else', () => {
      const s = snapshotWith({ agentState: { open_risks: ['first', { text: ' from text ', id: '  ', source: ' ', owner: 'someone', verify: '  ' }, { id: 'x' }] } });
      const risks = collectRisks(s, null);
      assert.deepEqual(risks, [
        { id: 'agent:1', severity: 'warn', detail: 'first', source: 'agent_state.json' },
        { id: 'agent:2', severity: 'warn', detail: 'from text', source: 'agent_state.json' },
      ]);
      const agentOwned = collectRisks(snapshotWith({ agentState: { open_risks: [{ detail: 'd', owner: 'agent' }] } }), null);
      assert.equal(agentOwned[0]?.owner, 'agent');
    });

    it('the detail is taken before the text', () => {
      const s = snapshotWith({ agentState: { open_risks: [{ detail: 'from detail', text: 'from text' }] } });
      assert.equal(collectRisks(s, null)[0]?.detail, 'from detail');
    });
  });

  describe('clean-state findings accepted with a dirty workbench', () => {
    it('each is a blocking risk with its fix and a copy of its paths', () => {
      const paths = ['src/a.ts'];
      const findings: CleanFinding[] = [
        { check: 'working-tree', kind: 'uncommitted-changes', detail: '1 uncommitted change: src/a.ts.', fix: 'Commit it.', paths },
        { check: 'temp-artifacts', kind: 'temp-files', detail: 'scratch left', fix: 'Delete it.', paths: [] },
      ];
      const risks = collectRisks(snapshotWith({}), { findings });
      assert.deepEqual(risks, [
        { id: 'clean:working-tree', severity: 'block', detail: '1 uncommitted change: src/a.ts. — fix: Commit it.', source: 'clean_state', paths: ['src/a.ts'] },
        { id: 'clean:temp-artifacts', severity: 'block', detail: 'scratch left — fix: Delete it.', source: 'clean_state' },
      ]);
      paths.push('changed later');
      assert.deepEqual(risks[0]?.paths, ['src/a.ts']);
    });
  });

  describe('an unknown last known good commit', () => {
    it('is a warning for the agent, from git, saying why and not to trust HEAD', () => {
      const risks = collectRisks(snapshotWith({}), null, { lastKnownGoodCommit: null, lkgUnknownReason: 'no green test run recorded' });
      assert.deepEqual(risks, [{
        id: 'git:no-last-known-good', severity: 'warn', source: 'git', owner: 'agent',
        detail: 'No last known good commit: no green test run recorded. Do not assume HEAD is safe to build on.',
      }]);
      assert.deepEqual(collectRisks(snapshotWith({}), null, { lastKnownGoodCommit: 'a'.repeat(40), lkgUnknownReason: 'stale' }), []);
      assert.deepEqual(collectRisks(snapshotWith({}), null, { lastKnownGoodCommit: null }), []);
    });
  });

  describe('order and ids', () => {
    it('most severe first, and in the order collected within one severity', () => {
      const s = snapshotWith({
        agentState: { open_risks: [{ detail: 'note', severity: 'info' }, 'warn one', { detail: 'high one', severity: 'high' }, 'warn two'], blockers: ['stuck'] },
        verification: { passed: false, findings: [{ code: 'a', severity: 'info', detail: 'verify info' }, { code: 'b', severity: 'warn', detail: 'verify warn' }] },
      });
      assert.deepEqual(collectRisks(s, null).map((r) => r.detail), ['stuck', 'high one', 'verify warn', 'warn one', 'warn two', 'verify info', 'note']);
    });

    it('a long list of mixed severities keeps the collected order within each severity', () => {
      const levels: Severity[] = ['info', 'warn', 'high', 'block'];
      const items = Array.from({ length: 60 }, (_, i) => ({ n: i, severity: levels[(i * 7) % 4]! }));
      const ordered = orderBySeverity(items, (x) => x.severity);
      const expected = (['block', 'high', 'warn', 'info'] as const).flatMap((sev) => items.filter((x) => x.severity === sev));
      assert.deepEqual(ordered, expected);
      assert.deepEqual(items.map((x) => x.n), Array.from({ length: 60 }, (_, i) => i), 'the input is left as it was');
    });

    it('a repeated id gets #2, #3 in order, the first keeps its own', () => {
      const s = snapshotWith({ verification: { passed: false, findings: [{ code: 'lint', detail: 'a' }, { code: 'lint', detail: 'b' }, { code: 'lint', detail: 'c' }] } });
      assert.deepEqual(collectRisks(s, null).map((r) => r.id), ['verify:lint', 'verify:lint#2', 'verify:lint#3']);
    });
  });
});
