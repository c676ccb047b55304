import * as assert from 'node:assert/strict';
import type { FeedbackRecord } from '../../../src/core/artifacts/schemas';
import type { SessionSummary, WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { checkFeatureBoard } from '../../../src/core/clean/featureBoard';
import { fixOffer } from '../../../src/core/clean/fixOffer';
import { checkTests } from '../../../src/core/clean/testsCheck';
import { agentsRead } from '../../../src/core/session/model';
import { emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const SESSION = 'Claude Code session 7f3e2a91';
const session: SessionSummary = {
  agent: 'claude-code', sessionId: '7f3e2a91', label: 'claude:7f3e2a91', displayName: SESSION, file: 's.jsonl',
  firstUserRequest: null, latestUserRequest: null, lastAssistantMessage: null, rejectedCount: 0,
};

/** A snapshot whose task list came from the agent session (no feature_list.json). */
function withTaskList(features: unknown[]): WorkbenchSnapshot {
  const s = snapshotWith({ featureList: { features } });
  return { ...s, featureList: { ...s.featureList!, file: 'the task list', derivedFrom: SESSION } };
}

/** A snapshot whose command log came from the agent session (no feedback_record.jsonl). */
function fromSession(feedback: FeedbackRecord[], agentState?: unknown): WorkbenchSnapshot {
  const s = snapshotWith({ feedback, ...(agentState ? { agentState } : {}) });
  return { ...s, feedback: { ...s.feedback!, derivedFrom: SESSION }, session };
}

const task = (id: string, status: string, goal?: string) => ({ id, status, ...(goal ? { goal } : {}) });

describe('clean state: the task list of an agent session as feature board', () => {
  it('two tasks in progress fail the check, named by their goal (else their number)', () => {
    const r = checkFeatureBoard(withTaskList([task('1', 'done', 'Read the code'), task('2', 'in_progress', 'Write the refund test'), task('3', 'in_progress')]));
    const detail = `2 tasks are in progress in the task list of the ${SESSION} ("Write the refund test", "3"); at most one may be.`;
    assert.deepEqual(r, {
      check: 'feature-board', title: 'Feature board', passed: false, summary: detail,
      findings: [{
        check: 'feature-board', kind: 'several-in-progress', detail,
        fix: 'Ask the agent to finish or set back to pending all but one of them in its task list.',
      }],
    });
    // Nothing to run: the fix is advice to read.
    assert.equal(fixOffer(r.findings[0]!).kind, 'advice');
  });

  it('one task in progress passes, naming it and counting the done ones', () => {
    const r = checkFeatureBoard(withTaskList([task('1', 'done', 'Read the code'), task('2', 'in_progress', 'Write the refund test'), task('3', 'todo', 'Ship')]));
    assert.deepEqual(r, {
      check: 'feature-board', title: 'Feature board', passed: true, findings: [],
      summary: `The task list of the ${SESSION} agrees with itself: "Write the refund test" in progress, 1 of 3 done.`,
    });
    assert.equal(
      checkFeatureBoard(withTaskList([task('7', 'in_progress')])).summary,
      `The task list of the ${SESSION} agrees with itself: "7" in progress, 0 of 1 done.`,
    );
  });

  it('nothing in progress passes too; a task list has no `active` to disagree with', () => {
    const idle = checkFeatureBoard(withTaskList([task('1', 'done', 'A'), task('2', 'done', 'B')]));
    assert.equal(idle.passed, true);
    assert.equal(idle.summary, `The task list of the ${SESSION} agrees with itself: nothing in progress, 2 of 2 done.`);
    // On a board file the same in-progress task without `active` would be a finding.
    assert.equal(checkFeatureBoard(withTaskList([task('1', 'in_progress', 'A')])).passed, true);
  });

  it('a board whose active feature is not the ones in progress names all of those', () => {
    const r = checkFeatureBoard(snapshotWith({ featureList: { active: 'A', features: [task('A', 'todo'), task('B', 'in_progress'), task('C', 'in_progress')] } }));
    assert.deepEqual(
      r.findings.map((x) => x.detail),
      [
        '2 features are in progress in feature_list.json (B, C); at most one may be.',
        'feature_list.json says `active` is A, but A is todo while B, C is in progress.',
      ],
    );
    assert.equal(r.findings[1]?.fix, 'Set `active` to the feature being worked on, or null.');
  });
});

const unknownTail = 'Run the tests through the agent, or record a run with `handoff record -- <test command>`.';

describe('clean state: the tests check, word for word', () => {
  it('with nothing recorded anywhere, says exactly where it looked', () => {
    assert.deepEqual(checkTests(emptySnapshot()), {
      check: 'tests', title: 'Tests', passed: true, unknown: true, findings: [],
      summary: `Unknown: no test run is recorded (no feedback_record.jsonl and no ${agentsRead()} session for this folder). ${unknownTail}`,
    });
    const withAgent = checkTests({ ...emptySnapshot(), session });
    assert.equal(withAgent.summary, `Unknown: no test run is recorded (neither in feedback_record.jsonl nor in the ${SESSION}). ${unknownTail}`);
  });

  it('an empty log is no test run, not "none of 0 commands"', () => {
    assert.equal(
      checkTests(snapshotWith({ feedback: [] })).summary,
      `Unknown: no test run is recorded (no feedback_record.jsonl and no ${agentsRead()} session for this folder). ${unknownTail}`,
    );
  });

  it('counts the commands that did not look like a test run, in the log or the session', () => {
    const two: FeedbackRecord[] = [{ command: 'ls', exit_code: 0 }, { command: 'make build', exit_code: 0 }];
    assert.equal(
      checkTests(snapshotWith({ feedback: two })).summary,
      `Unknown: none of the 2 commands in feedback_record.jsonl looks like a test run (pytest, npm test, go test, cargo test, mvn test, …). ${unknownTail}`,
    );
    assert.match(checkTests(fromSession(two)).summary, new RegExp(`^Unknown: none of the 2 commands in ${SESSION} looks like a test run`));
  });

  // The session command number is the packet's own "#N" (its record index), so "command #6" in a risk
  // is the "#6" of the failed attempts (claude-tasks.jsonl said "command 7" of the failure listed as #6).
  it('a green run names its command and place: a log line, or the session command number', () => {
    const feedback: FeedbackRecord[] = [{ command: 'ls', exit_code: 0 }, { command: ['npm', 'test'], exit_code: 0 }];
    assert.deepEqual(checkTests(snapshotWith({ feedback })), {
      check: 'tests', title: 'Tests', passed: true, findings: [], summary: 'The latest test run passed: `npm test` (feedback_record.jsonl line 2).',
    });
    assert.equal(checkTests(fromSession(feedback)).summary, `The latest test run passed: \`npm test\` (${SESSION}, command #1).`);
  });

  it('a red run nobody named is a finding whose fix offers to re-run it', () => {
    const r = checkTests(snapshotWith({ feedback: [{ command: 'ls', exit_code: 0 }, { command: 'pytest tests/test_refund.py', exit_code: 1 }] }));
    assert.deepEqual(r, {
      check: 'tests', title: 'Tests', passed: false,
      summary: 'The latest test run failed with exit 1 and no open risk names it: `pytest tests/test_refund.py`.',
      findings: [{
        check: 'tests', kind: 'tests-failing',
        detail: 'The latest test run failed with exit 1 and no open risk names it: `pytest tests/test_refund.py` (feedback_record.jsonl line 2).',
        fix: 'Make `pytest tests/test_refund.py` pass, or record the failure in agent_state.json open_risks.',
        commands: ['pytest tests/test_refund.py'],
      }],
    });
    assert.deepEqual(fixOffer(r.findings[0]!), { kind: 'commands', commands: [{ command: 'pytest tests/test_refund.py', how: 'run' }] });
    const session = checkTests(fromSession([{ command: 'pytest', exit_code: 1 }]));
    assert.match(session.findings[0]!.detail, new RegExp(`\\(${SESSION}, command #0\\)\\.$`));
  });

  it('a run without an exit code or a reason has no exit status recorded, like one with a null exit', () => {
    const r = checkTests(snapshotWith({ feedback: [{ command: 'go test ./...' }] }));
    assert.equal(r.passed, false);
    assert.equal(r.summary, 'The latest test run has no exit status recorded and no open risk names it: `go test ./...`.');
    const timeout = checkTests(snapshotWith({ feedback: [{ command: 'go test ./...', exit_code: null, error: 'timeout after 30 s' }] }));
    assert.equal(timeout.summary, 'The latest test run did not finish (timeout after 30 s) and no open risk names it: `go test ./...`.');
  });

  it('a risk names a red run even when its text wraps or spaces the command', () => {
    for (const open_risks of [['The npm\n    test run fails on rounding'], [{ detail: 'npm  test: refunds off by one cent' }]]) {
      const r = checkTests(snapshotWith({ feedback: [{ command: 'npm test', exit_code: 1 }], agentState: { open_risks } }));
      assert.equal(r.passed, true, JSON.stringify(open_risks));
      assert.equal(r.summary, 'The latest test run failed with exit 1 (`npm test`), and the open risks name it.');
    }
    const blocker = checkTests(snapshotWith({ feedback: [{ command: 'npm test', exit_code: 2 }], agentState: { blockers: [{ text: 'NPM Test is red on CI' }] } }));
    assert.equal(blocker.passed, true);
    const finding = checkTests(snapshotWith({
      feedback: [{ command: 'npm test', exit_code: 2 }],
      verification: { passed: false, findings: [{ code: 'npm test', detail: 'red' }] },
    }));
    assert.equal(finding.passed, true);
  });
});

describe('clean state: green tests beside an older failure the next action names', () => {
  const note = (cmd: string, where: string) =>
    `Green because the latest run passed; the newest failure, \`${cmd}\` (${where}), is still named as the next action.`;

  it('the note gives the failure its place in the session', () => {
    const r = checkTests(fromSession([{ command: 'npm run build', exit_code: 1 }, { command: 'npm test', exit_code: 0 }]));
    assert.equal(r.note, note('npm run build', 'command #0'));
    assert.equal(r.summary, `The latest test run passed: \`npm test\` (${SESSION}, command #1). ${note('npm run build', 'command #0')}`);
  });

  it('a pass of the same command before the failure does not fix it', () => {
    const r = checkTests(snapshotWith({
      feedback: [{ command: 'npm run build', exit_code: 0 }, { command: 'npm run build', exit_code: 1 }, { command: 'npm test', exit_code: 0 }],
    }));
    assert.equal(r.note, note('npm run build', 'line 2'));
  });

  it('only the newest open failure counts', () => {
    const r = checkTests(snapshotWith({
      feedback: [
        { command: 'npm run lint', exit_code: 1 },
        { command: 'npm run build', exit_code: 1 },
        { command: 'npm run build', exit_code: 0 },
        { command: 'npm run typecheck', exit_code: 2 },
        { command: 'npm test', exit_code: 0 },
      ],
    }));
    assert.equal(r.note, note('npm run typecheck', 'line 4'));
  });

  it('a failure passed since does not count; an older open one does', () => {
    const r = checkTests(snapshotWith({
      feedback: [
        { command: 'npm run build', exit_code: 1 },
        { command: 'npm run lint', exit_code: 1 },
        { command: 'npm run lint', exit_code: 0 },
        { command: 'npm test', exit_code: 0 },
      ],
    }));
    assert.equal(r.note, note('npm run build', 'line 1'));
  });

  it('a failure after the green run is not an older one beside it', () => {
    const r = checkTests(snapshotWith({ feedback: [{ command: 'npm run build', exit_code: 1 }, { command: 'npm test', exit_code: 0 }, { command: 'npm run lint', exit_code: 1 }] }));
    assert.equal(r.note, undefined);
    assert.equal(r.summary, 'The latest test run passed: `npm test` (feedback_record.jsonl line 2).');
  });

  it('a next action that wraps the command over lines still names it', () => {
    const r = checkTests(snapshotWith({
      agentState: { next_action: 'Fix the  npm run\n  build error first' },
      feedback: [{ command: 'npm run build', exit_code: 1 }, { command: 'npm test', exit_code: 0 }],
    }));
    assert.equal(r.note, note('npm run build', 'line 1'));
  });

  it('a next action naming only the test file of the failure, in any case, names it', () => {
    const r = checkTests(snapshotWith({
      agentState: { next_action: 'Make tests/Test_Refund.py pass again' },
      feedback: [{ command: 'pytest tests/Test_Refund.py -k partial', exit_code: 1 }, { command: 'pytest', exit_code: 0 }],
    }));
    assert.equal(r.note, note('pytest tests/Test_Refund.py -k partial', 'line 1'));
  });
});
