import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { claudeProjectDirName } from '../../../src/core/context/discovery';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import type { Packet } from '../../../src/core/packet/schema';
import { describeSources } from '../../../src/core/packet/sources';
import { renderMarkdown } from '../../../src/core/render/markdown';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { CWD, claudeAssistant, claudeResult, claudeUserText, text } from './sessionLines';

const SESSION = 'sess-claude';

/** Writes the lines where Claude Code keeps the transcript, in a fresh CLAUDE_CONFIG_DIR, and reads it. */
async function read(lines: string[], o: { taskStore?: string[] } = {}): Promise<{ facts: SessionFacts; file: string; config: string }> {
  const config = await makeTempDir('claude-late-');
  const file = path.join(config, 'projects', claudeProjectDirName(CWD), `${SESSION}.jsonl`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  if (o.taskStore) {
    // Claude Code's own task list folder: an emptied one (a finished list is cleared) holds no task file.
    const dir = path.join(config, 'tasks', SESSION);
    await fs.mkdir(dir, { recursive: true });
    for (const n of o.taskStore) await fs.writeFile(path.join(dir, n), n === '.lock' ? '' : '{}');
  }
  const facts = await readSessionFile(file, 'claude-code');
  assert.ok(facts);
  return { facts, file, config };
}

async function packetOf(facts: SessionFacts): Promise<Packet> {
  const dir = await makeTempDir('claude-late-ws-');
  const opts = { feedbackK: 30, maxCommands: 30 };
  const snapshot = mergeSession(await loadWorkbench(dir, opts), facts, { workspaceDir: dir, ...opts });
  const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
  if (!r.ok) throw new Error(r.reason);
  return r.packet;
}

const taskCreate = (id: string, subject: string): string[] => [
  claudeAssistant([{ type: 'tool_use', id: `create-${id}`, name: 'TaskCreate', input: { subject, description: subject } }]),
  claudeResult(`create-${id}`, `Task #${id} created successfully: ${subject}`, { toolUseResult: { task: { id, subject } } }),
];
const taskUpdate = (id: string, from: string, to: string): string[] => [
  claudeAssistant([{ type: 'tool_use', id: `update-${id}-${to}`, name: 'TaskUpdate', input: { taskId: id, status: to } }]),
  claudeResult(`update-${id}-${to}`, `Updated task #${id} status`, { toolUseResult: { success: true, taskId: id, updatedFields: ['status'], statusChange: { from, to } } }),
];
const reminder = (items: { id: string; subject: string; status: string }[]): string =>
  JSON.stringify({ parentUuid: null, isSidechain: false, type: 'attachment', cwd: CWD, sessionId: SESSION, attachment: { type: 'task_reminder', content: items.map((t) => ({ ...t, description: t.subject, blocks: [], blockedBy: [] })), itemCount: items.length } });
const compaction = (): string[] => [
  JSON.stringify({ parentUuid: null, isSidechain: false, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 167012 }, cwd: CWD, sessionId: SESSION }),
  claudeUserText('This session is being continued from a previous conversation that ran out of context. Summary: …', { isCompactSummary: true, isVisibleInTranscriptOnly: true }),
];
const goalLine = (args: string): string => claudeUserText(`<command-name>/goal</command-name>\n<command-message>goal</command-message>\n<command-args>${args}</command-args>`);
const SUBJECTS = ['Write the migration', 'Backfill the column', 'Deploy to staging'];

describe('Claude Code late 2026: the task list across a compaction (FORMATS §1.6, §1.8.4)', () => {
  const before = (): string[] => [claudeUserText('Ship the column migration'), ...SUBJECTS.flatMap((s, i) => taskCreate(String(i + 1), s)), ...taskUpdate('1', 'pending', 'in_progress')];
  const list = (statuses: string[]) => SUBJECTS.map((subject, i) => ({ id: String(i + 1), subject, status: statuses[i] as string }));

  it('tasks created before the compaction and completed after it are one finished list, even once Claude Code empties the list', async () => {
    const { facts } = await read(
      [
        ...before(),
        ...compaction(),
        reminder(list(['in_progress', 'pending', 'pending'])),
        ...taskUpdate('1', 'in_progress', 'completed'),
        ...taskUpdate('2', 'pending', 'completed'),
        ...taskUpdate('3', 'pending', 'completed'),
        claudeAssistant([text('All three tasks are done.')]),
        // Claude Code clears a finished list: the next reminder is empty.
        reminder([]),
      ],
      { taskStore: ['.lock'] },
    );
    assert.deepEqual(facts.todos?.map((t) => [t.id, t.content, t.status]), SUBJECTS.map((s, i) => [String(i + 1), s, 'completed']));
    assert.equal(facts.todosSource?.tool, 'task tools');
    const p = await packetOf(facts);
    assert.match(p.summary, /Task list: 3 of 3 done\./);
  });

  it('an empty reminder after a list with work still open is the list as Claude Code now has it (the later line wins)', async () => {
    const { facts } = await read([...before(), ...compaction(), ...taskUpdate('2', 'pending', 'completed'), reminder([])]);
    assert.deepEqual(facts.todos, []);
  });

  it('a reminder after the compaction that lists the tasks again keeps their ids: later updates apply to them', async () => {
    const { facts } = await read([...before(), ...compaction(), reminder(list(['in_progress', 'pending', 'pending'])), ...taskUpdate('3', 'pending', 'in_progress')]);
    assert.deepEqual(facts.todos?.map((t) => t.status), ['in_progress', 'pending', 'in_progress']);
  });
});

describe('Claude Code late 2026: the goal set with /goal (FORMATS L1.2)', () => {
  const CONDITION = 'all tests in test/billing pass and `npm run lint` is clean';

  it('is carried verbatim as the task: in the summary, first among the human words, and not as a request', async () => {
    const { facts, file } = await read([goalLine(CONDITION), claudeUserText('start with the invoice rounding bug'), claudeAssistant([text('Looking at the rounding now.')])]);
    assert.deepEqual(facts.goal, { text: CONDITION, line: 1 });
    assert.equal(facts.firstRequest?.text, 'start with the invoice rounding bug');
    const p = await packetOf(facts);
    assert.match(p.summary, new RegExp(`^Goal set with /goal in the Claude Code session ${SESSION.slice(0, 8)} on branch feat/x: "${CONDITION.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\. First request: "start with the invoice rounding bug"\\.`));
    assert.deepEqual(p.human_words?.[0], { kind: 'goal', text: CONDITION, source: { file, line: 1, what: '/goal' } });
    assert.equal(p.sources['task'], `claude:${SESSION}`);
    assert.match(renderMarkdown(p), /Goal \(set with \/goal\)/);
  });

  it('a later /goal replaces it; /goal clear (or an alias) and a met goal_status end it; a bare /goal changes nothing', async () => {
    assert.equal((await read([goalLine('first goal'), goalLine('second goal')])).facts.goal?.text, 'second goal');
    assert.equal((await read([goalLine('first goal'), goalLine('Cancel')])).facts.goal, null);
    assert.equal((await read([goalLine('first goal'), goalLine('')])).facts.goal?.text, 'first goal');
    const met = JSON.stringify({ type: 'system', subtype: 'goal_status', met: true, condition: 'first goal', cwd: CWD, sessionId: SESSION });
    assert.equal((await read([goalLine('first goal'), met])).facts.goal, null);
    const notMet = JSON.stringify({ type: 'system', subtype: 'goal_status', met: false, condition: 'first goal', cwd: CWD, sessionId: SESSION });
    assert.equal((await read([goalLine('first goal'), notMet])).facts.goal?.text, 'first goal');
  });

  it('survives a compaction: the goal line before the boundary is still the goal', async () => {
    const { facts } = await read([goalLine(CONDITION), ...compaction(), claudeAssistant([text('Continuing.')])]);
    assert.equal(facts.goal?.text, CONDITION);
  });
});

describe('Claude Code late 2026: line types the reader does not know', () => {
  const line = (o: Record<string, unknown>): string => JSON.stringify({ sessionId: SESSION, ...o });

  it('are skipped without an error and counted in the packet\'s sources; the known bookkeeping types are not counted', async () => {
    const { facts } = await read([
      claudeUserText('fix the flaky test'),
      line({ type: 'pr-link', url: 'https://example.test/pr/1' }),
      line({ type: 'agent-name', agentName: 'reviewer' }),
      line({ type: 'custom-title', customTitle: 'Flaky test' }),
      line({ type: 'bridge-session', id: 'b' }),
      line({ type: 'worktree-state', path: '/tmp/w' }),
      line({ type: 'pr-link', url: 'https://example.test/pr/2' }),
      claudeAssistant([text('Fixed the flaky test.')]),
    ]);
    assert.deepEqual(facts.unknownLines, { count: 3, types: ['pr-link', 'worktree-state'] });
    assert.deepEqual(facts.badLines, []);
    assert.equal(facts.closing?.text, 'Fixed the flaky test.');
    const p = await packetOf(facts);
    assert.equal(p.sources['skipped_lines'], '3 lines of unknown types skipped (pr-link, worktree-state)');
    assert.match(describeSources(p.sources), /\. 3 lines of unknown types skipped \(pr-link, worktree-state\)\.$/);
    assert.ok(!p.open_risks.some((r) => /unknown type/.test(r.detail)), 'no risk: a skipped line is not an error');
  });

  it('a session with only known types says nothing about skipped lines', async () => {
    const { facts } = await read([claudeUserText('hi'), line({ type: 'ai-title', aiTitle: 'Hi' }), line({ type: 'permission-mode', permissionMode: 'manual' }), claudeAssistant([text('Hello.')])]);
    assert.equal(facts.unknownLines, undefined);
    assert.equal((await packetOf(facts)).sources['skipped_lines'], undefined);
  });

  it('Claude Code 2.1.328\'s request records are known bookkeeping: the request as sent is not the human\'s words', async () => {
    const { facts } = await read([
      claudeUserText('write notes.txt'),
      line({ type: 'atis-latch', atis: '' }),
      line({ type: 'api-request-shape', shapeHash: 'h', shape: { system: [{ type: 'text', text: 'You are a Claude agent.' }] } }),
      line({ type: 'api-request-blob', hash: 'b', message: { role: 'user', content: [{ type: 'text', text: 'delete the database now' }] } }),
      line({ type: 'api-request', id: 'r', params: { model: 'claude-opus-5-5' } }),
      line({ type: 'tools-used', tools: ['Bash'] }),
      line({ type: 'cost-state', totalCostUSD: 1.5, modelUsage: {} }),
      line({ type: 'mode', mode: 'normal' }),
      line({ type: 'file-history-delta', files: [] }),
      claudeAssistant([text('All done: wrote notes.txt.')]),
    ]);
    assert.equal(facts.unknownLines, undefined);
    assert.ok(!JSON.stringify(facts).includes('delete the database'), 'a request blob was read as the human\'s words');
    assert.equal(facts.closing?.text, 'All done: wrote notes.txt.');
  });
});
