import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { rewritePacket } from '../../../src/core/registry/registry';
import { currentPacket } from '../../../src/core/workflow/freshness';
import { createGitClient } from '../../../src/git/gitClient';
import { makeRepo } from '../helpers/gitRepo';
import { buildTestPacket } from '../helpers/packetBuilder';

describe('currentPacket', () => {
  it("picks the active packet of the current branch + topic over a newer one of another topic, with freshness", async () => {
    const r = makeRepo({ files: { 'agent_state.json': JSON.stringify({ active_task_id: 'T-1' }) } });
    try {
      const out = path.join(r.dir, 'outputs/handoff');
      const inputs = [{ file: 'agent_state.json', sha256: 'will-not-match' }];
      await rewritePacket(path.join(out, 'mine'), buildTestPacket({ packet_id: 'mine', topic: 'T-1', head_commit: r.head(), generated_at: '2026-01-01T00:00:00.000Z', inputs }), {});
      await rewritePacket(path.join(out, 'other'), buildTestPacket({ packet_id: 'other', topic: 'T-2', head_commit: r.head(), generated_at: '2026-02-01T00:00:00.000Z' }), {});
      const { current } = await currentPacket(r.dir, DEFAULT_OPTIONS, createGitClient(r.dir));
      assert.equal(current?.stored.packet.packet_id, 'mine');
      assert.deepEqual(current?.freshness.reasons, ['An input changed after the packet: agent_state.json.']);
      r.write('agent_state.json', JSON.stringify({ active_task_id: 'T-3' }));
      const fallback = await currentPacket(r.dir, DEFAULT_OPTIONS, null);
      assert.equal(fallback.current?.stored.packet.packet_id, 'other', 'no packet for T-3: the newest');
    } finally {
      r.remove();
    }
  });
});
