import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import type { GitInput } from '../../../src/core/packet/build';
import { auditPacket } from '../../../src/core/packet/audit';
import { buildPacket } from '../../../src/core/packet/build';
import type { Packet } from '../../../src/core/packet/schema';
import { mergeSession } from '../../../src/core/session/merge';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import type { TranscriptFixture } from '../session/sessionFixture';
import { expectedFor, fixtureText } from '../session/sessionFixture';
import { bashUse, claudeAssistant, claudeResult, claudeUserText } from '../session/sessionLines';

/**
 * From the session file to the packet: the shared 2026 fixtures read by the real readers, merged and
 * built as `handoff generate` does (git given as plain data: the repository's known files).
 */
async function packetOf(name: TranscriptFixture, knownFiles: string[]): Promise<{ p: Packet; cwd: string; expected: Record<string, unknown> }> {
  const cwd = await makeTempDir('handoff-session-packet-');
  const file = path.join(cwd, `${name}.jsonl`);
  await fs.writeFile(file, await fixtureText(name, cwd));
  const facts = await readSessionFile(file, name.startsWith('claude-') ? 'claude-code' : 'codex');
  assert.ok(facts);
  const opts = { feedbackK: 30, maxCommands: 30 };
  const snapshot = mergeSession(await loadWorkbench(cwd, opts), facts, { workspaceDir: cwd, ...opts });
  const git: GitInput = { repo: cwd, branch: 'main', headCommit: null, changedFiles: [], lastKnownGoodCommit: null, knownFiles };
  const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git, clean: null, allowDirty: false, context: null });
  if (!r.ok) throw new Error(r.reason);
  return { p: r.packet, cwd, expected: await expectedFor(name, cwd) };
}

describe('codex-2026 from the rollout to the packet', () => {
  it('the aborted `npm install moment@3.0.0` may have changed package.json and package-lock.json, which exist', async () => {
    const { p } = await packetOf('codex-2026', ['package.json', 'package-lock.json', 'src/dates/format.ts', 'src/dates/parse.ts', 'yarn.lock']);
    const aborted = p.failed_attempts.find((f) => f.command === 'npm install moment@3.0.0');
    assert.equal(aborted?.uncertain, true);
    assert.deepEqual(aborted?.may_have_changed, ['package.json', 'package-lock.json']);
  });

  it('carries the rolled-back request as a rejected approach with its source line; the rejected-approaches probe passes', async () => {
    const { p, cwd, expected } = await packetOf('codex-2026', []);
    const rolledBack = (expected['rolled_back_requests'] as { text: string; line: number }[])[0]!;
    const rejected = p.decisions.filter((d) => d.status === 'rejected');
    assert.deepEqual(rejected, [{
      text: `the user interrupted and rolled back this request: "${rolledBack.text}"`,
      status: 'rejected',
      source: { file: path.join(cwd, 'codex-2026.jsonl'), line: (expected['rejected_approaches'] as { line: number }[])[0]!.line, what: 'rolled-back request' },
    }]);
    const probe = auditPacket(p).probes.find((x) => x.id === 'rejected-approaches');
    assert.deepEqual([probe?.status, probe?.detail], ['pass', '1 rejected approach']);
  });

  it('names no manifest the repository does not have', async () => {
    const { p } = await packetOf('codex-2026', ['src/dates/format.ts']);
    assert.deepEqual(p.failed_attempts.find((f) => f.command === 'npm install moment@3.0.0')?.may_have_changed, []);
  });
});

describe('a Claude Code session from the transcript to the packet', () => {
  it('an uncertain command may have changed what was edited after it and before the next command, nothing earlier or later', async () => {
    const cwd = await makeTempDir('handoff-session-packet-');
    const edit = (id: string, f: string) => claudeAssistant([{ type: 'tool_use', id, name: 'Edit', input: { file_path: path.join(cwd, f), old_string: 'a', new_string: 'b' } }]);
    const lines = [
      claudeUserText('Apply migration 8'),
      edit('e0', 'early.py'),
      claudeResult('e0', 'The file has been updated successfully.'),
      claudeAssistant([bashUse('b0', 'python scripts/migrate.py --to 8', { timeout: 120000 })]),
      claudeResult('b0', 'Command timed out after 2m 0.0s\napplying 0008', { isError: true }),
      edit('e1', 'db/schema.sql'),
      claudeResult('e1', 'The file has been updated successfully.'),
      claudeAssistant([bashUse('b1', 'git status')]),
      claudeResult('b1', 'On branch main'),
      edit('e2', 'late.py'),
      claudeResult('e2', 'The file has been updated successfully.'),
    ];
    const file = path.join(cwd, 's.jsonl');
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    const facts = await readSessionFile(file, 'claude-code');
    assert.ok(facts);
    const opts = { feedbackK: 30, maxCommands: 30 };
    const snapshot = mergeSession(await loadWorkbench(cwd, opts), facts, { workspaceDir: cwd, ...opts });
    const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
    if (!r.ok) throw new Error(r.reason);
    const f = r.packet.failed_attempts.find((x) => x.uncertain);
    assert.equal(f?.command, 'python scripts/migrate.py --to 8');
    assert.deepEqual(f?.may_have_changed, ['db/schema.sql']);
  });
});

describe('claude-tasks from the transcript to the packet', () => {
  it('the task is stated by the task in progress and the requests, with no task id or goal', async () => {
    const { p } = await packetOf('claude-tasks', []);
    assert.equal(p.topic, 'default');
    assert.equal(p.next_goal, null);
    const probe = auditPacket(p).probes.find((x) => x.id === 'task');
    assert.equal(probe?.status, 'pass');
    assert.equal(probe?.detail, [
      'in progress in the task list: "Run the sync test suite"',
      'the latest request: "keep the max backoff under 30s, the nightly cron window is tight"',
      'the first request: "The nightly invoice sync keeps dying when the payments provider answers 429. Ad…"',
    ].join('; '));
  });

  it('still fails when the packet has no task id, goal, request or task in progress', async () => {
    const { p } = await packetOf('claude-tasks', []);
    const bare = { ...p, human_words: [], summary: 'No active task recorded. 9 commands recorded.', next_action_origin: { kind: 'failure' as const, source: null } };
    const probe = auditPacket(bare).probes.find((x) => x.id === 'task');
    assert.deepEqual([probe?.status, probe?.detail], ['fail', 'no active task id, board feature, goal, session request or task in progress']);
    // The summary of an older packet (no human_words) still names the session's request.
    const older = { ...bare, summary: 'Task from the Claude Code session 7f3e2a91: "Add retry with backoff". No commands recorded.' };
    assert.deepEqual(auditPacket(older).probes.find((x) => x.id === 'task')?.detail, 'the session\'s request: "Add retry with backoff"');
  });
});
