import * as assert from 'node:assert/strict';
import type { SessionSummary, WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { decideNextAction } from '../../../src/core/packet/nextAction';
import type { CommandRun, FailedAttempt } from '../../../src/core/packet/schema';
import { agentsRead } from '../../../src/core/session/model';
import { emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const session = (over: Partial<SessionSummary> = {}): SessionSummary => ({
  agent: 'claude-code', sessionId: '7f3e2a91', label: 'claude:7f3e2a91', displayName: 'Claude Code session 7f3e2a91', file: 's.jsonl',
  firstUserRequest: null, latestUserRequest: null, lastAssistantMessage: null, rejectedCount: 0, ...over,
});

const failure = (index: number, command: string, over: Partial<FailedAttempt> = {}): FailedAttempt => ({
  index, command, outcome: 'failed', exit_code: 1, note: null, excerpt: 'boom', uncertain: false, ...over,
});

const run = (index: number, command: string, outcome: CommandRun['outcome']): CommandRun => ({
  index, command, outcome, exit_code: outcome === 'ok' ? 0 : 1, started_at: null, duration_ms: null, note: null,
});

/** A snapshot whose task list came from the agent session. */
function withTaskList(features: unknown[], over: Partial<WorkbenchSnapshot> = {}): WorkbenchSnapshot {
  const s = snapshotWith({ featureList: { features } });
  return { ...s, featureList: { ...s.featureList!, file: 'the task list', derivedFrom: 'Claude Code session 7f3e2a91' }, ...over };
}

const step = (snapshot: WorkbenchSnapshot, failed: FailedAttempt[] = [], commands: CommandRun[] = []) => decideNextAction(snapshot, failed, commands);

describe('the next action', () => {
  it("is the agent's own, trimmed, from agent_state.json", () => {
    assert.deepEqual(step(snapshotWith({ agentState: { next_action: '  run the migration  ' } }), [failure(0, 'npm test')]),
      { ok: true, text: 'run the migration', source: 'agent_state', from: 'agent_state.json' });
  });

  it('skips a blank next action of the agent', () => {
    assert.deepEqual(step(snapshotWith({ agentState: { next_action: '   ' } }), [failure(0, 'npm test')]),
      { ok: true, text: 'Fix the cause and re-run `npm test` (it failed with exit 1: boom).', source: 'derived', from: 'newest failure' });
  });

  describe('from the task in progress of the agent task list', () => {
    const features = [
      { id: '1', status: 'done', goal: 'Set up the project' },
      { id: '2', status: 'in_progress', goal: '   ' },
      { id: '3', status: 'in_progress', goal: '  Add refunds . \n', since: 3 },
      { id: '4', status: 'in_progress', goal: 'Later task' },
    ];

    it('is the goal of the first in-progress task with a goal, its trailing dots and spaces dropped', () => {
      assert.deepEqual(step(withTaskList(features)), { ok: true, text: 'Add refunds', source: 'derived', from: 'task list' });
    });

    it('ignores a board file: only a task list derived from the session gives the step', () => {
      assert.deepEqual(step(snapshotWith({ featureList: { features } }), [failure(4, 'npm test')]),
        { ok: true, text: 'Fix the cause and re-run `npm test` (it failed with exit 1: boom).', source: 'derived', from: 'newest failure' });
    });

    it('names the newest open failure since the task started, with the first line of its output', () => {
      const failed = [failure(1, 'npm run lint'), failure(3, 'npm test', { exit_code: 2, excerpt: '\n   \n  TypeError: x  \nat y' })];
      assert.deepEqual(step(withTaskList(features), failed),
        { ok: true, text: 'Add refunds: first make `npm test` pass (it failed with exit 2: TypeError: x).', source: 'derived', from: 'task list' });
    });

    it('leaves out failures from before the task started', () => {
      assert.deepEqual(step(withTaskList(features), [failure(1, 'npm run lint'), failure(2, 'npm test')]),
        { ok: true, text: 'Add refunds', source: 'derived', from: 'task list' });
    });

    it('lets no failure bear on a task that does not say when it started', () => {
      for (const since of [undefined, '0', null]) {
        const task = [{ id: '3', status: 'in_progress', goal: 'Add refunds', since }];
        assert.deepEqual(step(withTaskList(task), [failure(2, 'npm test')]), { ok: true, text: 'Add refunds', source: 'derived', from: 'task list' }, String(since));
      }
    });

    it('asks what an interrupted command changed instead of running it again', () => {
      const timedOut = failure(5, 'make migrate', { outcome: 'timeout', exit_code: null, uncertain: true, excerpt: 'timed out after 60s\npartial output' });
      assert.deepEqual(step(withTaskList(features), [timedOut]), {
        ok: true, source: 'derived', from: 'task list',
        text: 'Add refunds: first find out what `make migrate` changed before it stopped (it timed out: timed out after 60s); do not simply run it again.',
      });
      const broken = failure(5, 'make migrate', { outcome: 'error', exit_code: null, uncertain: true, excerpt: 'spawn ENOENT' });
      assert.deepEqual(step(withTaskList(features), [broken]), {
        ok: true, source: 'derived', from: 'task list',
        text: 'Add refunds: first find out what `make migrate` changed before it stopped (it did not complete: spawn ENOENT); do not simply run it again.',
      });
    });
  });

  describe('from the newest open failure', () => {
    it('skips a failure a later run of the same command fixed, but not one an earlier run passed', () => {
      const failed = [failure(1, 'npm run lint'), failure(3, 'npm test')];
      const commands = [run(0, 'npm test', 'ok'), run(1, 'npm run lint', 'failed'), run(2, 'npm run lint', 'ok'), run(3, 'npm test', 'failed')];
      assert.deepEqual(step(emptySnapshot(), failed, commands),
        { ok: true, text: 'Fix the cause and re-run `npm test` (it failed with exit 1: boom).', source: 'derived', from: 'newest failure' });
      assert.equal(step(emptySnapshot(), failed, [...commands, run(4, 'npm test', 'ok')]).ok, false);
      assert.deepEqual(step(emptySnapshot(), failed, [...commands, run(4, 'npm run build', 'ok')]),
        { ok: true, text: 'Fix the cause and re-run `npm test` (it failed with exit 1: boom).', source: 'derived', from: 'newest failure' });
    });

    it('a failure is open when its own run is the newest run of its command', () => {
      const failed = [failure(0, 'npm run lint'), failure(1, 'npm test')];
      const commands = [run(0, 'npm run lint', 'failed'), run(1, 'npm test', 'failed')];
      assert.deepEqual(step(emptySnapshot(), failed, commands),
        { ok: true, text: 'Fix the cause and re-run `npm test` (it failed with exit 1: boom).', source: 'derived', from: 'newest failure' });
    });
  });

  describe('from a blocking verification finding', () => {
    it('takes the first finding that blocks, by the mapped severity, with the first line of its detail', () => {
      const s = snapshotWith({
        verification: { passed: false, findings: [
          { code: 'style.nit', severity: 'warn', detail: 'long line' },
          { code: 'acceptance.failed', severity: 'critical', detail: '\n  route returns 500  \nstack' },
        ] },
      });
      assert.deepEqual(step(s), { ok: true, text: 'Resolve the blocking verification finding acceptance.failed: route returns 500.', source: 'derived', from: 'verification_report.json' });
    });
  });

  describe("from the user's latest request", () => {
    it('cuts a long request at 160 characters', () => {
      const s = { ...emptySnapshot(), session: session({ latestUserRequest: `${'a'.repeat(160)}b` }) };
      assert.deepEqual(step(s), { ok: true, text: `continue: ${'a'.repeat(160)}`, source: 'derived', from: 'latest request' });
    });

    it('continues it, by its first line', () => {
      const s = { ...emptySnapshot(), session: session({ latestUserRequest: '  \n  add CSV export  \nwith headers' }) };
      assert.deepEqual(step(s), { ok: true, text: 'continue: add CSV export', source: 'derived', from: 'latest request' });
    });
  });

  describe('with nothing concrete', () => {
    it('refuses, naming what to record and why nothing could be derived from the session', () => {
      const s = { ...emptySnapshot(), session: session({ latestUserRequest: '   ' }) };
      assert.deepEqual(step(s), {
        ok: false,
        reason: 'no next action: record one concrete step as "next_action" in agent_state.json (nothing to derive one from: the Claude Code session 7f3e2a91 has no task in progress, no failing command and no request)',
      });
    });

    it('refuses, naming what was looked at, without a session', () => {
      assert.deepEqual(step(snapshotWith({ verification: { passed: false, findings: [{ code: 'a', severity: 'warn' }] } })), {
        ok: false,
        reason: `no next action: record one concrete step as "next_action" in agent_state.json (nothing to derive one from: no failing command in feedback_record.jsonl, no blocking verification finding and no ${agentsRead()} session for this folder)`,
      });
    });
  });
});
