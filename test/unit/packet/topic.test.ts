import * as assert from 'node:assert/strict';
import { activeTaskId, topicOf } from '../../../src/core/artifacts/topic';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { collectRisks } from '../../../src/core/packet/risks';
import { composeSummary } from '../../../src/core/packet/summary';
import { snapshotWith } from '../helpers/workbenchSnapshot';

const board = {
  active: 'T-7',
  features: [{ id: 'T-7', status: 'in_progress', goal: 'refunds over UPI', done_when: 'pytest tests/test_refund.py' }],
};

describe('topic: one answer for the active task', () => {
  for (const [label, id] of [['empty', ''], ['blank', '   '], ['null', null], ['missing', undefined]] as const) {
    it(`active_task_id ${label}: falls back to the board's active feature`, () => {
      const s = snapshotWith({ agentState: { next_action: 'x', ...(id === undefined ? {} : { active_task_id: id }) }, featureList: board });
      assert.equal(activeTaskId(s), 'T-7');
      assert.equal(topicOf(s), 'T-7');
    });
  }

  it('is `default` with no task anywhere, and trims an id with spaces', () => {
    assert.equal(topicOf(snapshotWith({ agentState: { active_task_id: '' } })), 'default');
    assert.equal(activeTaskId(snapshotWith({ agentState: { active_task_id: '' } })), null);
    assert.equal(topicOf(snapshotWith({ agentState: { active_task_id: ' T-2 ' }, featureList: board })), 'T-2');
  });

  it('the packet topic, the summary and the risks agree on an empty active_task_id', () => {
    const s = snapshotWith({
      agentState: { active_task_id: '', next_action: 'Fix the refund rounding' },
      featureList: board,
      verification: { task_id: 'T-7', passed: false, findings: [{ code: 'ACCEPT-1', severity: 'block', detail: 'refund not idempotent' }] },
    });
    const built = buildPacket({ snapshot: s, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
    assert.ok(built.ok);
    assert.equal(built.packet.topic, 'T-7');
    assert.match(composeSummary(s, [], null), /^Task T-7 \(refunds over UPI\) is in progress\./);
    const risk = collectRisks(s, null).find((r) => r.id === 'verify:ACCEPT-1');
    assert.equal(risk?.verify, 'pytest tests/test_refund.py', "the active feature's done_when verifies an acceptance finding");
  });
});
