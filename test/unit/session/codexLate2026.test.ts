import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SessionFacts } from '../../../src/core/session/model';
import { readSessionFile, SessionReader } from '../../../src/core/session/reader';
import { fixturePath, makeTempDir } from '../helpers/fixtures';
import type { PaginatedExpected } from '../helpers/codexPaginated';
import { writePaginated } from '../helpers/codexPaginated';
import { storedZstd } from '../helpers/zstdFrame';
import { assertMatchesExpected } from './expectedFacts';
import { fixtureText } from './sessionFixture';

const ZST_DIR = fixturePath('transcripts', 'codex-zst', 'sessions', '2026', '11', '20');
const ZST_NAME = 'rollout-2026-11-20T16-00-00-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68.jsonl.zst';

/** Facts without the file they came from, to compare two readings of the same session. */
function withoutFile(f: SessionFacts): Omit<SessionFacts, 'file'> {
  const { file: _file, ...rest } = f;
  return rest;
}

describe('Codex compressed rollouts (.jsonl.zst)', () => {
  it('the codex-zst fixture (compressed by the zstd CLI) gives exactly the codex-2026 reading', async () => {
    const dir = await makeTempDir('handoff-zst-');
    // The committed files keep the __CWD__ placeholder: both readings are of the same bytes.
    const plain = path.join(dir, ZST_NAME.replace(/\.zst$/, ''));
    await fs.writeFile(plain, await fs.readFile(fixturePath('transcripts', 'codex-2026.jsonl')));
    const zst = path.join(ZST_DIR, ZST_NAME);
    const [a, b] = await Promise.all([readSessionFile(plain, 'codex'), readSessionFile(zst, 'codex')]);
    assert.ok(a && b);
    assert.deepEqual(withoutFile(b), withoutFile(a));
    assert.equal(b.file, zst);
    assert.ok(b.credentials?.length, 'the npm token of the rollout is seen in the compressed file too');
  });

  it('a rollout with a real path, compressed, yields its .expected.json; a torn frame keeps what was decoded and says where', async () => {
    const cwd = await makeTempDir('handoff-zst-cwd-');
    const text = Buffer.from(await fixtureText('codex-2026', cwd));
    const file = path.join(cwd, ZST_NAME);
    await fs.writeFile(file, storedZstd(text, 3));
    const facts = await readSessionFile(file, 'codex');
    assert.ok(facts);
    const raw = await fs.readFile(fixturePath('transcripts', 'codex-zst', 'codex-zst.expected.json'), 'utf8');
    assertMatchesExpected(facts, JSON.parse(raw.split('__CWD__').join(cwd)) as Record<string, unknown>);

    const torn = path.join(cwd, `torn-${ZST_NAME}`);
    // Three frames; the file ends inside the third.
    const whole = storedZstd(text, 3);
    await fs.writeFile(torn, whole.subarray(0, Math.floor((whole.length * 5) / 6)));
    const part = await readSessionFile(torn, 'codex');
    assert.ok(part);
    assert.equal(part.sessionId, facts.sessionId);
    assert.ok(part.commandCount < facts.commandCount);
    assert.equal(part.badLines.length, 1, 'where decoding stopped is one bad line');
  });

  it('a reader follows a rollout that Codex compresses and makes plain again: the same session, no error', async () => {
    const cwd = await makeTempDir('handoff-zst-flip-');
    const text = Buffer.from(await fixtureText('codex-2026', cwd));
    const zst = path.join(cwd, ZST_NAME);
    await fs.writeFile(zst, storedZstd(text));
    const reader = new SessionReader(zst, 'codex');
    const first = await reader.read();
    assert.equal(reader.stats.mode, 'initial');
    assert.equal((await reader.read())?.revision, first?.revision);
    assert.equal(reader.stats.mode, 'unchanged');
    // Resumed: Codex writes the plain file, deletes the compressed one, and appends.
    const plain = zst.replace(/\.zst$/, '');
    await fs.writeFile(plain, text);
    await fs.rm(zst);
    assert.equal(await reader.read(), null);
    const resumed = await readSessionFile(plain, 'codex');
    assert.equal(resumed?.sessionId, first?.sessionId);
    assert.equal(resumed?.commandCount, first?.commandCount);
  });
});

/** The codex-paginated fixture written by its script for a real folder. */
async function paginated(): Promise<{ page1: string; page2: string; expected: PaginatedExpected }> {
  const cwd = await makeTempDir('handoff-paginated-');
  return writePaginated(cwd, path.join(cwd, '.codex-home'));
}

describe('Codex paginated history (item_completed, pages joined by history_base)', () => {
  it('the newest page reads as the whole thread: turns 1 and 3, not the reverted turn 2', async () => {
    const { page2, expected } = await paginated();
    const facts = await readSessionFile(page2, 'codex');
    assert.ok(facts);
    assert.equal(facts.sessionId, expected.thread_id);
    assert.equal(facts.branch, expected.branch);
    assert.deepEqual(facts.userRequests, expected.requests.map((r) => r.text));
    assert.equal(facts.firstRequest?.text, expected.requests[0]!.text);
    assert.deepEqual(facts.latestRequest, { text: expected.requests[1]!.text, line: expected.requests[1]!.line });
    for (const r of expected.reverted_requests) assert.ok(!facts.userRequests.includes(r.text));

    // Each command once (response item and TurnItem share the id), with the item's exit code and duration.
    const all = [...facts.commands, ...facts.rejected].sort((a, b) => a.ordinal - b.ordinal);
    assert.equal(facts.commandCount, expected.commands.length);
    assert.deepEqual(
      all.map((c) => [c.id, c.command, c.exit_code, c.duration_ms]),
      expected.commands.map((c) => [c.call_id, c.command, c.exit_code, c.duration_ms]),
    );
    const failing = all.find((c) => c.exit_code === 1);
    assert.ok(failing?.stdout_tail?.includes('keeps newlines inside quoted fields'), failing?.stdout_tail ?? '');
    for (const c of expected.commands_in_reverted_turn) assert.ok(!all.some((x) => x.id === c.call_id));
    // The last command's result is page 2's own line.
    assert.equal(all[all.length - 1]?.result_line, expected.commands[2]!.line);

    assert.deepEqual(facts.filesTouched, expected.edits.flatMap((e) => e.files_absolute).sort());
    for (const e of expected.edits_in_reverted_turn) assert.ok(!facts.filesTouched.some((f) => f.endsWith(e.files[0]!)));
    assert.deepEqual(facts.closing, { text: expected.closing_message.text, line: expected.closing_message.line });
    assert.notEqual(facts.lastAssistantMessage, expected.must_not_be_closing_message);
  });

  it('the first page alone is read whole (nothing points back from it)', async () => {
    const { page1, expected } = await paginated();
    const facts = await readSessionFile(page1, 'codex');
    assert.ok(facts);
    assert.deepEqual(facts.userRequests, [expected.requests[0]!.text, expected.reverted_requests[0]!.text]);
    assert.equal(facts.commandCount, 3);
    assert.equal(facts.closing?.text, expected.must_not_be_closing_message);
  });

  it('a compressed first page is joined the same way', async () => {
    const { page1, page2, expected } = await paginated();
    await fs.writeFile(`${page1}.zst`, storedZstd(await fs.readFile(page1)));
    await fs.rm(page1);
    const facts = await readSessionFile(page2, 'codex');
    assert.deepEqual(facts?.userRequests, expected.requests.map((r) => r.text));
    assert.equal(facts?.commandCount, expected.commands.length);
  });

  it('a command of code mode (an exec-… id with no call) counts; a poll of a running command and a declined one are told apart', async () => {
    const cwd = await makeTempDir('handoff-codemode-');
    const item = (i: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-21T09:00:02.000Z', ordinal: 2, type: 'event_msg', payload: { type: 'item_completed', thread_id: 't', turn_id: 'u', item: i } });
    const lines = [
      JSON.stringify({ timestamp: '2026-11-21T09:00:00.000Z', ordinal: 0, type: 'session_meta', payload: { id: '019fa1c0-2a4e-7c31-9d5b-6e8f1a2b3c4d', cwd, history_mode: 'paginated' } }),
      item({ type: 'UserMessage', id: 'u1', content: [{ type: 'text', text: 'run the tests', text_elements: [] }, { type: 'local_image', path: '/tmp/x.png' }] }),
      item({ type: 'CommandExecution', id: 'exec-7a1c', command: ['/bin/bash', '-lc', 'npm test'], cwd: `file://${cwd}/pkg`, source: 'agent', status: 'failed', aggregated_output: 'FAIL src/a.test.ts', exit_code: 1, duration: { secs: 1, nanos: 500_000_000 } }),
      item({ type: 'CommandExecution', id: 'call_poll', command: ['/bin/bash', '-lc', 'npm test'], source: 'unified_exec_interaction', interaction_input: '', status: 'completed', exit_code: 0 }),
      item({ type: 'CommandExecution', id: 'call_rm', command: ['/bin/bash', '-lc', 'rm -rf dist'], source: 'agent', status: 'declined', stderr: 'rejected by user', exit_code: -1 }),
      item({ type: 'FileChange', id: 'exec-9b2d', changes: { [`${cwd}/a.ts`]: { type: 'update', unified_diff: '', move_path: `${cwd}/b.ts` } }, status: 'completed' }),
      item({ type: 'FileChange', id: 'exec-9b2e', changes: { [`${cwd}/c.ts`]: { type: 'add', content: '' } }, status: 'failed' }),
      item({ type: 'AgentMessage', id: 'm1', content: [{ type: 'Text', text: 'The test still fails.' }], phase: 'final_answer' }),
    ];
    const file = path.join(cwd, 'rollout-2026-11-21T09-00-00-019fa1c0-2a4e-7c31-9d5b-6e8f1a2b3c4d.jsonl');
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    const facts = await readSessionFile(file, 'codex');
    assert.ok(facts);
    assert.deepEqual(facts.userRequests, ['run the tests']);
    assert.deepEqual(facts.commands.map((c) => [c.id, c.command, c.exit_code, c.duration_ms, c.cwd]), [['exec-7a1c', 'npm test', 1, 1500, path.join(cwd, 'pkg')]]);
    assert.deepEqual(facts.rejected.map((c) => c.command), ['rm -rf dist']);
    assert.equal(facts.commandCount, 2);
    assert.deepEqual(facts.filesTouched, [path.join(cwd, 'a.ts'), path.join(cwd, 'b.ts')]);
    assert.equal(facts.lastAssistantMessage, 'The test still fails.');
  });
});
