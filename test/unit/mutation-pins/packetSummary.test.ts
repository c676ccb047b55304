import * as assert from 'node:assert/strict';
import type { SessionSummary, WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { composeSummary } from '../../../src/core/packet/summary';
import { emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const session = (over: Partial<SessionSummary> = {}): SessionSummary => ({
  agent: 'claude-code', sessionId: '7f3e2a91', label: 'claude:7f3e2a91', displayName: 'Claude Code session 7f3e2a91', file: 's.jsonl',
  firstUserRequest: null, latestUserRequest: null, lastAssistantMessage: null, rejectedCount: 0, ...over,
});

const withSession = (s: WorkbenchSnapshot, over: Partial<SessionSummary>): WorkbenchSnapshot => ({ ...s, session: session(over) });

/** A snapshot whose task list came from the agent session. */
function withTaskList(features: unknown[]): WorkbenchSnapshot {
  const s = snapshotWith({ featureList: { features } });
  return { ...s, featureList: { ...s.featureList!, file: 'the task list', derivedFrom: 'Claude Code session 7f3e2a91' } };
}

describe('packet summary composed from an agent session', () => {
  it('without a task id, the task is what the user first asked, with the branch when known', () => {
    const s = withSession(emptySnapshot(), { firstUserRequest: 'Add refunds to checkout' });
    assert.equal(composeSummary(s, [], 'feat'), 'Task from the Claude Code session 7f3e2a91 on branch feat: "Add refunds to checkout". No commands recorded.');
    assert.equal(composeSummary(s, [], null), 'Task from the Claude Code session 7f3e2a91: "Add refunds to checkout". No commands recorded.');
  });

  it('with a task id, names the task, not the request', () => {
    const s = withSession(snapshotWith({ agentState: { active_task_id: 'T-2' } }), { firstUserRequest: 'Add refunds' });
    assert.equal(composeSummary(s, [], null), 'Task T-2. No commands recorded.');
  });

  it('without a first request, says no task was recorded', () => {
    const s = withSession(emptySnapshot(), { latestUserRequest: 'go on' });
    assert.equal(composeSummary(s, [], null), 'No active task recorded. No commands recorded.');
  });

  it('adds the latest request only when it differs from the first', () => {
    const differs = withSession(emptySnapshot(), { firstUserRequest: 'Add refunds', latestUserRequest: 'also partial ones' });
    assert.equal(composeSummary(differs, [], null),
      'Task from the Claude Code session 7f3e2a91: "Add refunds". Latest request: "also partial ones". No commands recorded.');
    const same = withSession(emptySnapshot(), { firstUserRequest: 'Add refunds', latestUserRequest: 'Add refunds' });
    assert.equal(composeSummary(same, [], null), 'Task from the Claude Code session 7f3e2a91: "Add refunds". No commands recorded.');
  });

  it('cuts a request longer than 300 characters to 299 and an ellipsis; one of 300 stays whole', () => {
    const exact = 'a'.repeat(300);
    assert.equal(composeSummary(withSession(emptySnapshot(), { firstUserRequest: exact }), [], null),
      `Task from the Claude Code session 7f3e2a91: "${exact}". No commands recorded.`);
    const long = withSession(emptySnapshot(), { firstUserRequest: `${'b'.repeat(300)}c`, latestUserRequest: `${'d'.repeat(299)}ef` });
    assert.equal(composeSummary(long, [], null),
      `Task from the Claude Code session 7f3e2a91: "${'b'.repeat(299)}…". Latest request: "${'d'.repeat(299)}…". No commands recorded.`);
  });

  it('counts the done tasks of the session task list and names the one in progress', () => {
    const list = withTaskList([
      { id: '1', status: 'done', goal: 'Set up' },
      { id: '2', status: 'todo', goal: 'Docs' },
      { id: '3', status: 'in_progress', goal: 'Refund API' },
      { id: '4', status: 'done', goal: 'Schema' },
      { id: '5', status: 'in_progress', goal: 'Later' },
    ]);
    assert.equal(composeSummary(withSession(list, { firstUserRequest: 'Refunds' }), [], null),
      'Task from the Claude Code session 7f3e2a91: "Refunds". Task list: 2 of 5 done; in progress: Refund API. No commands recorded.');
    const idle = withTaskList([{ id: '1', status: 'done' }, { id: '2', status: 'in_progress' }, { id: '3', status: 'blocked', goal: 'x' }]);
    assert.equal(composeSummary(withSession(idle, { firstUserRequest: 'Refunds' }), [], null),
      'Task from the Claude Code session 7f3e2a91: "Refunds". Task list: 1 of 3 done. No commands recorded.');
  });

  it('leaves out a board that did not come from the session, and an empty task list', () => {
    const board = snapshotWith({ featureList: { features: [{ id: '1', status: 'done' }] } });
    assert.equal(composeSummary(withSession(board, { firstUserRequest: 'Refunds' }), [], null),
      'Task from the Claude Code session 7f3e2a91: "Refunds". No commands recorded.');
    assert.equal(composeSummary(withSession(withTaskList([]), { firstUserRequest: 'Refunds' }), [], null),
      'Task from the Claude Code session 7f3e2a91: "Refunds". No commands recorded.');
  });

  it('counts the commands the user declined', () => {
    assert.equal(composeSummary(withSession(emptySnapshot(), { rejectedCount: 1 }), [], null), 'No active task recorded. No commands recorded. 1 command declined by the user.');
    assert.equal(composeSummary(withSession(emptySnapshot(), { rejectedCount: 3 }), [], null), 'No active task recorded. No commands recorded. 3 commands declined by the user.');
  });

  it('quotes the closing words as the reader kept them, without a marker the agent appended', () => {
    // cline-native: the completion result ends in Cline's HAS_CHANGES marker, which the closing words drop.
    const s = withSession(emptySnapshot(), { lastAssistantMessage: 'Tests pass.\n\nStill open: burst tests.HAS_CHANGES', closing: { text: 'Tests pass.\n\nStill open: burst tests.', line: 3 } });
    assert.equal(composeSummary(s, [], null), 'No active task recorded. No commands recorded. Where the agent stopped: "Tests pass. Still open: burst tests."');
    const none = withSession(emptySnapshot(), { lastAssistantMessage: 'Done.', closing: null });
    assert.equal(composeSummary(none, [], null), 'No active task recorded. No commands recorded. Where the agent stopped: "Done."');
  });

  it("quotes the agent's last words on one line, cut at 400 characters", () => {
    const s = withSession(emptySnapshot(), { lastAssistantMessage: 'Done  with the API.\n\n  Next:\tthe UI.' });
    assert.equal(composeSummary(s, [], null), 'No active task recorded. No commands recorded. Where the agent stopped: "Done with the API. Next: the UI."');
    const long = withSession(emptySnapshot(), { lastAssistantMessage: 'x'.repeat(401) });
    assert.equal(composeSummary(long, [], null), `No active task recorded. No commands recorded. Where the agent stopped: "${'x'.repeat(399)}…"`);
  });
});

describe('packet summary naming the active task', () => {
  it('describes the feature whose id is the active task, not the first one', () => {
    const s = snapshotWith({
      agentState: { active_task_id: 'T-2' },
      featureList: { features: [{ id: 'T-1', status: 'done', goal: 'schema' }, { id: 'T-2', status: 'in_progress', goal: 'refund API' }] },
    });
    assert.equal(composeSummary(s, [], null), 'Task T-2 (refund API) is in progress. No commands recorded.');
    const missing = snapshotWith({ agentState: { active_task_id: 'T-9' }, featureList: { features: [{ id: 'T-1', status: 'done', goal: 'schema' }] } });
    assert.equal(composeSummary(missing, [], null), 'Task T-9. No commands recorded.');
  });
});
