import * as assert from 'node:assert/strict';
import type { WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { ReviewReportSchema } from '../../../src/core/artifacts/schemas';
import { collectAssumptions, collectDecisions, collectQuestions } from '../../../src/core/packet/notes';
import type { FailedAttempt } from '../../../src/core/packet/schema';
import { composeSummary } from '../../../src/core/packet/summary';
import { emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const withReview = (s: WorkbenchSnapshot, review: unknown): WorkbenchSnapshot => ({ ...s, review: { ...ReviewReportSchema.parse(review), file: 'review_report.json' } });
const failure = (uncertain = false): FailedAttempt => ({ index: 0, command: 'npm test', outcome: uncertain ? 'timeout' : 'failed', exit_code: uncertain ? null : 1, note: null, excerpt: '', uncertain });

describe('packet notes: decisions, assumptions, questions', () => {
  it('plain decisions are made; "rejected:" or "rejected -" ones are rejected, without the marker', () => {
    const s = snapshotWith({ agentState: { decisions: ['use integer cents', '  Rejected: float money ', 'rejected – retry loop', 'rejected-x', '   ', 'rejected:   '] } });
    assert.deepEqual(collectDecisions(s), [
      { text: 'use integer cents', status: 'made' },
      { text: 'float money', status: 'rejected' },
      { text: 'retry loop', status: 'rejected' },
      { text: 'x', status: 'rejected' },
    ]);
  });

  it('only a leading "rejected" marks a plain decision rejected; no agent state, no decisions', () => {
    const s = snapshotWith({ agentState: { decisions: ['we rejected: nothing yet', ' rejected:kept short'] } });
    assert.deepEqual(collectDecisions(s), [{ text: 'we rejected: nothing yet', status: 'made' }, { text: 'kept short', status: 'rejected' }]);
    assert.deepEqual(collectDecisions(emptySnapshot()), []);
  });

  it('a rejected decision may run over lines', () => {
    const s = snapshotWith({ agentState: { decisions: ['rejected: first line\nsecond line'] } });
    assert.deepEqual(collectDecisions(s), [{ text: 'first line\nsecond line', status: 'rejected' }]);
  });

  it('object decisions take decision or text, append the reason, and are rejected by a status starting with "reject"', () => {
    const s = snapshotWith({
      agentState: {
        decisions: [
          { decision: ' cents ', reason: ' no rounding ', status: 'made' },
          { text: 'floats', status: 'Rejected' },
          { decision: 'd', text: 't', reason: '  ' },
          { status: 'rejected' },
          { decision: 'x', status: 'not rejected' },
        ],
      },
    });
    assert.deepEqual(collectDecisions(s), [
      { text: 'cents — no rounding', status: 'made' },
      { text: 'floats', status: 'rejected' },
      { text: 'd', status: 'made' },
      { text: 'x', status: 'made' },
    ]);
  });

  it('assumptions are never verified; questions are plain text; blanks are dropped', () => {
    const s = snapshotWith({ agentState: { assumptions: [' API is idempotent ', { text: 'x' }, '  '], questions_for_human: [{ description: ' which currency? ' }, ''] } });
    assert.deepEqual(collectAssumptions(s), [{ text: 'API is idempotent', verified: false }, { text: 'x', verified: false }]);
    assert.deepEqual(collectQuestions(s), ['which currency?']);
    assert.deepEqual(collectAssumptions(emptySnapshot()), []);
    assert.deepEqual(collectQuestions(emptySnapshot()), []);
  });
});

describe('packet summary when the agent wrote none', () => {
  it("is the agent's own summary, trimmed, when there is one", () => {
    assert.equal(composeSummary(snapshotWith({ agentState: { summary: '  Refund half done.  ' } }), [], 'main'), 'Refund half done.');
  });

  it('names the task, its goal and status, the branch, and says no commands were recorded', () => {
    const s = snapshotWith({ featureList: { active: 'F-1', features: [{ id: 'F-1', status: 'in_progress', goal: 'refunds' }] } });
    assert.equal(composeSummary(s, [], 'feat'), 'Task F-1 (refunds) is in progress on branch feat. No commands recorded.');
    const noGoal = snapshotWith({ agentState: { active_task_id: 'T-9', summary: '  ' }, featureList: { features: [{ id: 'T-9', status: 'todo' }] } });
    assert.equal(composeSummary(noGoal, [], null), 'Task T-9 is todo. No commands recorded.');
    assert.equal(composeSummary(snapshotWith({ agentState: { active_task_id: 'T-1' } }), [], null), 'Task T-1. No commands recorded.');
    assert.equal(composeSummary(emptySnapshot(), [], null), 'No active task recorded. No commands recorded.');
  });

  it('counts verification findings by severity and gives the review verdict and score', () => {
    const s = withReview(snapshotWith({
      verification: { passed: false, findings: [{ code: 'a', severity: 'block' }, { code: 'b', severity: 'warn' }, { code: 'c', severity: 'block' }] },
    }), { total: 6, verdict: 'soft_fail' });
    assert.equal(composeSummary(s, [], null), 'No active task recorded. Verification failed (findings: 2 block, 1 warn). Review: soft fail, 6/10. No commands recorded.');
    assert.equal(composeSummary(snapshotWith({ verification: { passed: true } }), [], null), 'No active task recorded. Verification passed. No commands recorded.');
  });

  it('counts commands and kept failures, the uncertain ones apart, and open blockers', () => {
    const one = snapshotWith({ feedback: [{ command: 'ls', exit_code: 0 }], agentState: { blockers: ['x'] } });
    assert.equal(composeSummary(one, [], null), 'No active task recorded. 1 command recorded, no failures among those kept. 1 blocker open.');
    const many = snapshotWith({ feedback: [{ command: 'a', exit_code: 1 }, { command: 'b' }, { command: 'c', exit_code: 0 }], agentState: { blockers: ['x', 'y'] } });
    assert.equal(composeSummary(many, [failure(), failure(true)], null),
      'No active task recorded. 3 commands recorded, 2 failures among those kept (1 timed out, stopped or unfinished: may have partly applied). 2 blockers open.');
    assert.equal(composeSummary(many, [failure()], null), 'No active task recorded. 3 commands recorded, 1 failure among those kept. 2 blockers open.');
  });

  it('an empty feedback log counts as no commands', () => {
    const s = snapshotWith({ feedback: [] });
    assert.equal(composeSummary(s, [], null), 'No active task recorded. No commands recorded.');
  });
});
