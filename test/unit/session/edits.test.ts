import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SessionAgent, SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { bashUse, claudeAssistant, claudeResult, codexCall, codexEvent, codexItem, codexMeta, codexOutput, CWD } from './sessionLines';

/** The edits a session made, in order, with the command each came before (SessionFacts.edits). */

async function factsOf(agent: SessionAgent, lines: string[]): Promise<SessionFacts> {
  const dir = await makeTempDir('handoff-edits-');
  const file = path.join(dir, 'log.jsonl');
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  const facts = await readSessionFile(file, agent);
  assert.ok(facts);
  return facts;
}

const tool = (id: string, name: string, input: Record<string, unknown>): Record<string, unknown> => ({ type: 'tool_use', id, name, input });
/** The 1-based line of the entry of `lines` that contains `needle`. */
const lineOf = (lines: string[], needle: string): number => lines.findIndex((l) => l.includes(needle)) + 1;

describe('session edits in order, with the command each came before', () => {
  it('Claude Code: Edit, MultiEdit, Write and NotebookEdit that succeeded; a failed or declined edit is none', async () => {
    const lines = [
      claudeAssistant([tool('e0', 'Write', { file_path: `${CWD}/early.py`, content: 'x' })]),
      claudeResult('e0', `File created successfully at: ${CWD}/early.py`),
      claudeAssistant([bashUse('b0', 'python migrate.py', { timeout: 120000 })]),
      claudeResult('b0', 'Command timed out after 2m 0.0s\napplying 0008', { isError: true }),
      claudeAssistant([tool('e1', 'Edit', { file_path: `${CWD}/db/schema.sql`, old_string: 'a', new_string: 'b' })]),
      claudeResult('e1', `The file ${CWD}/db/schema.sql has been updated successfully.`),
      claudeAssistant([tool('e2', 'MultiEdit', { file_path: 'src/rel.py', edits: [] })]),
      claudeResult('e2', 'The file has been updated successfully.'),
      claudeAssistant([tool('e3', 'NotebookEdit', { notebook_path: `${CWD}/nb.ipynb`, new_source: 'x' })]),
      claudeResult('e3', 'Updated cell'),
      claudeAssistant([tool('e4', 'Edit', { file_path: `${CWD}/failed.py`, old_string: 'a', new_string: 'b' })]),
      claudeResult('e4', '<tool_use_error>File has not been read yet.</tool_use_error>', { isError: true }),
      claudeAssistant([tool('e5', 'Write', { file_path: `${CWD}/declined.py`, content: 'x' })]),
      claudeResult('e5', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", { isError: true }),
      claudeAssistant([bashUse('b1', 'git status')]),
      claudeResult('b1', 'clean'),
      claudeAssistant([tool('e6', 'Edit', { file_path: `${CWD}/late.py`, old_string: 'a', new_string: 'b' })]),
      claudeResult('e6', 'The file has been updated successfully.'),
    ];
    const f = await factsOf('claude-code', lines);
    assert.deepEqual(f.edits, [
      { file: `${CWD}/early.py`, line: 1, beforeCommand: 0 },
      { file: `${CWD}/db/schema.sql`, line: lineOf(lines, '"e1","name"'), beforeCommand: 1 },
      { file: `${CWD}/src/rel.py`, line: lineOf(lines, '"e2","name"'), beforeCommand: 1 },
      { file: `${CWD}/nb.ipynb`, line: lineOf(lines, '"e3","name"'), beforeCommand: 1 },
      { file: `${CWD}/late.py`, line: lineOf(lines, '"e6","name"'), beforeCommand: 2 },
    ]);
    assert.ok(!f.filesTouched.some((p) => /failed|declined/.test(p)));
  });

  it('Codex: apply_patch that applied (custom tool, function call, through the shell), once each; a patch that failed is none', async () => {
    const patch = (file: string): string => `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n`;
    const lines = [
      codexMeta(),
      codexCall('exec_command', { cmd: 'npm install left-pad' }, 'c0'),
      codexOutput('c0', 'aborted by user after 3.0s'),
      codexItem({ type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: patch('src/a.ts') }),
      codexEvent({ type: 'patch_apply_end', call_id: 'p1', success: true, stdout: 'Success.' }),
      codexItem({ type: 'custom_tool_call_output', call_id: 'p1', output: 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess.' }),
      codexCall('apply_patch', { input: patch('src/b.ts') }, 'p2'),
      codexOutput('p2', 'apply_patch verification failed: Failed to find expected lines in src/b.ts'),
      codexCall('shell', { command: ['apply_patch', patch('src/c.ts')] }, 'p3'),
      codexOutput('p3', JSON.stringify({ output: 'Success. Updated the following files:\nM src/c.ts\n', metadata: { exit_code: 0 } })),
      codexCall('exec_command', { cmd: 'npm test' }, 'c1'),
      codexOutput('c1', 'Process exited with code 0\nOutput:\nok'),
    ];
    const f = await factsOf('codex', lines);
    assert.deepEqual(f.edits, [
      { file: `${CWD}/src/a.ts`, line: 4, beforeCommand: 1 },
      { file: `${CWD}/src/c.ts`, line: 9, beforeCommand: 1 },
    ]);
  });

  it('is bounded: the newest 500 edits are kept', async () => {
    const lines = [codexMeta()];
    for (let i = 0; i < 520; i++) {
      lines.push(codexItem({ type: 'custom_tool_call', status: 'completed', call_id: `p${i}`, name: 'apply_patch', input: `*** Begin Patch\n*** Update File: f${i}.ts\n@@\n-a\n+b\n*** End Patch\n` }));
      lines.push(codexItem({ type: 'custom_tool_call_output', call_id: `p${i}`, output: 'Exit code: 0\nOutput:\nSuccess.' }));
    }
    const f = await factsOf('codex', lines);
    assert.equal(f.edits?.length, 500);
    assert.deepEqual([f.edits?.[0]?.file, f.edits?.[499]?.file], [`${CWD}/f20.ts`, `${CWD}/f519.ts`]);
  });
});
