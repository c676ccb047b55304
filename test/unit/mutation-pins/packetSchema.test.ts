import * as assert from 'node:assert/strict';
import { PacketSchema, severityRank } from '../../../src/core/packet/schema';
import { buildTestPacket } from '../helpers/packetBuilder';

describe('the packet schema', () => {
  it('ranks severities most severe first', () => {
    assert.deepEqual(['info', 'block', 'warn', 'high'].sort((a, b) => severityRank(a as never) - severityRank(b as never)), ['block', 'high', 'warn', 'info']);
    assert.equal(severityRank('block'), 0);
  });

  it('reads an older packet without sources or next_goal, giving them empty defaults', () => {
    const { sources: _s, next_goal: _g, ...older } = buildTestPacket();
    const p = PacketSchema.parse(older);
    assert.deepEqual(p.sources, {});
    assert.equal(p.next_goal, null);
  });

  it('refuses a packet without a summary or next action, with negative omitted counts, or unknown enums', () => {
    for (const bad of [
      { summary: '' }, { next_action: '' }, { commands_omitted: -1 }, { commands_omitted: 1.5 }, { status: 'open' }, { next_action_source: 'guess' }, { schema_version: 2 },
      { open_risks: [{ id: 'x', severity: 'fatal', detail: 'd', source: 's' }] },
      { assumptions_to_validate: [{ text: 'x', verified: true }] },
      { context: { known: true, reason: 'x' } },
      { clean_state: { clean: true, findings: [{ check: 'other', detail: 'd', fix: 'f' }] } },
    ]) {
      assert.equal(PacketSchema.safeParse({ ...buildTestPacket(), ...bad }).success, false, JSON.stringify(bad));
    }
    assert.equal(PacketSchema.safeParse(buildTestPacket({ context: { known: false, reason: 'r' } })).success, true);
  });
});
