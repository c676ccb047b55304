import assert from 'node:assert/strict';
import * as path from 'node:path';
import { actionsFor, emptyFor, selectEntry, toPanelModel } from '../../../src/ui/panel/model';
import { snapshotWith } from '../helpers/workbenchSnapshot';
import { resolveInside } from '../../../src/core/safePath';
import type { PacketEntry, WorkbenchUiState } from '../../../src/ui/state/types';
import { buildTestPacket } from '../helpers/packetBuilder';

function entry(id: string, status: 'active' | 'superseded' | 'archived' = 'active', writtenAt?: number): PacketEntry {
  return { id, dir: `/w/outputs/handoff/${id}`, packet: buildTestPacket({ packet_id: id, status }), freshness: { stale: false, reasons: [] }, ...(writtenAt ? { writtenAt } : {}) };
}

function state(over: Partial<WorkbenchUiState> = {}): WorkbenchUiState {
  const active = entry('s2');
  return {
    folder: { uri: { toString: () => 'file:///w', fsPath: '/w' }, name: 'w', index: 0 },
    trusted: true,
    phase: 'ready',
    phaseMessage: null,
    workbenchDir: '/w',
    outputDir: '/w/outputs/handoff',
    snapshot: null,
    diagnostics: [],
    git: null,
    clean: null,
    packets: [active, entry('s1', 'superseded')],
    activePacket: active,
    risks: [],
    context: { known: false, reason: 'none' },
    candidates: [],
    session: null,
    budget: null,
    updatedAt: 0,
    ...over,
  } as WorkbenchUiState;
}

describe('panel model', () => {
  it('follows the active packet unless one is pinned', () => {
    assert.equal(selectEntry(state(), undefined)?.id, 's2');
    assert.equal(selectEntry(state(), 's1')?.id, 's1');
    assert.equal(selectEntry(state(), 'gone'), null);
    assert.equal(selectEntry(undefined, undefined), null);
  });

  it('carries freshness, acknowledgements and the pin into the view model', () => {
    const s = state();
    const e = { ...entry('s2'), freshness: { stale: true, reasons: ['HEAD moved 1 commit'], commitsBehind: 1 } };
    const m = toPanelModel(s, e, [{ risk_id: 'verify:X1', by: 'dev', at: 't' }], true);
    assert.deepEqual(m.acks, [{ id: 'verify:X1', by: 'dev', at: 't' }]);
    assert.equal(m.freshness?.stale, true);
    assert.equal(m.pinned, true);
    assert.equal(m.folderUri, 'file:///w');
    assert.equal(m.packetDir, '/w/outputs/handoff/s2');
  });

  it('says in one line where the packet\'s facts came from (the packet\'s sources)', () => {
    const sources = { commands: 'claude:7f3e2a91-4c8b', task_list: 'claude:7f3e2a91-4c8b', changed_files: 'git + claude:7f3e2a91-4c8b', next_action: 'task list' };
    const e = { ...entry('s2'), packet: buildTestPacket({ packet_id: 's2', sources }) };
    const m = toPanelModel(state(), e, [], false);
    assert.equal(m.derivedFrom, 'From Claude Code session 7f3e2a91 (commands, task list, changed files); git (changed files); next action from the task list.');
    assert.equal(toPanelModel(state(), entry('s2'), [], false).derivedFrom, '', 'an older packet without sources says nothing');
  });

  it('explains an empty panel and offers Generate only where it can run', () => {
    assert.equal(emptyFor(undefined, undefined).canGenerate, false);
    const untrusted = emptyFor(state({ trusted: false, phase: 'untrusted', activePacket: null }), undefined);
    assert.equal(untrusted.canGenerate, false);
    assert.match(untrusted.reason, /not trusted/);
    const none = emptyFor(state({ activePacket: null }), undefined);
    assert.equal(none.canGenerate, true);
    assert.match(none.reason, /No active handoff packet/);
    assert.match(emptyFor(state(), 'gone').reason, /gone is no longer/);
  });

  it('offers only Generate on an archived packet, every action on the others', () => {
    assert.deepEqual(actionsFor(entry('a', 'archived')), ['generate']);
    assert.deepEqual(actionsFor(entry('s2')), ['copyPrompt', 'copyJson', 'copyPrSummary', 'openMarkdown', 'regenerate']);
    // A packet not written here (committed, copied, imported) offers Trust This Packet first; once trusted, no more.
    assert.deepEqual(actionsFor({ ...entry('s2'), owned: false }), ['trustPacket', 'copyPrompt', 'copyJson', 'copyPrSummary', 'openMarkdown', 'regenerate']);
    assert.ok(!actionsFor({ ...entry('s2'), owned: true }).includes('trustPacket'));
    assert.deepEqual(actionsFor({ ...entry('a', 'archived'), owned: false }), ['generate']);
    const m = toPanelModel(state(), entry('a', 'archived', 1_764_400_000_000), [], true);
    assert.deepEqual(m.actions, ['generate']);
    assert.equal(m.writtenAt, 1_764_400_000_000);
  });

  it('says the packet of this branch and topic was archived, not that there is none yet', () => {
    const p = buildTestPacket();
    const archived = { ...entry(p.packet_id, 'archived', Date.now() - 5 * 60_000), packet: { ...p, status: 'archived' as const } };
    const s = state({
      activePacket: null,
      packets: [archived],
      snapshot: snapshotWith({ agentState: { schema_version: 1, active_task_id: p.topic, touched_files: [], assumptions: [], blockers: [], next_action: 'x' } }),
      git: { ok: true, facts: { branch: p.branch } } as WorkbenchUiState['git'],
    });
    const empty = emptyFor(s, undefined);
    assert.equal(empty.canGenerate, true);
    assert.match(empty.reason, new RegExp(`Handoff ${p.packet_id} was archived 5 min ago \\(`));
    assert.doesNotMatch(empty.reason, /yet/);
    // Another topic's archived packet is not this one's story.
    const other = emptyFor({ ...s, packets: [{ ...archived, packet: { ...archived.packet, topic: 'other' } }] }, undefined);
    assert.match(other.reason, /No active handoff packet/);
  });
});

describe('resolveInside', () => {
  const root = path.resolve('/repo');
  it('resolves relative paths inside the root', () => {
    assert.equal(resolveInside(root, 'src/a.ts'), path.join(root, 'src', 'a.ts'));
  });
  it('refuses paths that escape the root', () => {
    for (const bad of ['../etc/passwd', '/etc/passwd', 'src/../../x', '', '.', '..', 'a\0b']) assert.equal(resolveInside(root, bad), null, bad);
  });
  it('keeps names that merely start with two dots', () => {
    assert.equal(resolveInside(root, '..cache/x'), path.join(root, '..cache', 'x'));
  });
});
