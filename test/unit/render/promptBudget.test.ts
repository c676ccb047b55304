import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { questionsIn } from '../../../src/core/packet/judgement';
import type { Packet } from '../../../src/core/packet/schema';
import { PROMPT_MAX_CHARS, renderRestartPrompt } from '../../../src/core/render/prompt';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionAgent, SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { copyFixture, fixturePath, makeTempDir } from '../helpers/fixtures';
import { buildTestPacket } from '../helpers/packetBuilder';

/**
 * The restart prompt's budget (DESIGN §6): about 1 500 tokens (≈ 4 characters a token) for every shared
 * fixture, and never over 10 000 characters — past the budget the record is shortened and handoff.md
 * named, never the next action, the closing words or the questions.
 */

const SESSIONS: [string, SessionAgent][] = [
  ['agents/claude-session.jsonl', 'claude-code'],
  ['agents/claude-compacted.jsonl', 'claude-code'],
  ['agents/codex-rollout.jsonl', 'codex'],
  ['transcripts/claude-tools.jsonl', 'claude-code'],
  ['transcripts/claude-tasks.jsonl', 'claude-code'],
  ['transcripts/claude-bigline.jsonl', 'claude-code'],
  ['transcripts/codex-tools.jsonl', 'codex'],
  ['transcripts/codex-2026.jsonl', 'codex'],
];

/** The packet of a session, or null when it is refused because the session holds no request and no command. */
async function packetOfSession(rel: string, agent: SessionAgent): Promise<Packet | null> {
  const cwd = await makeTempDir('handoff-budget-');
  const raw = await fs.readFile(fixturePath(...rel.split('/')), 'utf8');
  const file = path.join(cwd, path.basename(rel));
  await fs.writeFile(file, raw.split('__CWD__').join(JSON.stringify(cwd).slice(1, -1)));
  const facts = (await readSessionFile(file, agent)) as SessionFacts | null;
  assert.ok(facts, `${rel} is read`);
  const snapshot = mergeSession(await loadWorkbench(cwd, { feedbackK: 5, maxCommands: 30 }), facts, { workspaceDir: cwd, feedbackK: 5, maxCommands: 30 });
  const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
  if (r.ok) return r.packet;
  // Only a session with nothing to derive a step from (a context-reading fixture) may be refused.
  assert.ok(facts.commandCount === 0 && !facts.latestUserRequest && !facts.lastAssistantMessage?.match(/\bnext\b/i), `${rel} refused: ${r.reason}`);
  return null;
}

const withinBudget = (prompt: string, name: string): void => {
  assert.ok(prompt.length / 4 < 1500, `${name}: ${prompt.length} chars is over about 1 500 tokens`);
  assert.ok(prompt.length <= PROMPT_MAX_CHARS, `${name}: ${prompt.length} chars`);
};

describe('the restart prompt of every shared fixture stays within its budget', () => {
  it('workbench-refund', async () => {
    const outcome = await generateHandoff({ workspaceDir: await copyFixture('workbench-refund'), options: DEFAULT_OPTIONS });
    if (outcome.kind === 'refused') throw new Error(outcome.reason);
    withinBudget(renderRestartPrompt(outcome.packet, { freshness: { stale: false, reasons: [] } }), 'workbench-refund');
    withinBudget(renderRestartPrompt(outcome.packet, { freshness: { stale: true, reasons: ['HEAD moved 3 commits'] } }), 'workbench-refund (stale)');
  });

  for (const [rel, agent] of SESSIONS) {
    it(rel, async () => {
      const p = await packetOfSession(rel, agent);
      if (!p) return;
      const prompt = renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } });
      withinBudget(prompt, rel);
      assert.ok(prompt.includes(p.next_action.slice(0, 60).replace(/\s+/g, ' ').trim().slice(0, 40)) || prompt.replace(/\s+/g, ' ').includes(p.next_action.replace(/\s+/g, ' ').slice(0, 40)), `${rel}: the next action is in the prompt`);
      if (p.closing) assert.ok(prompt.includes(p.closing.text.split('\n')[0]!.trim().slice(0, 60)), `${rel}: the closing words are in the prompt`);
    });
  }
});

/** A deterministic pseudo-random sequence (no Math.random: the same run every time). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('a huge closing message', () => {
  it('never pushes the prompt over 10 000 characters: the closing words, the next action and every question stay; handoff.md is named', () => {
    for (let seed = 1; seed <= 25; seed++) {
      const rand = rng(seed);
      const paragraphs = Array.from({ length: 20 + Math.floor(rand() * 60) }, (_, i) => `Paragraph ${i}: ${'the sync job retried the batch and logged it '.repeat(2 + Math.floor(rand() * 20))}`);
      const asked = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, i) => `Should batch ${i} keep its cursor ${'after a retry '.repeat(1 + Math.floor(rand() * 5))}?`);
      for (const q of asked) paragraphs.splice(Math.floor(rand() * paragraphs.length), 0, q);
      const whole = paragraphs.join('\n\n');
      const kept = whole.slice(0, 3000).replace(/\n\n[^]*$/, '');
      const p = buildTestPacket({
        closing: { text: kept, source: { file: '/home/u/.claude/projects/x/s.jsonl', line: 93, what: 'closing message' }, omitted_chars: whole.length - kept.length },
        questions: questionsIn(whole).map((text) => ({ text, from: 'closing' as const, source: { file: '/home/u/.claude/projects/x/s.jsonl', line: 93 } })),
        waiting_for_answers: true,
        summary: 's'.repeat(2000),
        failed_attempts: Array.from({ length: 8 }, (_, i) => ({ index: i, command: `npm test -- part${i}`, outcome: 'failed' as const, exit_code: 1, note: 'n'.repeat(80), excerpt: 'e'.repeat(400), uncertain: i % 3 === 0 })),
        open_risks: Array.from({ length: 12 }, (_, i) => ({ id: `risk:${i}`, severity: 'warn' as const, detail: 'd'.repeat(200), source: 'x' })),
        next_session_prereqs: Array.from({ length: 8 }, (_, i) => `src/file${i}.ts`),
        human_words: [{ kind: 'first-request', text: 'w '.repeat(990), source: null }],
      });
      const prompt = renderRestartPrompt(p, { freshness: { stale: true, reasons: ['r'.repeat(300)] } });
      assert.ok(prompt.length <= PROMPT_MAX_CHARS, `seed ${seed}: ${prompt.length} chars`);
      assert.ok(prompt.includes(p.next_action), `seed ${seed}: next action`);
      const flat = prompt.replace(/^>( |$)/gm, '').replace(/\s+/g, ' ');
      assert.ok(flat.includes(kept.replace(/\s+/g, ' ')), `seed ${seed}: the closing words, whole as the packet keeps them`);
      for (const q of p.questions ?? []) assert.ok(flat.includes(q.text.replace(/\s+/g, ' ').slice(0, 200)), `seed ${seed}: ${q.text.slice(0, 40)}`);
      assert.match(prompt, /handoff\.md/, `seed ${seed}: names handoff.md for the rest`);
      assert.match(prompt, /left out, the whole message is in `\/home\/u\/\.claude\/projects\/x\/s\.jsonl:93`/);
    }
  });
});
