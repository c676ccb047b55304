import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import type { Packet } from '../../../src/core/packet/schema';
import { PacketSchema } from '../../../src/core/packet/schema';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { copyFixture } from '../helpers/fixtures';

/** Generates on a fresh copy of the refund fixture and returns the packet and the written files. */
async function generateRefund(): Promise<{ dir: string; packet: Packet; json: string; md: string }> {
  const dir = await copyFixture('workbench-refund');
  const outcome = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
  if (outcome.kind === 'refused') throw new Error(outcome.reason);
  assert.equal(outcome.kind, 'written');
  assert.deepEqual(outcome.diagnostics, []);
  const json = await fs.readFile(path.join(outcome.packetDir, 'handoff.json'), 'utf8');
  const md = await fs.readFile(path.join(outcome.packetDir, 'handoff.md'), 'utf8');
  return { dir, packet: outcome.packet, json, md };
}

describe('packet from the refund fixture', () => {
  let r: Awaited<ReturnType<typeof generateRefund>>;
  before(async () => {
    r = await generateRefund();
  });

  it('writes a schema-valid packet into outputs/handoff/<session_id>', () => {
    const parsed = PacketSchema.parse(JSON.parse(r.json));
    assert.equal(parsed.session_id, 'refund-s3');
    assert.equal(parsed.packet_id, 'refund-s3');
    assert.equal(parsed.topic, 'T-004');
    assert.equal(parsed.branch, 'feat/upi-refund');
    assert.equal(parsed.status, 'active');
  });

  it('keeps records 1,4,5,7,8,9,10,11 — the last five plus every non-zero or null exit', () => {
    assert.deepEqual(r.packet.commands_run.map((c) => c.index), [1, 4, 5, 7, 8, 9, 10, 11]);
    assert.equal(r.packet.commands_omitted, 4);
  });

  it('lists failed attempts 1, 4 (timeout, uncertain), 5 and 9 with excerpts', () => {
    const f = r.packet.failed_attempts;
    assert.deepEqual(f.map((x) => x.index), [1, 4, 5, 9]);
    assert.deepEqual(f.map((x) => x.outcome), ['failed', 'timeout', 'failed', 'failed']);
    assert.deepEqual(f.map((x) => x.uncertain), [false, true, false, false]);
    assert.equal(f[1]!.exit_code, null);
    assert.match(f[1]!.excerpt, /timeout after 30/);
    assert.match(f[2]!.excerpt, /1999\.9999999 != 2000/);
    assert.equal(f[2]!.note, 'float rounding on paise');
  });

  it('never lets the sk-live secret into handoff.json, handoff.md or the prompt', () => {
    const secret = '4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
    const prompt = renderRestartPrompt(r.packet);
    for (const text of [r.json, r.md, prompt]) {
      assert.ok(!text.includes(secret));
      assert.ok(!text.includes('sk-live-4f9a'));
    }
    assert.match(r.packet.commands_run.find((c) => c.index === 10)!.command, /Bearer \[REDACTED\]/);
  });

  it('takes next_action from agent_state.json', () => {
    assert.equal(r.packet.next_action_source, 'agent_state');
    assert.match(r.packet.next_action, /^Run pytest tests\/test_refund.py::test_partial/);
  });

  it('has the block verification finding, the warn off-scope finding, the blocker and the low review score as risks', () => {
    const byId = new Map(r.packet.open_risks.map((x) => [x.id, x]));
    assert.equal(byId.get('verify:acceptance.failed')?.severity, 'block');
    assert.equal(byId.get('verify:acceptance.failed')?.verify, 'pytest tests/test_refund.py');
    assert.equal(byId.get('verify:scope.off_scope')?.severity, 'warn');
    assert.equal(byId.get('blocker:1')?.severity, 'block');
    assert.match(byId.get('blocker:1')!.detail, /partial-refund rounding/);
    assert.equal(byId.get('review:score')?.severity, 'warn');
    assert.match(byId.get('review:score')!.detail, /6\/10/);
    const ranks = r.packet.open_risks.map((x) => ['block', 'high', 'warn', 'info'].indexOf(x.severity));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), 'most severe first');
  });

  it('composes a summary from the artifacts and keeps decisions, assumptions and touched files', () => {
    assert.match(r.packet.summary, /T-004/);
    assert.match(r.packet.summary, /Verification failed/);
    assert.match(r.packet.summary, /soft fail, 6\/10/);
    assert.match(r.packet.summary, /12 commands/);
    assert.deepEqual(r.packet.decisions, [
      { text: 'store money as integer paise, never float', status: 'made' },
      { text: 'mocking the gateway at module level (import order broke it)', status: 'rejected' },
    ]);
    assert.equal(r.packet.assumptions_to_validate.length, 2);
    assert.ok(r.packet.assumptions_to_validate.every((a) => a.verified === false));
    assert.deepEqual(r.packet.changed_files.map((c) => [c.path, c.kind]), [
      ['payments/refund.py', 'touched'], ['tests/test_refund.py', 'touched'], ['payments/gateway.py', 'touched'],
    ]);
    assert.equal(r.packet.generated_at, new Date(1764400610 * 1000).toISOString());
    assert.equal(r.packet.inputs.length, 5);
  });
});

describe('generate determinism', () => {
  it('a second run writes nothing and says unchanged; one changed record changes the packet', async () => {
    const dir = await copyFixture('workbench-refund');
    const first = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    if (first.kind === 'refused') throw new Error(first.reason);
    assert.equal(first.kind, 'written');
    const jsonPath = path.join(first.packetDir, 'handoff.json');
    const bytes1 = await fs.readFile(jsonPath);
    const md1 = await fs.readFile(path.join(first.packetDir, 'handoff.md'));
    const mtime1 = (await fs.stat(jsonPath)).mtimeMs;

    const second = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    assert.equal(second.kind, 'unchanged');
    assert.deepEqual(await fs.readFile(jsonPath), bytes1);
    assert.deepEqual(await fs.readFile(path.join(first.packetDir, 'handoff.md')), md1);
    assert.equal((await fs.stat(jsonPath)).mtimeMs, mtime1);

    // A fresh copy generates the very same bytes: nothing depends on the clock or the folder.
    const other = await copyFixture('workbench-refund');
    const third = await generateHandoff({ workspaceDir: other, options: DEFAULT_OPTIONS });
    if (third.kind === 'refused') throw new Error('refused');
    assert.deepEqual(await fs.readFile(path.join(third.packetDir, 'handoff.json')), bytes1);

    const log = path.join(dir, 'feedback_record.jsonl');
    const text = await fs.readFile(log, 'utf8');
    await fs.writeFile(log, text.replace('"stdout_tail": "1 failed, 6 passed"', '"stdout_tail": "2 failed, 5 passed"'));
    const changed = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    if (changed.kind === 'refused') throw new Error(changed.reason);
    assert.equal(changed.kind, 'written');
    // The first packet is never replaced: the session's later packet gets its own folder.
    assert.notEqual(changed.packetDir, first.packetDir);
    assert.match(path.basename(changed.packetDir), /^refund-s3-[0-9a-f]{8}$/);
    // ...and the first one is only marked superseded by it (one active packet per branch + topic).
    const firstAfter = JSON.parse(await fs.readFile(jsonPath, 'utf8'));
    assert.deepEqual(
      { ...firstAfter, status: 'active', superseded_by: null },
      JSON.parse(bytes1.toString('utf8')),
    );
    assert.equal(firstAfter.status, 'superseded');
    assert.equal(firstAfter.superseded_by, path.basename(changed.packetDir));
    assert.match(await fs.readFile(path.join(changed.packetDir, 'handoff.json'), 'utf8'), /2 failed, 5 passed/);
    const again = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    assert.equal(again.kind, 'unchanged');
  });
});
