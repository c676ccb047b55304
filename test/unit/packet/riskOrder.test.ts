import * as assert from 'node:assert/strict';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { renderMarkdown } from '../../../src/core/render/markdown';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { mergeRisks } from '../../../src/ui/state/risks';
import { buildTestPacket } from '../helpers/packetBuilder';
import { snapshotWith } from '../helpers/workbenchSnapshot';

describe('risk order: most severe first, sorted once after every risk is known', () => {
  const snapshot = snapshotWith({
    agentState: {
      next_action: 'Fix the rounding',
      open_risks: [
        { id: 'note', severity: 'low', detail: 'log noise in the refund job' },
        { id: 'perf', severity: 'high', detail: 'N+1 query on refunds' },
      ],
    },
  });
  const git = { repo: 'r', branch: 'main', headCommit: 'a'.repeat(40), changedFiles: [], lastKnownGoodCommit: null, lkgUnknownReason: 'no test run is recorded' };

  it('puts the missing last-known-good risk among the warnings, above info', () => {
    const built = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git, clean: null, allowDirty: false, context: null });
    assert.ok(built.ok);
    assert.deepEqual(built.packet.open_risks.map((r) => `${r.severity} ${r.id}`), ['high agent:perf', 'warn git:no-last-known-good', 'info agent:note']);
  });

  it('has no such risk when the commit is known', () => {
    const built = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: { ...git, lastKnownGoodCommit: 'b'.repeat(40) }, clean: null, allowDirty: false, context: null });
    assert.ok(built.ok);
    assert.ok(!built.packet.open_risks.some((r) => r.id === 'git:no-last-known-good'));
  });

  it('the markdown, the restart prompt and the Open Risks view keep that order for an unsorted packet', () => {
    const risks = [
      { id: 'i', severity: 'info' as const, detail: 'info one', source: 's' },
      { id: 'b', severity: 'block' as const, detail: 'block one', source: 's' },
      { id: 'w', severity: 'warn' as const, detail: 'warn one', source: 's' },
    ];
    const p = buildTestPacket({ open_risks: risks });
    const order = (text: string): string[] => ['block one', 'warn one', 'info one'].sort((a, b) => text.indexOf(a) - text.indexOf(b));
    assert.deepEqual(order(renderMarkdown(p)), ['block one', 'warn one', 'info one']);
    assert.deepEqual(order(renderRestartPrompt(p)), ['block one', 'warn one', 'info one']);
    assert.deepEqual(mergeRisks(risks, [], new Map(), () => null).map((r) => r.risk.id), ['b', 'w', 'i']);
  });
});
