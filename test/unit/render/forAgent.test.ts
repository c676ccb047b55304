import * as assert from 'node:assert/strict';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import type { Packet } from '../../../src/core/packet/schema';
import { INJECT_MAX_CHARS, packetAgent, renderForAgent } from '../../../src/core/render/forAgent';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { copyFixture } from '../helpers/fixtures';

async function refundPacket(): Promise<Packet> {
  const outcome = await generateHandoff({ workspaceDir: await copyFixture('workbench-refund'), options: DEFAULT_OPTIONS });
  if (outcome.kind === 'refused') throw new Error(outcome.reason);
  return outcome.packet;
}

const fromAgent = (p: Packet, source: 'claude' | 'codex'): Packet => ({
  ...p,
  context: { known: true, source, sessionId: p.session_id, usedTokens: 1, windowTokens: 2, percent: 50, compactAtPercent: 90, at: '2026-11-20T10:00:00Z' },
});

describe('renderForAgent (the restart prompt for Claude Code or Codex)', () => {
  let p: Packet;
  before(async () => {
    p = await refundPacket();
  });

  it('says which agent and session the packet came from, and the other agent\'s own tools and background runs', () => {
    const claudeToCodex = renderForAgent(fromAgent(p, 'claude'), 'codex');
    assert.ok(claudeToCodex.startsWith(`HANDOFF FROM CLAUDE CODE (session ${p.session_id}) TO CODEX.\n`), claudeToCodex.slice(0, 120));
    assert.match(claudeToCodex, /may use Claude Code's tool names: do the same work with your own tools — .*apply_patch.*update_plan/);
    assert.match(claudeToCodex, /exec_command and a short yield_time_ms, then poll its session with write_stdin/);
    const codexToClaude = renderForAgent(fromAgent(p, 'codex'), 'claude');
    assert.match(codexToClaude, /^HANDOFF FROM CODEX \(session [^)]+\) TO CLAUDE CODE\.\n/);
    assert.match(codexToClaude, /run_in_background: true/);
    const same = renderForAgent(fromAgent(p, 'claude'), 'claude');
    assert.match(same, /^HANDOFF FROM CLAUDE CODE \(session [^)]+\) TO CLAUDE CODE\.\nThis packet was written from a Claude Code session, like this one\.\n\n/);
    assert.doesNotMatch(same, /tool names/);
  });

  it('holds the whole restart prompt and names handoff.md', () => {
    const out = renderForAgent(p, 'codex', {}, { packetDir: 'outputs/handoff/x' });
    assert.ok(out.includes(renderRestartPrompt(p)));
    assert.match(out, /\nFull packet: outputs\/handoff\/x\/handoff\.md\n$/);
    assert.ok(out.length <= INJECT_MAX_CHARS);
  });

  it('past its budget it is cut at a line, keeps its first lines and names handoff.md for the rest', () => {
    const out = renderForAgent(fromAgent(p, 'codex'), 'claude', {}, { packetDir: 'outputs/handoff/x', maxChars: 1200 });
    assert.ok(out.length <= 1200, `${out.length}`);
    assert.match(out, /^HANDOFF FROM CODEX/);
    assert.match(out, /\n…\(cut to fit; the rest is in outputs\/handoff\/x\/handoff\.md\)\nFull packet: outputs\/handoff\/x\/handoff\.md\n$/);
  });

  it('tells the agent of a packet from its context reading, else from where its facts came from', () => {
    assert.equal(packetAgent(fromAgent(p, 'codex')), 'codex');
    assert.equal(packetAgent({ ...p, context: null, sources: { commands: 'claude:abc' } }), 'claude');
    assert.equal(packetAgent({ ...p, context: null, sources: {} }), undefined);
  });
});
