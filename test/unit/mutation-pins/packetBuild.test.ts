import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { ReviewReportSchema } from '../../../src/core/artifacts/schemas';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { createHash } from 'node:crypto';
import { buildPacket, deriveSessionId, goalOf, MAX_GOAL_CHARS, safeSegment, serializePacket } from '../../../src/core/packet/build';
import type { GitInput, PacketInput } from '../../../src/core/packet/build';
import type { Packet } from '../../../src/core/packet/schema';
import { packetContentHash, writePacket } from '../../../src/core/packet/write';
import { makeTempDir } from '../helpers/fixtures';
import { buildTestPacket } from '../helpers/packetBuilder';
import { emptySnapshot, snapshotWith } from '../helpers/workbenchSnapshot';

const git = (over: Partial<GitInput> = {}): GitInput => ({
  repo: 'refund-service', branch: 'feat', headCommit: 'c'.repeat(40), headTime: '2026-03-01T10:00:00+01:00', changedFiles: [{ path: 'src/a.ts', kind: 'modified' }], lastKnownGoodCommit: 'b'.repeat(40), ...over,
});
function build(snapshot: WorkbenchSnapshot, over: Partial<PacketInput> = {}): Packet {
  const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p-1', git: null, clean: null, allowDirty: false, context: null, ...over });
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.packet;
}
const base = (agentState: Record<string, unknown> = {}, extra: Parameters<typeof snapshotWith>[0] = {}) =>
  snapshotWith({ agentState: { next_action: 'Fix the refund rounding', ...agentState }, ...extra });

describe('building a packet: where each field comes from', () => {
  it('the session id: the one given, else the agent\'s, else the reading\'s, else a hash of the inputs', () => {
    const s = { ...base({ session_id: ' agent-s ' }), sources: [{ file: 'a', sha256: '1' }] };
    assert.equal(deriveSessionId({ snapshot: s, sessionId: ' given ', context: null }), 'given');
    assert.equal(deriveSessionId({ snapshot: s, sessionId: '  ', context: null }), 'agent-s');
    const noAgent = { ...emptySnapshot(), sources: [{ file: 'a', sha256: '1' }] };
    assert.equal(deriveSessionId({ snapshot: noAgent, context: { known: false, sessionId: ' ctx ', reason: 'r' } }), 'ctx');
    const hashed = deriveSessionId({ snapshot: noAgent, context: null });
    assert.match(hashed, /^session-[0-9a-f]{12}$/);
    assert.equal(deriveSessionId({ snapshot: { ...noAgent }, context: null }), hashed);
    assert.notEqual(deriveSessionId({ snapshot: { ...noAgent, sources: [{ file: 'a', sha256: '2' }] }, context: null }), hashed);
  });

  it('folder names keep to one safe segment of at most 100 characters', () => {
    assert.equal(safeSegment('../../etc/passwd'), '__.._etc_passwd');
    assert.equal(safeSegment('sess 1:2'), 'sess_1_2');
    assert.equal(safeSegment('.hidden'), '_hidden');
    assert.equal(safeSegment('a.b-c_d'), 'a.b-c_d');
    assert.equal(safeSegment(''), 'session');
    assert.equal(safeSegment('x'.repeat(150)).length, 100);
    assert.equal(safeSegment('a / b'), 'a_b');
  });

  it('generated_at: the newest command start, else the HEAD commit time, else the epoch', () => {
    const fb = [{ command: 'a', exit_code: 0, started_at: '2026-02-01T00:00:00Z' }, { command: 'b', exit_code: 0, started_at: '2026-02-03T00:00:00Z' }, { command: 'c', exit_code: 0, started_at: '2026-02-02T00:00:00Z' }];
    assert.equal(build(base({}, { feedback: fb }), { git: git() }).generated_at, '2026-02-03T00:00:00.000Z');
    assert.equal(build(base({}, { feedback: [{ command: 'a', exit_code: 0, started_at: 'soon' }] }), { git: git() }).generated_at, '2026-03-01T09:00:00.000Z');
    assert.equal(build(base(), { git: git({ headTime: 'not a time' }) }).generated_at, '1970-01-01T00:00:00.000Z');
    assert.equal(build(base()).generated_at, '1970-01-01T00:00:00.000Z');
  });

  it('with git: repo, branch, head, changed files and last known good commit from git', () => {
    const p = build(base({ branch: 'agent-branch', last_known_good_commit: 'a'.repeat(40) }), { git: git() });
    assert.deepEqual([p.repo, p.branch, p.head_commit, p.last_known_good_commit], ['refund-service', 'feat', 'c'.repeat(40), 'b'.repeat(40)]);
    assert.deepEqual(p.changed_files, [{ path: 'src/a.ts', kind: 'modified' }]);
    assert.ok(!p.summary.includes('Last known good commit unknown'));
  });

  it('without git: the agent\'s branch, last known good commit and touched files, once each', () => {
    const p = build(base({ branch: 'agent-branch', last_known_good_commit: 'a'.repeat(40), touched_files: ['x.ts', 'y.ts', 'x.ts'] }));
    assert.deepEqual([p.repo, p.branch, p.head_commit, p.last_known_good_commit], [null, 'agent-branch', null, 'a'.repeat(40)]);
    assert.deepEqual(p.changed_files, [{ path: 'x.ts', kind: 'touched' }, { path: 'y.ts', kind: 'touched' }]);
    const bare = build(base());
    assert.deepEqual([bare.branch, bare.last_known_good_commit, bare.changed_files], [null, null, []]);
  });

  it('says why the last known good commit is unknown, when git says', () => {
    const p = build(base({ summary: 'Own summary.' }), { git: git({ lastKnownGoodCommit: null, lkgUnknownReason: 'no green test run recorded' }) });
    assert.equal(p.summary, 'Own summary. Last known good commit unknown: no green test run recorded.');
    assert.equal(build(base({ summary: 'Own summary.' }), { git: git({ lastKnownGoodCommit: null }) }).summary, 'Own summary.');
  });

  it('the topic: the active task, else the board\'s active feature, else "default"', () => {
    assert.equal(build(base({ active_task_id: ' T-1 ' })).topic, 'T-1');
    assert.equal(build(base({ active_task_id: '  ' }, { featureList: { active: ' F-2 ', features: [] } })).topic, 'F-2');
    assert.equal(build(base()).topic, 'default');
  });

  it('points at the verdicts, copies the clean state, sorts the inputs and counts omitted commands', () => {
    const s = { ...base({}, { verification: { passed: false, task_id: 'T-1' } }), sources: [{ file: 'z.json', sha256: 'z' }, { file: 'a.json', sha256: 'a' }] };
    s.review = { ...ReviewReportSchema.parse({ total: 8, verdict: 'pass' }), file: 'review_report.json' };
    s.feedback = { kept: [], total: 12, omitted: 7, lastTestRun: null, lastRunOf: {} };
    const findings = [{ check: 'branch' as const, kind: 'detached-head' as const, detail: 'd', fix: 'f' }];
    const p = build(s, { clean: { clean: false, findings }, context: { known: false, reason: 'no session' } });
    assert.deepEqual(p.verdict_pointer, {
      verification: { file: 'verification_report.json', passed: false, task_id: 'T-1' },
      review: { file: 'review_report.json', verdict: 'pass', total: 8, task_id: null },
    });
    assert.deepEqual(p.clean_state, { clean: false, findings: [{ check: 'branch', detail: 'd', fix: 'f' }] });
    assert.deepEqual(p.inputs, [{ file: 'a.json', sha256: 'a' }, { file: 'z.json', sha256: 'z' }]);
    assert.equal(p.commands_omitted, 7);
    assert.deepEqual(p.context, { known: false, reason: 'no session' });
    const none = build(base());
    assert.deepEqual([none.verdict_pointer, none.clean_state, none.context, none.commands_omitted], [{ verification: null, review: null }, null, null, 0]);
    assert.deepEqual([none.status, none.superseded_by, none.packet_id, none.next_action], ['active', null, 'p-1', 'Fix the refund rounding']);
  });

  it('keeps a known reading without where it was read from', () => {
    const p = build(base(), { context: { known: true, source: 'claude', sessionId: 's', usedTokens: 10, windowTokens: 100, percent: 10, compactAtPercent: 83.5, at: 't', file: '/home/x.jsonl', model: 'm' } });
    assert.deepEqual(p.context, { known: true, source: 'claude', sessionId: 's', model: 'm', usedTokens: 10, windowTokens: 100, percent: 10, compactAtPercent: 83.5, at: 't' });
    const noModel = build(base(), { context: { known: true, source: 'codex', sessionId: 's', usedTokens: 10, windowTokens: 100, percent: 10, compactAtPercent: 90, at: 't' } });
    assert.ok(noModel.context && !('model' in noModel.context));
  });

  it('the next goal: one line with its whitespace collapsed, cut with an ellipsis past the limit, null when blank', () => {
    assert.equal(goalOf('  Ship the\n\n refund   fix  '), 'Ship the refund fix');
    for (const blank of [null, undefined, '', ' \n\t ']) assert.equal(goalOf(blank), null, String(blank));
    const full = 'g'.repeat(MAX_GOAL_CHARS);
    assert.equal(goalOf(full), full);
    assert.equal(goalOf(`${full}h`), `${'g'.repeat(MAX_GOAL_CHARS - 1)}…`);
    assert.equal(build(base(), { nextGoal: ' Ship\nit ' }).next_goal, 'Ship it');
    assert.equal(build(base(), { nextGoal: '  ' }).next_goal, null);
  });

  it('sources: what the artifacts said, where the next action came from, and git for the changed files', () => {
    const s = { ...base(), origins: { summary: 'agent_state.json' } };
    assert.deepEqual(build(s).sources, { summary: 'agent_state.json', next_action: 'agent_state.json' });
    assert.deepEqual(build(s, { git: git() }).sources, { summary: 'agent_state.json', next_action: 'agent_state.json', changed_files: 'git' });
    const touched = { ...base(), origins: { changed_files: 'agent_state.json' } };
    assert.deepEqual(build(touched, { git: git() }).sources, { changed_files: 'git + agent_state.json', next_action: 'agent_state.json' });
    assert.deepEqual(build(touched).sources, { changed_files: 'agent_state.json', next_action: 'agent_state.json' });
  });

  it('changed file paths are one line without control characters, renames keep where they came from', () => {
    const renamed = git({ changedFiles: [{ path: 'src/ne\u001bw.ts', kind: 'renamed', from: 'src/o\nld.ts' }, { path: 'src/b.ts', kind: 'modified' }] });
    assert.deepEqual(build(base(), { git: renamed }).changed_files, [{ path: 'src/new.ts', kind: 'renamed', from: 'src/old.ts' }, { path: 'src/b.ts', kind: 'modified' }]);
    const p = build(base({ touched_files: ['x\u0007.ts', '', '\u001b', 'x.ts', 'y\n.ts'] }));
    assert.deepEqual(p.changed_files, [{ path: 'x.ts', kind: 'touched' }, { path: 'y.ts', kind: 'touched' }]);
  });

  it('without agent state or git, no changed files', () => {
    const s = snapshotWith({ feedback: [{ command: 'npm test', exit_code: 1, stdout_tail: '1 failed' }] });
    assert.deepEqual(build(s).changed_files, []);
  });

  it('refuses, with the reason, when there is no next action', () => {
    const r = buildPacket({ snapshot: emptySnapshot(), options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.reason.length > 0);
  });
});

describe('writing a packet', () => {
  it('writes both files, then says unchanged for the same bytes and rewrites only what changed', async () => {
    const out = await makeTempDir('write-pins-');
    const p = buildTestPacket({ packet_id: 'w1' });
    const first = await writePacket(out, p);
    assert.deepEqual(first, { kind: 'written', packetDir: path.join(out, 'w1') });
    assert.equal(await fs.readFile(path.join(out, 'w1', 'handoff.json'), 'utf8'), serializePacket(p));
    assert.deepEqual(await writePacket(out, p), { kind: 'unchanged', packetDir: path.join(out, 'w1') });
    await fs.writeFile(path.join(out, 'w1', 'handoff.md'), 'edited');
    assert.equal((await writePacket(out, p)).kind, 'written');
    assert.notEqual(await fs.readFile(path.join(out, 'w1', 'handoff.md'), 'utf8'), 'edited');
    await fs.writeFile(path.join(out, 'w1', 'handoff.json'), '{}');
    assert.equal((await writePacket(out, p)).kind, 'written');
    assert.equal(await fs.readFile(path.join(out, 'w1', 'handoff.json'), 'utf8'), serializePacket(p));
  });

  it('with keepOther: writes into a new folder, but leaves a folder holding another packet alone', async () => {
    const out = await makeTempDir('write-pins-');
    const p = buildTestPacket({ packet_id: 'k1' });
    assert.deepEqual(await writePacket(out, p, { keepOther: true }), { kind: 'written', packetDir: path.join(out, 'k1') });
    assert.deepEqual(await writePacket(out, p, { keepOther: true }), { kind: 'unchanged', packetDir: path.join(out, 'k1') });
    const other = buildTestPacket({ packet_id: 'k1', summary: 'another session' });
    assert.deepEqual(await writePacket(out, other, { keepOther: true }), { kind: 'taken', packetDir: path.join(out, 'k1') });
    assert.equal(await fs.readFile(path.join(out, 'k1', 'handoff.json'), 'utf8'), serializePacket(p));
    assert.equal((await writePacket(out, other)).kind, 'written');
    assert.equal(await fs.readFile(path.join(out, 'k1', 'handoff.json'), 'utf8'), serializePacket(other));
  });

  it('leaves the file that already holds its bytes in place (a watcher on it sees no change)', async () => {
    const out = await makeTempDir('write-pins-');
    const p = buildTestPacket({ packet_id: 'i1' });
    await writePacket(out, p);
    const inode = async (name: string): Promise<number> => (await fs.stat(path.join(out, 'i1', name))).ino;
    const md = await inode('handoff.md');
    await fs.writeFile(path.join(out, 'i1', 'handoff.json'), '{}');
    const jsonEdited = await inode('handoff.json');
    await writePacket(out, p);
    assert.equal(await inode('handoff.md'), md);
    assert.notEqual(await inode('handoff.json'), jsonEdited);
    await fs.writeFile(path.join(out, 'i1', 'handoff.md'), 'edited');
    const mdEdited = await inode('handoff.md');
    const jsonNow = await inode('handoff.json');
    await writePacket(out, p);
    assert.equal(await inode('handoff.json'), jsonNow);
    assert.notEqual(await inode('handoff.md'), mdEdited);
  });

  it('the content hash is the start of the SHA-256 of handoff.json with an empty id, so names stay stable', () => {
    const p = buildTestPacket({ packet_id: 'named' });
    const expected = createHash('sha256').update(serializePacket({ ...p, packet_id: '' })).digest('hex').slice(0, 8);
    assert.equal(packetContentHash(p), expected);
  });

  it('the content hash ignores the packet id and changes with the content', () => {
    const a = packetContentHash(buildTestPacket({ packet_id: 'a' }));
    assert.match(a, /^[0-9a-f]{8}$/);
    assert.equal(packetContentHash(buildTestPacket({ packet_id: 'b' })), a);
    assert.notEqual(packetContentHash(buildTestPacket({ packet_id: 'a', summary: 'other' })), a);
  });

  it('serializes with two-space indent and a trailing newline', () => {
    const text = serializePacket(buildTestPacket());
    assert.ok(text.startsWith('{\n  "schema_version": 1,\n') && text.endsWith('}\n'));
  });
});
