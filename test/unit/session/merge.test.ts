import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { checkFeatureBoard } from '../../../src/core/clean/featureBoard';
import { checkTests } from '../../../src/core/clean/testsCheck';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { describeSources } from '../../../src/core/packet/sources';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionCommand, SessionFacts } from '../../../src/core/session/model';
import { makeTempDir } from '../helpers/fixtures';

let ordinal = 0;
function cmd(command: string, exit: number | null, extra: Partial<SessionCommand> = {}): SessionCommand {
  return {
    ordinal: ordinal++, id: `c${ordinal}`, command, exit_code: exit, timed_out: false, unfinished: exit === null ? 'timeout' : null, rejected: false,
    started_at: '2026-11-20T09:00:00.000Z', duration_ms: 10, stdout_tail: exit ? 'Error: it broke\n  at x' : 'ok', stderr_tail: null,
    error: exit === null ? 'Command timed out after 2m 0.0s' : null, agent_note: null, user_reply: null, ...extra,
  };
}

function facts(dir: string, over: Partial<SessionFacts> = {}): SessionFacts {
  const commands = over.commands ?? [];
  return {
    agent: 'claude-code', file: path.join(dir, 'x.jsonl'), sessionId: 'abcdef12-0000', cwd: dir, branch: 'feat/s',
    firstUserRequest: 'Build the thing', latestUserRequest: 'Build the thing', userRequests: ['Build the thing'],
    commands, commandCount: commands.length, rejected: [], rejectedCount: 0, filesTouched: [], todos: null,
    lastAssistantMessage: 'Stopped after the parser.', apiErrorLines: 0, revision: 1, badLines: [], ...over,
  };
}

async function workbench(files: Record<string, unknown> = {}): Promise<string> {
  const dir = await makeTempDir('handoff-merge-');
  for (const [name, content] of Object.entries(files)) await fs.writeFile(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

async function merged(dir: string, f: SessionFacts | null) {
  return mergeSession(await loadWorkbench(dir, { feedbackK: 5, maxCommands: 30 }), f, { workspaceDir: dir, feedbackK: 5, maxCommands: 30 });
}

function packetOf(snapshot: Awaited<ReturnType<typeof merged>>) {
  return buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
}

describe('merging the agent session into the workbench', () => {
  it('an explicit workbench file wins per kind, never mixed: the feedback log and the board replace the session\'s commands and task list', async () => {
    const dir = await workbench({
      'feedback_record.jsonl': `${JSON.stringify({ command: 'pytest', exit_code: 0 })}\n`,
      'feature_list.json': { active: 'F1', features: [{ id: 'F1', status: 'in_progress', goal: 'board goal' }] },
    });
    const s = await merged(dir, facts(dir, { commands: [cmd('npm test', 1)], todos: [{ content: 'session task', status: 'in_progress', since: 0 }], filesTouched: [path.join(dir, 'a.ts')] }));
    assert.deepEqual(s.feedback?.kept.map((r) => r.record.command), ['pytest']);
    assert.equal(s.featureList?.features[0]?.goal, 'board goal');
    assert.equal(s.origins?.['commands'], 'feedback_record.jsonl');
    assert.equal(s.origins?.['task_list'], 'feature_list.json');
    assert.equal(s.origins?.['changed_files'], 'claude:abcdef12-0000', 'a kind without a file comes from the session');
    assert.deepEqual(s.agentState?.touched_files, ['a.ts']);
  });

  it('an empty feedback log or board says nothing, so the session fills those kinds', async () => {
    const dir = await workbench({ 'feedback_record.jsonl': '', 'feature_list.json': { active: null, features: [] } });
    const s = await merged(dir, facts(dir, { commands: [cmd('npm test', 1)], todos: [{ content: 'T', status: 'in_progress', since: 0 }] }));
    assert.deepEqual(s.feedback?.kept.map((r) => r.record.command), ['npm test']);
    assert.equal(s.featureList?.derivedFrom, 'Claude Code session abcdef12');
    assert.equal(s.origins?.['commands'], 'claude:abcdef12-0000');
  });

  it('without files, the session fills commands, the task list, touched files (inside the folder only), decisions, session id and branch', async () => {
    const dir = await workbench();
    const rejected = { ...cmd('git push --force', null), rejected: true, unfinished: null, user_reply: 'Never force-push main' };
    const s = await merged(dir, facts(dir, {
      commands: [cmd('npm test', 1), cmd('npm test', 0)],
      rejected: [rejected], rejectedCount: 1,
      todos: [{ content: 'Done one', status: 'completed', since: 0 }, { content: 'Write docs', status: 'in_progress', since: 2 }],
      filesTouched: [path.join(dir, 'src/a.ts'), '/etc/passwd', path.join(path.dirname(dir), 'other', 'b.ts')],
    }));
    assert.equal(s.feedback?.total, 2);
    assert.equal(s.feedback?.lastTestRun?.record.exit_code, 0);
    assert.equal(s.featureList?.derivedFrom, 'Claude Code session abcdef12');
    assert.equal(s.featureList?.active, null, 'a task list has no active feature: the topic stays default');
    assert.deepEqual(s.agentState?.touched_files, ['src/a.ts']);
    assert.equal(s.agentState?.session_id, 'abcdef12-0000');
    assert.equal(s.agentState?.branch, 'feat/s');
    const built = packetOf(s);
    assert.ok(built.ok);
    if (!built.ok) return;
    assert.equal(built.packet.topic, 'default');
    assert.deepEqual(built.packet.decisions, [{ text: 'declined by the user: `git push --force` — the user then said: "Never force-push main"', status: 'rejected', source: { file: s.session!.file, line: null, what: 'declined command' } }]);
    assert.match(built.packet.summary, /Task from the Claude Code session abcdef12 on branch feat\/s: "Build the thing"/);
    assert.match(built.packet.summary, /1 command declined by the user/);
    assert.match(built.packet.summary, /Where the agent stopped: "Stopped after the parser\."/);
    assert.equal(describeSources(built.packet.sources), 'From Claude Code session abcdef12 (commands, task list, changed files, declined commands, task); next action from the task list.');
  });

  it('a request the user rolled back is a rejected approach with its source, in line order with the declined commands', async () => {
    const dir = await workbench();
    const declined = { ...cmd('npm install moment@3', null), rejected: true, unfinished: null, line: 30, rejection_reason: 'no new dependencies' };
    const f = facts(dir, { agent: 'codex', rejected: [declined], rejectedCount: 1, rolledBackRequests: [{ text: 'Upgrade moment everywhere', line: 7 }] });
    const built = packetOf(await merged(dir, f));
    assert.ok(built.ok);
    if (!built.ok) return;
    assert.deepEqual(built.packet.decisions, [
      { text: 'the user interrupted and rolled back this request: "Upgrade moment everywhere"', status: 'rejected', source: { file: f.file, line: 7, what: 'rolled-back request' } },
      { text: 'declined by the user: `npm install moment@3` — the user\'s reason: "no new dependencies"', status: 'rejected', source: { file: f.file, line: 30, what: 'declined command' } },
    ]);
    // The agent's own decisions win over the session's, as for declined commands.
    const own = packetOf(await merged(await workbench({ 'agent_state.json': { decisions: ['use dayjs'] } }), f));
    assert.ok(own.ok && own.packet.decisions.every((d) => !/rolled back/.test(d.text)));
  });

  it('Tests and Feature board read the session: the last test command by its place, the task list by its tasks', async () => {
    const dir = await workbench();
    const s = await merged(dir, facts(dir, { commands: [cmd('ls', 0), cmd('go test ./...', 1)], todos: [{ content: 'A', status: 'in_progress', since: 0 }, { content: 'B', status: 'in_progress', since: 0 }] }));
    const tests = checkTests(s);
    assert.equal(tests.passed, false);
    assert.match(tests.findings[0]?.detail ?? '', /`go test \.\/\.\.\.` \(Claude Code session abcdef12, command #\d+\)/);
    const board = checkFeatureBoard(s);
    assert.equal(board.passed, false);
    assert.match(board.summary, /2 tasks are in progress in the task list of the Claude Code session abcdef12 \("A", "B"\)/);
    assert.equal(board.findings[0]?.paths, undefined, 'no file to point at');
    const none = checkTests(await merged(dir, facts(dir, { commands: [cmd('ls', 0)] })));
    assert.equal(none.unknown, true);
    assert.match(none.summary, /none of the 1 command in Claude Code session abcdef12 looks like a test run/);
  });
});

describe('next action without agent_state.json', () => {
  it('the agent\'s own next_action wins over everything the session says', async () => {
    const dir = await workbench({ 'agent_state.json': { next_action: 'Ship it', touched_files: [] } });
    const built = packetOf(await merged(dir, facts(dir, { commands: [cmd('npm test', 1)], todos: [{ content: 'T', status: 'in_progress', since: 0 }] })));
    assert.ok(built.ok && built.packet.next_action === 'Ship it' && built.packet.sources['next_action'] === 'agent_state.json');
  });

  it('the in-progress task, made concrete with the newest failure while it was in progress', async () => {
    const dir = await workbench();
    ordinal = 0;
    const commands = [cmd('npm run lint', 1), cmd('ls', 0), cmd('npm test', 2), cmd('npm run migrate', null)];
    const todos = [{ content: 'Add the parser tests.', status: 'in_progress' as const, since: 1 }];
    const built = packetOf(await merged(dir, facts(dir, { commands: commands.slice(0, 3), todos })));
    assert.ok(built.ok);
    if (built.ok) {
      assert.equal(built.packet.next_action, 'Add the parser tests: first make `npm test` pass (it failed with exit 2: Error: it broke).');
      assert.equal(built.packet.sources['next_action'], 'task list');
    }
    const uncertain = packetOf(await merged(dir, facts(dir, { commands, todos })));
    assert.ok(uncertain.ok);
    if (uncertain.ok) assert.match(uncertain.packet.next_action, /^Add the parser tests: first find out what `npm run migrate` changed before it stopped \(it timed out: .*\); do not simply run it again\.$/);
    // A failure before the task started does not bear on it.
    const before = packetOf(await merged(dir, facts(dir, { commands: commands.slice(0, 2), todos })));
    assert.ok(before.ok && before.packet.next_action === 'Add the parser tests');
  });

  it('else the newest failure, else the latest request ("continue: …"); refuses only when the session has none', async () => {
    const dir = await workbench();
    const failing = packetOf(await merged(dir, facts(dir, { commands: [cmd('cargo build', 101)] })));
    assert.ok(failing.ok && /`cargo build`/.test(failing.packet.next_action) && failing.packet.sources['next_action'] === 'newest failure');
    const request = packetOf(await merged(dir, facts(dir, { commands: [cmd('ls', 0)], latestUserRequest: 'Now wire the CLI flag\nand test it' })));
    assert.ok(request.ok);
    if (request.ok) {
      assert.equal(request.packet.next_action, 'continue: Now wire the CLI flag');
      assert.equal(request.packet.sources['next_action'], 'latest request');
    }
    const nothing = packetOf(await merged(dir, facts(dir, { firstUserRequest: null, latestUserRequest: null, userRequests: [] })));
    assert.equal(nothing.ok, false);
    if (!nothing.ok) assert.match(nothing.reason, /Claude Code session abcdef12 has no task in progress, no failing command and no request/);
  });
});
