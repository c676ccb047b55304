import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import type { TranscriptFixture } from './sessionFixture';
import { expectedFor, fixtureText } from './sessionFixture';

interface ExpectedCommand {
  command: string;
  exit_code: number | null;
  timed_out: boolean;
  rejected: boolean;
  tool_use_id?: string;
  call_id?: string;
}

async function derive(name: TranscriptFixture): Promise<{ cwd: string; facts: SessionFacts; expected: Record<string, unknown> }> {
  const cwd = await makeTempDir('handoff-session-');
  const file = path.join(cwd, `${name}.jsonl`);
  await fs.writeFile(file, await fixtureText(name, cwd));
  const facts = await readSessionFile(file, name === 'claude-tools' ? 'claude-code' : 'codex');
  assert.ok(facts, 'the session file is read');
  return { cwd, facts, expected: await expectedFor(name, cwd) };
}

/** The facts in the shape of the `.expected.json` files (the fields they pin). */
function commandsAsExpected(facts: SessionFacts, idKey: 'tool_use_id' | 'call_id'): ExpectedCommand[] {
  const all = [...facts.commands, ...facts.rejected].sort((a, b) => a.ordinal - b.ordinal);
  return all.map((c) => ({ command: c.command, exit_code: c.exit_code, timed_out: c.timed_out, rejected: c.rejected, [idKey]: c.id }));
}

async function nextActionOf(cwd: string, facts: SessionFacts): Promise<{ text: string; sources: Record<string, string>; packet: string }> {
  const snapshot = mergeSession(await loadWorkbench(cwd, { feedbackK: 5, maxCommands: 30 }), facts, { workspaceDir: cwd, feedbackK: 5, maxCommands: 30 });
  const built = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
  assert.ok(built.ok, built.ok ? '' : built.reason);
  return { text: built.packet.next_action, sources: built.packet.sources, packet: JSON.stringify(built.packet) };
}

describe('session readers on the shared transcript fixtures', () => {
  it('Claude Code: commands, edits, task list, requests, session and next action match the expected file', async () => {
    const { cwd, facts, expected } = await derive('claude-tools');
    assert.equal(facts.agent, expected['agent']);
    assert.equal(facts.sessionId, expected['session_id']);
    assert.equal(facts.cwd, expected['cwd']);
    assert.equal(facts.branch, expected['branch']);
    assert.equal(facts.firstUserRequest, expected['first_user_request']);
    assert.deepEqual(facts.userRequests, expected['user_requests']);
    assert.deepEqual(commandsAsExpected(facts, 'tool_use_id'), expected['commands']);
    assert.deepEqual(facts.filesTouched, expected['files_touched']);
    assert.deepEqual(facts.filesTouched.map((f) => path.relative(cwd, f)), expected['files_touched_relative']);
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected['todos']);
    assert.equal(facts.apiErrorLines, expected['api_error_lines']);
    const failing = facts.commands.find((c) => c.exit_code === 1);
    assert.ok(failing?.stdout_tail?.includes(expected['failing_output_excerpt_contains'] as string), failing?.stdout_tail ?? 'no failing command');
    const ignored = expected['ignored'] as { sidechain_commands: string[]; non_request_user_texts: string[] };
    for (const c of ignored.sidechain_commands) assert.ok(!facts.commands.some((x) => x.command === c), `sidechain command ${c} is not the session's`);
    for (const t of ignored.non_request_user_texts) assert.ok(!facts.userRequests.includes(t));
    const next = await nextActionOf(cwd, facts);
    assert.equal(next.text, expected['next_action']);
    assert.equal(next.sources['next_action'], 'task list');
    assert.equal(next.sources['commands'], `claude:${expected['session_id'] as string}`);
  });

  it('Codex: every shell generation, apply_patch, update_plan, the user_message event and the next action match', async () => {
    const { cwd, facts, expected } = await derive('codex-tools');
    assert.equal(facts.agent, expected['agent']);
    assert.equal(facts.sessionId, expected['session_id']);
    assert.equal(facts.cwd, expected['cwd']);
    assert.equal(facts.branch, expected['branch']);
    assert.equal(facts.firstUserRequest, expected['first_user_request']);
    assert.deepEqual(facts.userRequests, expected['user_requests']);
    assert.deepEqual(commandsAsExpected(facts, 'call_id'), expected['commands']);
    assert.deepEqual(facts.filesTouched.map((f) => path.relative(cwd, f)), expected['files_touched']);
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected['todos']);
    const failing = facts.commands.find((c) => c.exit_code === 1);
    assert.ok(failing?.stdout_tail?.includes(expected['failing_output_excerpt_contains'] as string));
    const next = await nextActionOf(cwd, facts);
    assert.equal(next.text, expected['next_action']);
    assert.equal(next.sources['commands'], `codex:${expected['session_id'] as string}`);
  });

  for (const name of ['claude-tools', 'codex-tools'] as const) {
    it(`${name}: the secret in the session appears in no fact and no packet field`, async () => {
      const { cwd, facts, expected } = await derive(name);
      const next = await nextActionOf(cwd, facts);
      const text = JSON.stringify(facts) + next.packet;
      // The secret's command ran and its output was read: removing the redaction would leak it here.
      assert.ok(facts.commands.some((c) => c.stdout_tail?.includes('[REDACTED]')), 'the output holding the key was kept, masked');
      for (const secret of expected['secrets_must_not_appear'] as string[]) {
        assert.ok(!text.includes(secret), `${secret} leaked`);
        assert.ok(!text.includes(secret.slice(0, 20)), `a prefix of ${secret} leaked`);
      }
    });
  }

  it('Claude Code: the agent note is the first sentence after a result, the decline carries the user reply', async () => {
    const { facts } = await derive('claude-tools');
    const failed = facts.commands.find((c) => c.id === 'toolu_01Nt07');
    assert.equal(failed?.agent_note, 'The limiter keys on `req.ip`, so two API keys from the same client share a bucket.');
    const timedOut = facts.commands.find((c) => c.id === 'toolu_01Mg09');
    assert.equal(timedOut?.unfinished, 'timeout');
    assert.match(timedOut?.error ?? '', /timed out after 2m 0\.0s/);
    assert.match(timedOut?.stdout_tail ?? '', /Using environment: development/);
    assert.equal(facts.rejected.length, 1);
    assert.equal(facts.rejected[0]?.user_reply, "Don't drop the DB volumes. Skip the migration for now and just get the tests green.");
    assert.match(facts.lastAssistantMessage ?? '', /^The suite is green \(18\/18\)/);
  });

  it('Codex: a process still running after its polls is unfinished, and the poll is no command of its own', async () => {
    const { facts } = await derive('codex-tools');
    const migrate = facts.commands.find((c) => c.command === 'npm run migrate');
    assert.equal(migrate?.unfinished, 'running');
    assert.equal(migrate?.exit_code, null);
    assert.ok(!facts.commands.some((c) => c.id === 'call_Ws1tD2i3N4p5O6l7L8a9B0c1'));
    assert.equal(facts.commandCount, 6);
    assert.match(facts.lastAssistantMessage ?? '', /^Tests pass \(18\/18\)/);
  });
});
