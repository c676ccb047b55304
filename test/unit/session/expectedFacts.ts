import * as assert from 'node:assert/strict';
import type { SessionCommand, SessionFacts } from '../../../src/core/session/model';

/** The shapes of the `.expected.json` files of the shared transcript fixtures (the fields compared). */
interface ExpectedCommand {
  command: string;
  tool?: string;
  tool_use_id?: string;
  call_id?: string;
  line?: number;
  result_line?: number;
  output_line?: number;
  cwd?: string;
  exit_code: number | null;
  timed_out: boolean;
  rejected: boolean;
  outcome?: string;
  rejection_reason?: string;
  rolled_back_turn?: boolean;
  background?: { task_id?: string; status?: string; notification_lines?: number[]; stop_line?: number };
}

type Expected = Record<string, unknown>;

/** What each `outcome` of an expected command means in a `SessionCommand`. */
function assertOutcome(c: SessionCommand, e: ExpectedCommand, where: string): void {
  switch (e.outcome) {
    case undefined:
      return;
    case 'ok':
      assert.deepEqual([c.exit_code, c.unfinished, c.interpretation ?? null], [0, null, null], where);
      return;
    case 'failed':
      assert.ok(c.exit_code !== null && c.exit_code !== 0 && !c.interpretation, `${where}: a failure with its exit code`);
      return;
    case 'no_match':
      assert.deepEqual([c.exit_code, c.unfinished, c.interpretation], [1, null, 'No matches found'], where);
      return;
    case 'rejected':
      assert.deepEqual([c.rejected, c.exit_code], [true, null], where);
      return;
    case 'stopped':
    case 'completed':
      assert.deepEqual([c.exit_code, c.unfinished], [null, e.outcome], where);
      return;
    case 'aborted':
      assert.deepEqual([c.exit_code, c.unfinished], [null, 'interrupted'], where);
      assert.match(c.error ?? '', /may have partially executed/, where);
      return;
    default:
      assert.fail(`${where}: unknown outcome ${e.outcome} in the expected file`);
  }
}

function assertCommand(c: SessionCommand | undefined, e: ExpectedCommand, i: number): void {
  const where = `command ${i} (${e.command})`;
  assert.ok(c, `${where} is missing`);
  assert.equal(c.command, e.command, where);
  assert.equal(c.id, e.tool_use_id ?? e.call_id, where);
  assert.deepEqual([c.exit_code, c.timed_out, c.rejected], [e.exit_code, e.timed_out, e.rejected], where);
  if (e.tool !== undefined) assert.equal(c.tool, e.tool, where);
  if (e.line !== undefined) assert.equal(c.line, e.line, `${where}: line`);
  const resultLine = e.result_line ?? e.output_line;
  if (resultLine !== undefined) assert.equal(c.result_line, resultLine, `${where}: result line`);
  if (e.cwd !== undefined) assert.equal(c.cwd, e.cwd, `${where}: cwd`);
  if (e.rejection_reason !== undefined) assert.equal(c.rejection_reason, e.rejection_reason, `${where}: rejection reason`);
  assert.equal(c.rolled_back === true, e.rolled_back_turn === true, `${where}: rolled back`);
  assertOutcome(c, e, where);
  const bg = e.background;
  if (bg) {
    assert.ok(c.background, `${where}: sent to the background`);
    if (bg.task_id !== undefined) assert.equal(c.background.task_id, bg.task_id, `${where}: task id`);
    if (bg.status !== undefined) assert.equal(c.background.status, bg.status, `${where}: background status`);
    // Resolved by the first copy of the notice (or by the stop); the later copies change nothing.
    const resolved = bg.notification_lines?.[0] ?? bg.stop_line;
    if (resolved !== undefined) assert.equal(c.background.resolved_line, resolved, `${where}: resolved at`);
  } else {
    assert.equal(c.background ?? null, null, `${where}: not a background command`);
  }
}

/**
 * Compares a session's facts with a fixture's `.expected.json`, field by field: the session, the
 * requests (with their lines), every command in order (ids, lines, cwd, exit codes and outcomes,
 * background outcomes, rejections, rolled-back turns), the edited files, the task list, the open
 * questions, the closing words, the recap and the secrets that must not appear. A field the expected
 * file does not have is not compared.
 */
export function assertMatchesExpected(facts: SessionFacts, expected: Expected): void {
  assert.equal(facts.agent, expected['agent']);
  assert.equal(facts.sessionId, expected['session_id']);
  assert.equal(facts.cwd, expected['cwd']);
  assert.equal(facts.branch, expected['branch']);
  if (expected['model'] !== undefined) assert.equal(facts.model, expected['model']);
  const version = expected['version'] ?? expected['cli_version'];
  if (version !== undefined) assert.equal(facts.version, version);
  if (expected['cwd_at_end'] !== undefined) assert.equal(facts.cwds?.[facts.cwds.length - 1], expected['cwd_at_end']);

  assert.equal(facts.firstUserRequest, expected['first_user_request']);
  assert.equal(facts.firstRequest?.text, expected['first_user_request']);
  const requests = (expected['user_requests'] as (string | { line: number; text: string })[]).map((r) => (typeof r === 'string' ? { text: r } : r));
  assert.deepEqual(facts.userRequests, requests.map((r) => r.text));
  const withLines = requests.filter((r): r is { line: number; text: string } => 'line' in r);
  if (withLines.length) {
    assert.deepEqual(facts.firstRequest, { text: withLines[0]?.text, line: withLines[0]?.line });
    assert.deepEqual(facts.latestRequest, { text: withLines[withLines.length - 1]?.text, line: withLines[withLines.length - 1]?.line });
  }
  const rolledBack = (expected['rolled_back_requests'] as { line: number; text: string }[] | undefined) ?? [];
  assert.deepEqual(facts.rolledBackRequests, rolledBack.map((r) => ({ text: r.text, line: r.line })));

  const all = [...facts.commands, ...facts.rejected].sort((a, b) => a.ordinal - b.ordinal);
  const commands = expected['commands'] as ExpectedCommand[];
  assert.equal(all.length, commands.length, `commands: ${all.map((c) => c.command).join(' | ')}`);
  commands.forEach((e, i) => assertCommand(all[i], e, i));

  // The failure's output: for a background run, what the agent read from its output file.
  const excerpt = expected['failing_output_excerpt_contains'] as string | undefined;
  const failingNow = (expected['failing_now'] as { command_tool_use_id?: string; excerpt_contains: string }[] | undefined) ?? [];
  for (const f of failingNow) {
    const c = all.find((x) => x.id === f.command_tool_use_id);
    assert.ok(c?.stdout_tail?.includes(f.excerpt_contains), `the output of ${f.command_tool_use_id} holds "${f.excerpt_contains}": ${c?.stdout_tail ?? 'none'}`);
  }
  if (excerpt) assert.ok(all.some((c) => c.exit_code !== null && c.exit_code !== 0 && c.stdout_tail?.includes(excerpt)), `a failure's output holds "${excerpt}"`);

  const files = (expected['files_touched_absolute'] ?? expected['files_touched']) as string[];
  if (expected['files_touched_absolute'] !== undefined || (files[0] ?? '/').startsWith('/') || files.length === 0) assert.deepEqual(facts.filesTouched, files);

  const todos = expected['todos'] as { content: string; status: string }[] | undefined;
  if (todos !== undefined) {
    // No task tool at all: no task list (null), never an invented one.
    if (todos.length === 0) assert.equal(facts.todos, null);
    else assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), todos);
  }
  if (typeof expected['todos_line'] === 'number') assert.deepEqual(facts.todosSource, { tool: 'update_plan', line: expected['todos_line'] });
  const board = expected['task_list'] as { items: { id: string; content: string; status: string }[]; deleted: { id: string }[]; active: { id: string; content: string } } | undefined;
  if (board) {
    assert.deepEqual(facts.todos?.map((t) => ({ id: t.id, content: t.content, status: t.status })), board.items);
    for (const d of board.deleted) assert.ok(!facts.todos?.some((t) => t.id === d.id), `deleted task #${d.id} is not on the list`);
    const active = facts.todos?.filter((t) => t.status === 'in_progress');
    assert.deepEqual(active?.map((t) => ({ id: t.id, content: t.content })), [board.active]);
    assert.equal(facts.todosSource?.tool, 'task tools');
  }

  const questions = ((expected['open_questions'] as { text: string; source: string; line: number; options?: string[] }[] | undefined) ?? []).filter((q) => q.source === 'AskUserQuestion');
  assert.deepEqual(facts.openQuestions, questions.map((q) => ({ text: q.text, source: 'question-tool', line: q.line, ...(q.options ? { options: q.options } : {}) })));

  const closing = expected['closing_message'] as { line: number; text?: string; status?: string; next?: string; question?: string } | undefined;
  if (closing) {
    assert.equal(facts.closing?.line, closing.line, 'closing line');
    if (closing.text !== undefined) assert.equal(facts.closing?.text, closing.text);
    for (const part of [closing.status, closing.next, closing.question]) if (part) assert.ok(facts.closing?.text.includes(part), `the closing words hold: ${part}`);
    assert.equal(facts.closing?.omittedChars, undefined);
    assert.equal(facts.endedOnClosing, true);
  }
  const recap = expected['away_summary'] as { line: number; goal: string; next_action: string } | undefined;
  if (recap) {
    assert.equal(facts.recap?.line, recap.line);
    assert.ok(facts.recap?.text.includes(recap.goal) && facts.recap.text.includes(recap.next_action), facts.recap?.text);
    assert.doesNotMatch(facts.recap?.text ?? '', /disable recaps/);
  } else {
    assert.equal(facts.recap, null);
  }
  if (expected['api_error_lines'] !== undefined) assert.equal(facts.apiErrorLines, expected['api_error_lines']);

  const text = JSON.stringify(facts);
  for (const secret of (expected['secrets_must_not_appear'] as string[] | undefined) ?? []) {
    assert.ok(!text.includes(secret.slice(0, 16)), 'a secret of the session leaked into the facts');
  }
}
