import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SessionAgent, SessionFacts } from '../../../src/core/session/model';
import { readSessionFile, SessionReader } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import {
  bashUse,
  claudeAssistant,
  claudeResult,
  claudeUserText,
  codexAssistant,
  codexCall,
  codexEvent,
  codexItem,
  codexMeta,
  codexOutput,
  codexUserItem,
  codexUserMessage,
  CWD,
  shellJson,
  text,
} from './sessionLines';

async function factsOf(agent: SessionAgent, lines: string[]): Promise<SessionFacts> {
  const dir = await makeTempDir('handoff-formats-');
  const file = path.join(dir, 'log.jsonl');
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  const facts = await readSessionFile(file, agent);
  assert.ok(facts);
  return facts;
}

const byCommand = (f: SessionFacts, command: string) => [...f.commands, ...f.rejected].find((c) => c.command === command);

describe('Claude Code transcript variants', () => {
  it('counts a streamed duplicate of one tool_use once, and reads string and array result contents', async () => {
    const use = bashUse('t1', 'npm run build');
    const f = await factsOf('claude-code', [
      claudeAssistant([use], { id: 'msg_1' }),
      claudeAssistant([use], { id: 'msg_1' }),
      claudeResult('t1', [{ type: 'text', text: 'Exit code 2\nerror TS2304: Cannot find name x' }], { isError: true }),
      claudeAssistant([bashUse('t2', 'ls')]),
      claudeResult('t2', 'a\nb', { isError: false, toolUseResult: { stdout: 'a\nb', stderr: 'warn: w', interrupted: false, isImage: false } }),
    ]);
    assert.equal(f.commandCount, 2);
    assert.equal(byCommand(f, 'npm run build')?.exit_code, 2);
    assert.match(byCommand(f, 'npm run build')?.stdout_tail ?? '', /TS2304/);
    assert.equal(byCommand(f, 'ls')?.exit_code, 0);
    assert.equal(byCommand(f, 'ls')?.stderr_tail, 'warn: w');
  });

  it('marks background and timed-out-to-background commands unfinished (null), and an interrupted one too', async () => {
    const f = await factsOf('claude-code', [
      claudeAssistant([bashUse('b1', 'npm run dev', { run_in_background: true })]),
      claudeResult('b1', 'Command running in background with ID: bash_1', { toolUseResult: { backgroundTaskId: 'bash_1' } }),
      claudeAssistant([bashUse('b2', 'npm run e2e')]),
      claudeResult('b2', 'still going', { toolUseResult: { backgroundTaskId: 'bash_2', timedOutAfterMs: 120000 } }),
      claudeAssistant([bashUse('b3', 'sleep 100')]),
      claudeResult('b3', 'partial', { toolUseResult: { stdout: 'partial', stderr: '', interrupted: true } }),
      claudeAssistant([bashUse('b4', 'never answered')]),
    ]);
    const dev = byCommand(f, 'npm run dev');
    assert.deepEqual([dev?.exit_code, dev?.unfinished, dev?.timed_out], [null, 'background', true]);
    const e2e = byCommand(f, 'npm run e2e');
    assert.deepEqual([e2e?.exit_code, e2e?.unfinished], [null, 'timeout']);
    assert.equal(byCommand(f, 'sleep 100')?.unfinished, 'interrupted');
    const never = byCommand(f, 'never answered');
    assert.deepEqual([never?.exit_code, never?.unfinished, never?.timed_out], [null, 'no-result', false]);
  });

  it('reads a failure flagged without its code (older versions) as exit 1, and a refused call as never run', async () => {
    const f = await factsOf('claude-code', [
      claudeAssistant([bashUse('o1', 'pytest tests/test_refund.py')]),
      claudeResult('o1', '1 failed, 6 passed', { isError: true }),
      claudeAssistant([bashUse('o2', 'rm -rf /')]),
      claudeResult('o2', '<tool_use_error>Command blocked by a PreToolUse hook</tool_use_error>', { isError: true }),
    ]);
    assert.equal(byCommand(f, 'pytest tests/test_refund.py')?.exit_code, 1);
    assert.match(byCommand(f, 'pytest tests/test_refund.py')?.stdout_tail ?? '', /1 failed/);
    const refused = byCommand(f, 'rm -rf /');
    assert.deepEqual([refused?.exit_code, refused?.unfinished], [null, 'error']);
    assert.match(refused?.error ?? '', /^did not run: Command blocked/);
  });

  it('keeps a rejection apart (not run, not a failure), with the user\'s next message; newer rejection shapes too', async () => {
    const f = await factsOf('claude-code', [
      claudeUserText('Clean up the repo'),
      claudeAssistant([bashUse('r1', 'rm -rf build')]),
      claudeResult('r1', 'Permission denied by policy', { isError: true, toolUseResult: { toolDenialKind: 'user-rejected' } }),
      claudeUserText([{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
      claudeUserText('Keep build/, it has the release artifacts'),
      claudeAssistant([bashUse('r2', 'git clean -fdx')]),
      claudeResult('r2', "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.", { isError: true }),
    ]);
    assert.equal(f.commands.length, 0);
    assert.equal(f.rejected[0]?.rejected, true);
    assert.equal(f.rejected[0]?.user_reply, 'Keep build/, it has the release artifacts');
    assert.deepEqual(f.rejected.map((c) => c.command), ['rm -rf build', 'git clean -fdx']);
    assert.equal(f.rejectedCount, 2);
    assert.deepEqual(f.userRequests, ['Clean up the repo', 'Keep build/, it has the release artifacts']);
  });

  it('ignores sidechain lines, API errors, compaction summaries, meta and slash-command text, and counts commands across a compaction', async () => {
    const f = await factsOf('claude-code', [
      JSON.stringify({ type: 'summary', summary: 'Title', leafUuid: 'x' }),
      claudeUserText('First request'),
      claudeAssistant([bashUse('c1', 'make')]),
      claudeResult('c1', 'ok'),
      claudeAssistant([bashUse('s1', 'grep sub')], { extra: { isSidechain: true, agentId: 'a1' } }),
      claudeResult('s1', 'Exit code 1\nno', { isError: true, extra: { isSidechain: true } }),
      claudeAssistant([text('API Error: 529 overloaded')], { model: '<synthetic>', extra: { isApiErrorMessage: true } }),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 160000 } }),
      claudeUserText('This session is being continued from a previous conversation…', { isCompactSummary: true, isVisibleInTranscriptOnly: true }),
      claudeUserText('<command-name>/clear</command-name>'),
      claudeUserText('Caveat: the messages below were generated by the user while running local commands.', { isMeta: true }),
      claudeAssistant([bashUse('c2', 'make test')]),
      claudeResult('c2', 'Exit code 1\nFAIL', { isError: true }),
      claudeAssistant([text('The build test fails on the parser. I will look at it next.')]),
    ]);
    assert.deepEqual(f.commands.map((c) => c.command), ['make', 'make test']);
    assert.deepEqual(f.userRequests, ['First request']);
    assert.equal(f.apiErrorLines, 1);
    assert.equal(byCommand(f, 'make test')?.agent_note, 'The build test fails on the parser.');
    assert.equal(f.lastAssistantMessage, 'The build test fails on the parser. I will look at it next.');
  });

  it('counts an edit only once it did not fail (a notebook_path too), and takes the last TodoWrite', async () => {
    const f = await factsOf('claude-code', [
      claudeAssistant([{ type: 'tool_use', id: 'e1', name: 'Edit', input: { file_path: `${CWD}/src/a.ts`, old_string: 'a', new_string: 'b' } }]),
      claudeResult('e1', 'updated', { toolUseResult: { filePath: `${CWD}/src/a.ts`, originalFile: 'a'.repeat(10000) } }),
      claudeAssistant([{ type: 'tool_use', id: 'e2', name: 'Write', input: { file_path: `${CWD}/src/b.ts`, content: 'x' } }]),
      claudeResult('e2', 'The user doesn\'t want to proceed with this tool use.', { isError: true }),
      claudeAssistant([{ type: 'tool_use', id: 'e3', name: 'NotebookEdit', input: { notebook_path: `${CWD}/nb.ipynb` } }]),
      claudeResult('e3', 'ok'),
      claudeAssistant([{ type: 'tool_use', id: 'td1', name: 'TodoWrite', input: { todos: [{ content: 'A', status: 'in_progress', priority: 'high', id: '1' }] } }]),
      claudeAssistant([{ type: 'tool_use', id: 'td2', name: 'TodoWrite', input: { todos: [{ content: 'A', status: 'completed' }, { content: 'B', status: 'in_progress' }] } }]),
    ]);
    assert.deepEqual(f.filesTouched, [`${CWD}/nb.ipynb`, `${CWD}/src/a.ts`]);
    assert.deepEqual(f.todos?.map((t) => [t.content, t.status]), [['A', 'completed'], ['B', 'in_progress']]);
  });
});

describe('Codex rollout variants', () => {
  it('reads `shell` argv with JSON metadata, `bash -lc X` as X, timeouts (124) as unfinished, and apply_patch through the shell as an edit', async () => {
    const patch = '*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/old.ts\n*** Move to: src/moved.ts\n*** End Patch\n';
    const f = await factsOf('codex', [
      codexMeta(),
      codexUserItem('Fix the build'),
      codexCall('shell', { command: ['bash', '-lc', 'npm test'], workdir: CWD }, 'c1'),
      codexOutput('c1', shellJson('FAIL src/a.test.ts', 1, 2.5)),
      codexCall('shell', { command: ['npm', 'run', 'migrate'], timeout_ms: 1000 }, 'c2'),
      codexOutput('c2', shellJson('command timed out after 1000 milliseconds\nmigrating…', 124)),
      codexCall('shell', { command: ['apply_patch', patch] }, 'c3'),
      codexOutput('c3', shellJson('Success. Updated the following files:\nA src/new.ts', 0)),
      codexCall('shell', { command: ['bash', '-lc', `apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/heredoc.ts\n*** End Patch\nPATCH`] }, 'c4'),
      codexOutput('c4', shellJson('Success.', 0)),
    ]);
    assert.deepEqual(f.commands.map((c) => [c.command, c.exit_code, c.unfinished]), [['npm test', 1, null], ['npm run migrate', null, 'timeout']]);
    assert.equal(byCommand(f, 'npm test')?.duration_ms, 2500);
    assert.equal(f.firstUserRequest, 'Fix the build', 'without user_message events the response item is the request');
    assert.deepEqual(f.filesTouched.map((p) => path.relative(CWD, p)), ['src/heredoc.ts', 'src/moved.ts', 'src/new.ts', 'src/old.ts']);
    assert.equal(f.branch, 'feat/y');
  });

  it('reads shell_command, local_shell_call, rejections and execution errors; a write_stdin poll ends a running command', async () => {
    const f = await factsOf('codex', [
      codexMeta(),
      codexUserItem('<environment_context>\n  <cwd>/x</cwd>\n</environment_context>'),
      codexUserItem('Run the checks'),
      codexUserMessage('Run the checks'),
      codexCall('shell_command', { command: 'cargo test', workdir: CWD }, 'k1'),
      codexOutput('k1', 'Exit code: 101\nWall time: 3.1 seconds\nTotal output lines: 2\nOutput:\ntest result: FAILED'),
      codexItem({ type: 'local_shell_call', call_id: 'k2', status: 'completed', action: { type: 'exec', command: ['zsh', '-lc', 'make lint'], timeout_ms: null } }),
      codexOutput('k2', shellJson('ok', 0)),
      codexCall('exec_command', { cmd: 'docker system prune -af' }, 'k3'),
      codexOutput('k3', 'exec command rejected by user'),
      codexUserMessage('Do not prune docker, it holds the DB'),
      codexCall('exec_command', { cmd: 'nonexistent-tool' }, 'k4'),
      codexOutput('k4', 'execution error: No such file or directory (os error 2)'),
      codexCall('exec_command', { cmd: 'npm run e2e', yield_time_ms: 1000 }, 'k5'),
      codexOutput('k5', 'Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 7\nOriginal token count: 3\nOutput:\nstarting\n'),
      codexCall('write_stdin', { session_id: 7, chars: '' }, 'k6'),
      codexOutput('k6', 'Chunk ID: b\nWall time: 9.0 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nall passed\n'),
      codexAssistant('E2E passes now. Lint is clean.'),
      codexEvent({ type: 'agent_message', message: 'E2E passes now. Lint is clean.' }),
    ]);
    assert.deepEqual(f.userRequests, ['Run the checks', 'Do not prune docker, it holds the DB']);
    assert.equal(byCommand(f, 'cargo test')?.exit_code, 101);
    assert.equal(byCommand(f, 'cargo test')?.duration_ms, 3100);
    assert.equal(byCommand(f, 'make lint')?.exit_code, 0);
    const prune = byCommand(f, 'docker system prune -af');
    assert.equal(prune?.rejected, true);
    assert.equal(prune?.user_reply, 'Do not prune docker, it holds the DB');
    assert.equal(byCommand(f, 'nonexistent-tool')?.unfinished, 'error');
    const e2e = byCommand(f, 'npm run e2e');
    assert.equal(e2e?.exit_code, 0, 'the poll reported the exit');
    assert.match(e2e?.stdout_tail ?? '', /starting[\s\S]*all passed/);
    assert.equal(e2e?.agent_note, 'E2E passes now.');
    assert.equal(f.commandCount, 5, 'the poll is no command of its own');
  });

  it('an aborted turn leaves its pending command unfinished', async () => {
    const f = await factsOf('codex', [
      codexMeta(),
      codexCall('exec_command', { cmd: 'npm run long' }, 'a1'),
      codexEvent({ type: 'turn_aborted', reason: 'interrupted' }),
    ]);
    assert.equal(byCommand(f, 'npm run long')?.unfinished, 'interrupted');
  });
});

describe('session reader: streaming and incremental reads', () => {
  it('reads only the appended bytes, skips a torn last line quietly and reads it once complete', async () => {
    const dir = await makeTempDir('handoff-incr-');
    const file = path.join(dir, 's.jsonl');
    await fs.writeFile(file, `${claudeUserText('Go')}\n${claudeAssistant([bashUse('i1', 'npm test')])}\n`);
    const reader = new SessionReader(file, 'claude-code');
    const first = await reader.read();
    assert.equal(first?.commands[0]?.exit_code, null);
    const size = (await fs.stat(file)).size;
    const result = claudeResult('i1', 'Exit code 3\nboom', { isError: true });
    await fs.appendFile(file, result.slice(0, 40));
    const torn = await reader.read();
    assert.equal(torn?.commands[0]?.exit_code, null, 'a torn line is not read');
    assert.deepEqual(torn?.badLines, [], 'and not reported');
    assert.equal(reader.stats.mode, 'append');
    await fs.appendFile(file, `${result.slice(40)}\n`);
    const done = await reader.read();
    assert.equal(done?.commands[0]?.exit_code, 3);
    assert.ok(reader.stats.bytesRead < size, `read ${reader.stats.bytesRead} bytes, not the whole file`);
    await reader.read();
    assert.equal(reader.stats.mode, 'unchanged');
  });

  it('starts over when the file is replaced, reports bad lines by number, and bounds a multi-MB line', async () => {
    const dir = await makeTempDir('handoff-incr-');
    const file = path.join(dir, 's.jsonl');
    const huge = claudeResult('h1', `Exit code 4\n${'x'.repeat(6 * 1024 * 1024)}`, { isError: true });
    await fs.writeFile(file, [claudeAssistant([bashUse('h1', 'cat big.log')]), '{not json', huge, claudeAssistant([bashUse('h2', 'echo after')]), ''].join('\n'));
    const reader = new SessionReader(file, 'claude-code');
    const f = await reader.read();
    assert.equal(byCommand(f as SessionFacts, 'cat big.log')?.exit_code, 4, 'the outcome of a line too long to hold is read from its edges');
    assert.equal(byCommand(f as SessionFacts, 'echo after')?.exit_code, null);
    assert.deepEqual(f?.badLines, [2]);
    await fs.writeFile(file, `${claudeAssistant([bashUse('z1', 'only this')])}\n`);
    const again = await reader.read();
    assert.equal(reader.stats.restarted, true);
    assert.deepEqual(again?.commands.map((c) => c.command), ['only this']);
  });

  it('reads nothing from a FIFO (it would block), and nothing from a missing file', async () => {
    const dir = await makeTempDir('handoff-incr-');
    const fifo = path.join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    assert.equal(await readSessionFile(fifo, 'claude-code'), null);
    assert.equal(await readSessionFile(path.join(dir, 'gone.jsonl'), 'codex'), null);
  });

  it('keeps memory bounded on many commands: the newest, the failures and the last test run survive compaction', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 1500; i++) {
      lines.push(claudeAssistant([bashUse(`m${i}`, i === 10 ? 'npm test' : `echo ${i}`)]));
      lines.push(claudeResult(`m${i}`, i === 20 ? 'Exit code 1\nearly failure' : 'ok'));
    }
    const f = await factsOf('claude-code', lines);
    assert.equal(f.commandCount, 1500);
    assert.ok(f.commands.length < 400, `kept ${f.commands.length}`);
    assert.ok(f.commands.some((c) => c.command === 'npm test'), 'the last test run is kept');
    assert.ok(f.commands.some((c) => c.command === 'echo 20' && c.exit_code === 1), 'the failure is kept');
    assert.equal(f.commands[f.commands.length - 1]?.command, 'echo 1499');
  });
});
