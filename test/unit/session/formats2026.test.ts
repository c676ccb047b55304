import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SessionAgent, SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { bashUse, claudeAssistant, claudeResult, claudeUserText, codexAssistant, codexCall, codexEvent, codexItem, codexMeta, codexOutput, codexUserMessage, CWD, text } from './sessionLines';

async function factsOf(agent: SessionAgent, lines: string[]): Promise<SessionFacts> {
  const dir = await makeTempDir('handoff-formats26-');
  const file = path.join(dir, 'log.jsonl');
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  const facts = await readSessionFile(file, agent);
  assert.ok(facts);
  return facts;
}

const byCommand = (f: SessionFacts, command: string) => [...f.commands, ...f.rejected].find((c) => c.command === command);
const notice = (taskId: string, status: string | null, summary: string, toolUseId?: string): string =>
  `<task-notification>\n<task-id>${taskId}</task-id>\n${toolUseId ? `<tool-use-id>${toolUseId}</tool-use-id>\n` : ''}${status ? `<status>${status}</status>\n` : ''}<summary>${summary}</summary>\n</task-notification>`;
const attachment = (a: Record<string, unknown>): string => JSON.stringify({ parentUuid: 'p', isSidechain: false, attachment: a, type: 'attachment', uuid: 'a', timestamp: '2026-11-20T10:00:00.000Z', cwd: CWD, sessionId: 'sess-claude' });
const tool = (id: string, name: string, input: Record<string, unknown>): Record<string, unknown> => ({ type: 'tool_use', id, name, input });

describe('Claude Code 2026: background work', () => {
  it('a run moved to the background at its timeout stays uncertain until a notice (user line, system-reminder) resolves it, matched by task id', async () => {
    const f = await factsOf('claude-code', [
      claudeUserText('Run the e2e suite'),
      claudeAssistant([bashUse('t1', 'npm run e2e')]),
      claudeResult('t1', 'Command was moved to the background with ID: b1a2b3c4d.', { toolUseResult: { stdout: '', stderr: '', backgroundTaskId: 'b1a2b3c4d', timedOutAfterMs: 120000 } }),
      claudeAssistant([bashUse('t2', 'npm run dev', { run_in_background: true })]),
      claudeResult('t2', 'Command running in background with ID: bdev00001. Output is being written to: /tmp/x', { toolUseResult: { stdout: '', stderr: '', backgroundTaskId: 'bdev00001' } }),
    ]);
    const e2e = byCommand(f, 'npm run e2e');
    assert.deepEqual([e2e?.exit_code, e2e?.unfinished, e2e?.background?.status], [null, 'timeout', 'pending']);
    const resolved = await factsOf('claude-code', [
      claudeUserText('Run the e2e suite'),
      claudeAssistant([bashUse('t1', 'npm run e2e')]),
      claudeResult('t1', 'Command was moved to the background with ID: b1a2b3c4d.', { toolUseResult: { stdout: '', stderr: '', backgroundTaskId: 'b1a2b3c4d', timedOutAfterMs: 120000 } }),
      claudeAssistant([bashUse('t2', 'npm run dev', { run_in_background: true })]),
      claudeResult('t2', 'Command running in background with ID: bdev00001.', { toolUseResult: { stdout: '', stderr: '', backgroundTaskId: 'bdev00001' } }),
      // Older notices lack <tool-use-id>: the task id matches.
      claudeUserText(notice('b1a2b3c4d', 'failed', 'Background command "e2e" failed with exit code 144'), { origin: { kind: 'task-notification' } }),
      claudeUserText(`<system-reminder>\n${notice('bdev00001', 'killed', 'Background command "dev" was stopped')}\n</system-reminder>`),
      claudeUserText(notice('b1a2b3c4d', 'completed', 'Background command "e2e" completed (exit code 0)')),
    ]);
    const e = byCommand(resolved, 'npm run e2e');
    // The first outcome of a task counts; a later, different notice for it finds nothing pending.
    assert.deepEqual([e?.exit_code, e?.unfinished, e?.timed_out, e?.background?.status, e?.background?.resolved_line], [144, null, false, 'failed', 6]);
    const dev = byCommand(resolved, 'npm run dev');
    assert.deepEqual([dev?.exit_code, dev?.unfinished, dev?.background?.status], [null, 'stopped', 'stopped']);
    // Notices are not requests.
    assert.deepEqual(resolved.userRequests, ['Run the e2e suite']);
  });

  it('a stop of a shell that already ended gives its state; a poll that saw the end resolves it; polls and stops are no commands', async () => {
    const f = await factsOf('claude-code', [
      claudeAssistant([bashUse('b1', 'make watch', { run_in_background: true })]),
      claudeResult('b1', 'Command running in background with ID: 4f9a1c', { toolUseResult: { backgroundTaskId: '4f9a1c' } }),
      claudeAssistant([bashUse('b2', 'make bench', { run_in_background: true })]),
      claudeResult('b2', 'Command running in background with ID: 5e8b2d', { toolUseResult: { backgroundTaskId: '5e8b2d' } }),
      claudeAssistant([tool('k1', 'KillShell', { shell_id: '4f9a1c' })]),
      claudeResult('k1', 'Shell 4f9a1c is not running, so cannot be killed (status: failed)', { isError: true }),
      claudeAssistant([tool('p1', 'BashOutput', { bash_id: '5e8b2d' })]),
      claudeResult('p1', '<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>ok</stdout>'),
    ]);
    assert.equal(f.commandCount, 2);
    assert.deepEqual([byCommand(f, 'make watch')?.exit_code, byCommand(f, 'make watch')?.background?.status], [1, 'failed']);
    assert.deepEqual([byCommand(f, 'make bench')?.exit_code, byCommand(f, 'make bench')?.background?.resolved_line], [0, 8]);
  });

  it('a call cancelled because a parallel call failed never ran; a grep with no match is exit 1 with its interpretation', async () => {
    const f = await factsOf('claude-code', [
      claudeAssistant([bashUse('c1', 'npm test'), bashUse('c2', 'npm run lint')]),
      claudeResult('c1', 'Exit code 1\nFAIL', { isError: true }),
      claudeResult('c2', '<tool_use_error>Cancelled: parallel tool call Bash(npm test) errored</tool_use_error>', { isError: true, toolUseResult: 'Cancelled: parallel tool call Bash(npm test) errored' }),
      claudeAssistant([bashUse('g1', 'rg TODO src')]),
      claudeResult('g1', '(Bash completed with no output)', { isError: false, toolUseResult: { stdout: '', stderr: '', interrupted: false, returnCodeInterpretation: 'No matches found' } }),
    ]);
    const lint = byCommand(f, 'npm run lint');
    assert.deepEqual([lint?.exit_code, lint?.unfinished, lint?.timed_out], [null, 'cancelled', false]);
    const rg = byCommand(f, 'rg TODO src');
    assert.deepEqual([rg?.exit_code, rg?.interpretation, rg?.unfinished], [1, 'No matches found', null]);
    assert.equal(byCommand(f, 'npm test')?.interpretation, null);
  });
});

describe('Claude Code 2026: task lists of every generation', () => {
  it('no task tool at all: no task list, even with an empty reminder', async () => {
    const f = await factsOf('claude-code', [claudeUserText('Fix it'), attachment({ type: 'task_reminder', content: [], itemCount: 0 }), claudeAssistant([text('Done.')])]);
    assert.equal(f.todos, null);
    assert.equal(f.todosSource, null);
  });

  it('a refused update changes nothing, a subject update renames, a later reminder wins, and TodoWrite names its source', async () => {
    const f = await factsOf('claude-code', [
      claudeAssistant([tool('c1', 'TaskCreate', { subject: 'Write the parser', description: 'd' })]),
      claudeResult('c1', 'Task #7 created successfully: Write the parser'),
      claudeAssistant([tool('u1', 'TaskUpdate', { taskId: '7', status: 'completed' })]),
      claudeResult('u1', 'Task completion blocked by hook', { toolUseResult: { success: false, taskId: '7', error: 'blocked' } }),
      claudeAssistant([tool('u2', 'TaskUpdate', { taskId: '7', subject: 'Write the strict parser', status: 'in_progress' })]),
      claudeResult('u2', 'Updated task #7 subject, status', { toolUseResult: { success: true, taskId: '7', updatedFields: ['subject', 'status'] } }),
    ]);
    assert.deepEqual(f.todos?.map((t) => [t.id, t.content, t.status, t.line]), [['7', 'Write the strict parser', 'in_progress', 5]]);
    assert.deepEqual(f.todosSource, { tool: 'task tools', line: 5 });
    const later = await factsOf('claude-code', [
      claudeAssistant([tool('c1', 'TaskCreate', { subject: 'A' })]),
      claudeResult('c1', 'Task #1 created successfully: A', { toolUseResult: { task: { id: '1', subject: 'A' } } }),
      attachment({ type: 'task_reminder', content: [{ id: '1', subject: 'A', status: 'completed' }, { id: '2', subject: 'B', status: 'pending' }], itemCount: 2 }),
    ]);
    assert.deepEqual(later.todos?.map((t) => [t.id, t.status]), [['1', 'completed'], ['2', 'pending']]);
    assert.deepEqual(later.todosSource, { tool: 'task tools', line: 3 });
    const todo = await factsOf('claude-code', [claudeAssistant([tool('t1', 'TodoWrite', { todos: [{ content: 'X', status: 'in_progress', activeForm: 'x' }] })])]);
    assert.deepEqual(todo.todosSource, { tool: 'TodoWrite', line: 1 });
  });
});

describe('Claude Code 2026: the session’s own judgement', () => {
  it('an answered question is an answer; a dismissed one and one left on screen are open; a later human message closes them', async () => {
    const q = (id: string, question: string) => tool(id, 'AskUserQuestion', { questions: [{ question, header: 'H', options: [{ label: 'Yes', description: '' }, { label: 'No', description: '' }], multiSelect: false }] });
    const f = await factsOf('claude-code', [
      claudeUserText('Migrate the db'),
      claudeAssistant([q('q1', 'Keep the old table?')]),
      claudeResult('q1', 'Your questions have been answered: "Keep the old table?"="Yes". You can now continue with these answers in mind.', { toolUseResult: { questions: [], answers: { 'Keep the old table?': 'Yes' } } }),
      claudeAssistant([q('q2', 'Drop the index?')]),
      claudeResult('q2', "The user doesn't want to proceed with this tool use. The tool use was rejected.", { isError: true }),
      claudeAssistant([q('q3', 'Run it on prod?')]),
    ]);
    assert.deepEqual(f.answers, [{ question: 'Keep the old table?', answer: 'Yes', line: 3 }]);
    assert.deepEqual(f.openQuestions?.map((o) => [o.text, o.line, o.options]), [['Drop the index?', 4, ['Yes', 'No']], ['Run it on prod?', 6, ['Yes', 'No']]]);
    assert.equal(f.closing, null, 'a question tool call is no closing text');
    const after = await factsOf('claude-code', [claudeAssistant([q('q1', 'Keep the old table?')]), claudeUserText('skip that, just add the column')]);
    assert.deepEqual(after.openQuestions, []);
  });

  it('requests answered only by API errors or an interrupt are unanswered; a real reply answers', async () => {
    const f = await factsOf('claude-code', [
      claudeUserText('first'),
      claudeAssistant([text('On it.')]),
      claudeUserText('second'),
      claudeAssistant([text('API Error: 529 overloaded')], { model: '<synthetic>', extra: { isApiErrorMessage: true } }),
      claudeUserText('third'),
      claudeUserText([{ type: 'text', text: '[Request interrupted by user]' }]),
      claudeUserText('fourth'),
    ]);
    assert.deepEqual(f.unanswered?.map((u) => [u.text, u.line, u.why]), [['second', 3, 'api-error'], ['third', 5, 'interrupted'], ['fourth', 7, 'no-reply']]);
    assert.equal(f.closing, null, 'the session ended on a human message');
    assert.equal(f.endedOnClosing, false);
  });

  it('the closing words are every text part after the last tool call; a tool call after them means the session did not end on them', async () => {
    const f = await factsOf('claude-code', [
      claudeUserText('go'),
      claudeAssistant([bashUse('x', 'ls')]),
      claudeResult('x', 'a'),
      claudeAssistant([text('Part one.')], { id: 'm1' }),
      claudeAssistant([text('Part two?')], { id: 'm1' }),
    ]);
    assert.deepEqual([f.closing?.text, f.closing?.line, f.endedOnClosing], ['Part one.\n\nPart two?', 4, true]);
    const g = await factsOf('claude-code', [claudeUserText('go'), claudeAssistant([text('Running it.')]), claudeAssistant([bashUse('x', 'ls')])]);
    assert.deepEqual([g.closing?.text, g.endedOnClosing], ['Running it.', false]);
    const h = await factsOf('claude-code', [claudeUserText('go'), claudeAssistant([text('Let me think about')]), claudeUserText([{ type: 'text', text: '[Request interrupted by user]' }])]);
    assert.deepEqual([h.closing?.text, h.endedOnClosing], ['Let me think about', false]);
  });

  it('human words are whole up to about 2 000 characters and never cut inside a word; the closing words up to about 12 000', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const closing = Array.from({ length: 2500 }, (_, i) => `token${i}`).join(' ');
    const f = await factsOf('claude-code', [claudeUserText(long), claudeAssistant([text(closing)])]);
    const first = f.firstRequest;
    assert.ok(first && first.text.length <= 2000 && first.text.endsWith('…'), String(first?.text.length));
    const kept = first.text.slice(0, -1);
    assert.ok(long.startsWith(kept) && long[kept.length] === ' ', 'cut at a space');
    assert.equal(first.omittedChars, long.length - kept.length);
    assert.equal(f.firstUserRequest, first.text);
    assert.ok(f.closing && f.closing.text.length <= 12_000 && f.closing.text.length > 11_000);
    assert.equal(f.closing.omittedChars, closing.length - (f.closing.text.length - 1));
  });

  it('a prompt typed mid-turn is a request once, even when it arrives again as a user line; queue copies never are', async () => {
    const f = await factsOf('claude-code', [
      claudeUserText('start'),
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue', content: 'also fix the docs', sessionId: 'sess-claude' }),
      attachment({ type: 'queued_command', prompt: [{ type: 'text', text: 'also fix the docs' }], commandMode: 'prompt' }),
      claudeUserText('also fix the docs'),
      claudeUserText('and then the changelog'),
    ]);
    assert.deepEqual(f.userRequests, ['start', 'also fix the docs', 'and then the changelog']);
    assert.equal(f.latestRequest?.line, 5);
  });

  it('a human message too long to hold (a pasted image of megabytes) still gives its typed text and cwd', async () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'B'.repeat(5 * 1024 * 1024) } };
    const f = await factsOf('claude-code', [
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue', sessionId: 's' }),
      JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: [image, { type: 'text', text: '[Image #1] The "total" row is off by one' }] }, uuid: 'u', cwd: `${CWD}/pkg`, sessionId: 'sess-claude' }),
      claudeAssistant([text('Looking.')]),
    ]);
    assert.deepEqual(f.firstRequest, { text: '[Image #1] The "total" row is off by one', line: 2 });
    assert.equal(f.cwds?.[0], `${CWD}/pkg`);
    assert.ok(!JSON.stringify(f).includes('BBBBBBBB'));
  });

  it('skips unknown record types and fields silently and counts a line that is not JSON once', async () => {
    const f = await factsOf('claude-code', [
      JSON.stringify({ type: 'world-state', blob: { x: 1 } }),
      claudeUserText('go', { brandNewField: { a: 1 } }),
      'this is { not json',
      claudeAssistant([{ type: 'brand_new_part', x: 1 }, text('ok')]),
    ]);
    assert.deepEqual(f.badLines, [3]);
    assert.deepEqual(f.userRequests, ['go']);
    assert.equal(f.closing?.text, 'ok');
  });
});

describe('Codex 2026', () => {
  it('a rollback of two turns drops both requests and marks their commands; task_complete without text leaves the last message', async () => {
    const f = await factsOf('codex', [
      codexMeta(),
      codexUserMessage('one'),
      codexCall('exec_command', { cmd: 'touch a' }, 'c1'),
      codexOutput('c1', 'Process exited with code 0\nOutput:\n'),
      codexUserMessage('two'),
      codexCall('exec_command', { cmd: 'touch b' }, 'c2'),
      codexOutput('c2', 'Process exited with code 0\nOutput:\n'),
      codexUserMessage('three'),
      codexEvent({ type: 'thread_rolled_back', num_turns: 2 }),
      codexUserMessage('four'),
      codexAssistant('Done with four.'),
      codexEvent({ type: 'task_complete', turn_id: 't', last_agent_message: null }),
    ]);
    assert.deepEqual(f.userRequests, ['one', 'four']);
    assert.deepEqual(f.rolledBackRequests?.map((r) => [r.text, r.line]), [['two', 5], ['three', 8]]);
    assert.deepEqual([byCommand(f, 'touch a')?.rolled_back, byCommand(f, 'touch b')?.rolled_back], [false, true]);
    assert.deepEqual([f.closing?.text, f.closing?.line], ['Done with four.', 11]);
    assert.equal(f.firstRequest?.text, 'one');
  });

  it('apply_patch results as JSON or text; exec_command_end fills in an exit the output did not give', async () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n';
    const f = await factsOf('codex', [
      codexMeta(),
      codexItem({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: patch }),
      codexItem({ type: 'custom_tool_call_output', call_id: 'p1', output: JSON.stringify({ output: 'Success. Updated the following files:\nM src/a.ts\n', metadata: { exit_code: 0 } }) }),
      codexItem({ type: 'custom_tool_call', status: 'completed', call_id: 'p2', name: 'apply_patch', input: patch.replace('a.ts', 'b.ts') }),
      codexItem({ type: 'custom_tool_call_output', call_id: 'p2', output: 'apply_patch verification failed: Failed to find expected lines in src/b.ts' }),
      codexCall('exec_command', { cmd: 'make' }, 'e1', ),
      codexEvent({ type: 'exec_command_end', call_id: 'e1', exit_code: 2, status: 'failed', aggregated_output: 'boom' }),
      codexOutput('e1', 'Process exited with code 2\nOutput:\nboom'),
    ]);
    assert.deepEqual(f.filesTouched, [`${CWD}/src/a.ts`]);
    assert.deepEqual([byCommand(f, 'make')?.exit_code, byCommand(f, 'make')?.result_line], [2, 7]);
    assert.equal(f.commandCount, 1);
  });
});
