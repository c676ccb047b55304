import * as assert from 'node:assert/strict';
import { COMPACT_MAX_CHARS, renderCompactBrief } from '../../../src/core/render/sessionStart';
import { buildTestPacket } from '../helpers/packetBuilder';

describe('the post-compaction brief', () => {
  const leak = (n: number) => ({
    id: `leak:s.jsonl:${n}`,
    severity: 'block' as const,
    detail: `\`cat .env\` printed a Stripe live key into the agent's transcript line ${n}, which now holds a copy (masked in this packet). Fix: rotate the credential now; delete the transcript or scrub it (handoff secrets --scrub).`,
    source: `s.jsonl:${n}`,
  });

  it('names every credential the session saw, with its fix, besides the next action: compaction is when the agent forgets it saw one', () => {
    const p = buildTestPacket({ open_risks: [leak(24), { id: 'review:low', severity: 'warn', detail: 'review below 7/10', source: 'review_report.json' }] });
    const brief = renderCompactBrief(p, { regenerated: true });
    assert.match(brief, /Credentials this session saw \(masked here\)/);
    assert.match(brief, /line 24, which now holds a copy .*Fix: rotate the credential now/);
    assert.ok(!brief.includes('review below 7/10'), 'other risks stay in handoff.md');
    assert.ok(brief.indexOf('NEXT ACTION') < brief.indexOf('Credentials this session saw'));
  });

  it('says nothing of credentials when there are none, and keeps three at most within its size', () => {
    assert.ok(!renderCompactBrief(buildTestPacket({ open_risks: [] }), { regenerated: false }).includes('Credentials'));
    const many = renderCompactBrief(buildTestPacket({ open_risks: [leak(1), leak(2), leak(3), leak(4), leak(5)] }), { regenerated: false });
    assert.equal((many.match(/which now holds a copy/g) ?? []).length, 3);
    assert.match(many, /\(2 more in handoff\.md\)/);
    assert.ok(many.length <= COMPACT_MAX_CHARS);
  });
});
