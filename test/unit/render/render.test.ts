import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import type { Packet } from '../../../src/core/packet/schema';
import { renderMarkdown } from '../../../src/core/render/markdown';
import { renderForAgent } from '../../../src/core/render/forAgent';
import { doorLine, PROMPT_MAX_CHARS, renderRestartPrompt } from '../../../src/core/render/prompt';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { copyFixture } from '../helpers/fixtures';
import { buildTestPacket } from '../helpers/packetBuilder';

async function refundPacket(): Promise<Packet> {
  const outcome = await generateHandoff({ workspaceDir: await copyFixture('workbench-refund'), options: DEFAULT_OPTIONS });
  if (outcome.kind === 'refused') throw new Error(outcome.reason);
  return outcome.packet;
}

/** The lines of one `## Title` section of the markdown. */
function section(md: string, title: string): string[] {
  const start = md.indexOf(`## ${title}`);
  assert.ok(start >= 0, `section ${title}`);
  const rest = md.slice(start).split('\n').slice(1);
  const end = rest.findIndex((l) => l.startsWith('## '));
  return (end === -1 ? rest : rest.slice(0, end)).filter((l) => l.trim());
}

describe('renderMarkdown', () => {
  let p: Packet;
  let md: string;
  before(async () => {
    p = await refundPacket();
    md = renderMarkdown(p);
  });

  it('shows a session source under the home folder as ~/…, the way its risks show it', () => {
    // claude-tasks.jsonl: every source in handoff.md spelled out /home/<user>/.claude/projects/…
    const file = path.join(os.homedir(), '.claude', 'projects', '-w-app', 's.jsonl');
    const closing = { text: 'Status: parser done.\n\nNext: wire it into the CLI.', source: { file, line: 9, what: 'closing message' } };
    const out = renderMarkdown({ ...p, closing, next_action_origin: { kind: 'closing-next', source: closing.source } });
    assert.ok(!out.includes(os.homedir() + path.sep), 'no absolute home path');
    assert.match(out, /_Verbatim, from ~\/\.claude\/projects\/-w-app\/s\.jsonl:9 \(closing message\)\._/);
    assert.match(out, /source: ~\/\.claude\/projects\/-w-app\/s\.jsonl:9 \(closing message\)_/);
    assert.match(renderMarkdown({ ...p, closing: { ...closing, source: { file: '/srv/s.jsonl', line: 9 } } }), /_Verbatim, from \/srv\/s\.jsonl:9\._/, 'elsewhere the path stays');
  });

  it('every risk id it names is a risk in the JSON, with the same severity', () => {
    const lines = section(md, 'Open risks');
    assert.equal(lines.length, p.open_risks.length);
    for (const line of lines) {
      const m = /^> - \*\*(\w+)\*\* `([^`]+)`/.exec(line);
      assert.ok(m, line);
      const risk = p.open_risks.find((r) => r.id === m[2]);
      assert.ok(risk, `risk ${m[2]} is in the JSON`);
      assert.equal(risk.severity, m[1]);
    }
  });

  it('every failed command and index it lists is a failed attempt in the JSON; uncertain ones say so', () => {
    const items = section(md, 'Failed attempts').filter((l) => l.startsWith('> - #'));
    assert.equal(items.length, p.failed_attempts.length);
    for (const line of items) {
      const m = /^> - #(\d+) `([^`]+)`/.exec(line)!;
      const f = p.failed_attempts.find((x) => x.index === Number(m[1]));
      assert.ok(f && f.command === m[2], line);
      assert.equal(/may have partly applied/.test(line), f.uncertain);
    }
  });

  it('the commands table mirrors commands_run and the omitted count', () => {
    const rows = section(md, 'Commands run').filter((l) => /^> \| \d+ \|/.test(l));
    assert.deepEqual(rows.map((r) => Number(/^> \| (\d+) \|/.exec(r)![1])), p.commands_run.map((c) => c.index));
    assert.match(md, new RegExp(`${p.commands_run.length} kept, ${p.commands_omitted} left out`));
  });

  it('states the next action and summary of the JSON and nothing about missing git data', () => {
    assert.deepEqual(section(md, 'Next action')[0], `> ${p.next_action}`);
    assert.equal(section(md, 'Summary')[0], `> ${p.summary}`);
    assert.match(md, /HEAD `unknown`/);
    assert.equal(renderMarkdown(p), md, 'deterministic');
  });

  it('escapes markup in agent text', () => {
    const evil = { ...p, next_action: 'run <script>alert(1)</script> then `rm`' };
    const out = renderMarkdown(evil);
    assert.ok(!out.includes('<script>'));
  });
});

describe('renderRestartPrompt', () => {
  let p: Packet;
  before(async () => {
    p = await refundPacket();
  });

  it('puts the next action before the failed attempts and risks; a fresh prompt never says stale', () => {
    const text = renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } });
    assert.ok(!/stale/i.test(text));
    const next = text.indexOf('NEXT ACTION');
    assert.ok(next > 0 && next < text.indexOf('Failed attempts') && next < text.indexOf('Open risks'));
    assert.match(text, /branch feat\/upi-refund/);
    assert.match(text, /Uncertain work — may have partly applied[^\n]*\n> - #4 `pytest tests\/test_gateway.py` timed out/);
    assert.ok(text.indexOf('[block]') < text.indexOf('[warn]'));
    assert.match(text, /inspect the uncertain work and report what it changed before acting on the next action/);
    assert.match(text, /Rejected approaches[\s\S]*mocking the gateway/);
  });

  it('with uncertain work and no open question, the first reply is not told to settle open questions', () => {
    // codex-tools.jsonl, cline-xml: "settle the open questions" with none in the prompt sends the agent looking for them.
    const none = { ...p, questions: [], questions_for_human: [], open_risks: p.open_risks.filter((r) => !r.id.startsWith('blocker:')) };
    const text = renderRestartPrompt(none, { freshness: { stale: false, reasons: [] } });
    assert.ok(!text.includes('Open questions'));
    assert.doesNotMatch(text, /settle the open questions/);
    assert.match(text, /Confirm the branch and HEAD in one line, then inspect the uncertain work and report what it changed before acting on the next action/);
    assert.match(renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } }), /settle the open questions, then inspect the uncertain work/);
  });

  it('a failed attempt\'s excerpt past its budget is cut at a word, never inside one', () => {
    // claude-tasks.jsonl: "E AssertionError: cu…", "<FakePro…" in the restart prompt.
    const f = p.failed_attempts.find((x) => !x.uncertain)!;
    const excerpt = ['FAILED test_nightly_job_resumes_from_cursor', '> assert db.cursor() == "inv_0002"', 'E AssertionError: cursor not persisted before retry: expected inv_0002, got None', 'tests/test_sync_job.py:58: AssertionError', 'FAILED tests/test_sync_job.py::test_nightly_job_resumes_from_cursor - AssertionError'].join('\n');
    const text = renderRestartPrompt({ ...p, failed_attempts: [{ ...f, excerpt }] }, { freshness: { stale: false, reasons: [] } });
    const cutLine = text.split('\n').find((l) => l.endsWith('…') && l.startsWith('>   '));
    assert.ok(cutLine, 'the excerpt is cut');
    const kept = cutLine.slice(4, -1);
    assert.ok(excerpt.split(/\s+/).some((w) => kept.endsWith(w)), `cut inside a word: ${cutLine}`);
  });

  it('a stale packet says so on the first line, with the reasons, and asks for a read-only review first', () => {
    const text = renderRestartPrompt(p, { freshness: { stale: true, reasons: ['HEAD moved 3 commits'] } });
    const first = text.split('\n')[0]!;
    assert.match(first, /\*\*stale\*\*/);
    assert.match(first, /HEAD moved 3 commits/);
    assert.match(text, /Review read-only first/);
  });

  it('marks acknowledged risks with who and when, and uses a custom first turn', () => {
    const text = renderRestartPrompt(p, { acknowledged: [{ id: 'verify:scope.off_scope', by: 'asha', at: '2026-01-01T10:00:00Z' }], firstTurn: 'Reply with a plan only.' });
    assert.match(text, /verify:scope\.off_scope: .*\(acknowledged by asha at 2026-01-01T10:00:00Z\)/);
    assert.match(text, /Reply with a plan only\.\n$/);
  });

  it('stays within the paste budget for a huge packet', () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ ...p.failed_attempts[0]!, index: i, excerpt: 'x'.repeat(500) }));
    const risks = Array.from({ length: 200 }, (_, i) => ({ id: `agent:${i}`, severity: 'warn' as const, detail: 'y'.repeat(500), source: 's' }));
    const text = renderRestartPrompt({ ...p, failed_attempts: many, open_risks: risks, summary: 'z'.repeat(5000) });
    assert.ok(text.length <= PROMPT_MAX_CHARS, `${text.length}`);
    assert.match(text, /NEXT ACTION/);
    // The record is cut, never the instructions on how to reply.
    assert.match(text, /\nHow your first reply should look:\n[^\n]+\n$/);
  });
});

describe('renderRestartPrompt: a credential risk', () => {
  it('keeps what to do about a credential (rotate, scrub) however long the places it names, where other risks are cut', async () => {
    const p = await refundPacket();
    const place = `the agent's transcript (Claude Code) ~/.claude/projects/-home-dev-a-rather-long-project-folder-name/${'0'.repeat(36)}.jsonl line 24 (the call at line 23)`;
    const leak = { id: 'leak:rollout-2026-11-20T09-00-00-019aa3f1-7c2e-7b40-9d1a-5e3c1f0d2b68.jsonl:34', severity: 'block' as const, detail: `\`cat .env\` printed a Stripe live key into ${place}, which now holds a copy (masked in this packet). Fix: rotate the credential now; delete the transcript or scrub it (handoff secrets --scrub).`, source: 's.jsonl:24' };
    const other = { id: 'review:low-score', severity: 'warn' as const, detail: `${'a long explanation '.repeat(20)}END-OF-OTHER`, source: 'review_report.json' };
    const prompt = renderRestartPrompt({ ...p, open_risks: [leak, other] });
    // Its id names the session file whole: the place to scrub.
    const line = prompt.split('\n').find((l) => l.includes('leak:rollout-2026-11-20T09-00-00-019aa3f1-7c2e-7b40-9d1a-5e3c1f0d2b68.jsonl:34:')) ?? '';
    assert.match(line, /Fix: rotate the credential now; delete the transcript or scrub it \(handoff secrets --scrub\)\.$/);
    assert.ok(!prompt.includes('END-OF-OTHER'), 'an ordinary risk is still cut');
  });
});

describe('the restart prompt names the door it came through', () => {
  it('one line at its end for the hook, the MCP server, the chat tool and the clipboard; none when no door is given', () => {
    const p = buildTestPacket({ next_goal: 'ship it' });
    const lines = new Set<string>();
    for (const door of ['hook', 'mcp', 'chat-tool', 'clipboard'] as const) {
      const text = renderRestartPrompt(p, { door });
      assert.equal(text.split('\n')[0], 'GOAL FOR THIS SESSION: ship it', 'the goal stays the first line');
      assert.equal(text.trimEnd().split('\n').at(-1), doorLine(door));
      assert.equal(text.split('\n').filter((l) => l === doorLine(door)).length, 1);
      lines.add(doorLine(door));
    }
    assert.equal(lines.size, 4, 'each door has its own words');
    assert.ok(!renderRestartPrompt(p).includes('Handed over by Session Handoff'));
    // For another agent it sits just above the pointer to handoff.md.
    assert.match(renderForAgent(p, 'codex', { door: 'mcp' }), /\n\(Handed over by Session Handoff through the handoff MCP server\.\)\nFull packet: [^\n]+\n$/);
  });
});
