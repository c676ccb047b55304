import * as assert from 'node:assert/strict';
import { assessFreshness } from '../../../src/core/registry/freshness';
import { buildTestPacket } from '../helpers/packetBuilder';

const OLD = '1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const NEW = '2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const inputs = [{ file: 'agent_state.json', sha256: 'h1' }];
const packet = buildTestPacket({ head_commit: OLD, branch: 'main', inputs });

describe('packet freshness: when a packet no longer describes the workbench', () => {
  it('is fresh when HEAD, branch and inputs are as recorded', () => {
    assert.deepEqual(assessFreshness(packet, { facts: { head: OLD, branch: 'main' }, commitsSince: 0, inputs }), { stale: false, reasons: [] });
  });

  it('counts the commits HEAD moved, singular and plural', () => {
    const one = assessFreshness(packet, { facts: { head: NEW, branch: 'main' }, commitsSince: 1, inputs });
    assert.deepEqual(one, { stale: true, reasons: ['HEAD moved 1 commit since the packet (1111111 → 2222222).'], commitsBehind: 1 });
    const three = assessFreshness(packet, { facts: { head: NEW, branch: 'main' }, commitsSince: 3, inputs });
    assert.deepEqual(three.reasons, ['HEAD moved 3 commits since the packet (1111111 → 2222222).']);
    assert.equal(three.commitsBehind, 3);
  });

  it('says HEAD differs (no count) when it moved but not ahead: zero or unknown commits since', () => {
    for (const commitsSince of [0, null]) {
      const f = assessFreshness(packet, { facts: { head: NEW, branch: 'main' }, commitsSince, inputs });
      assert.deepEqual(f, { stale: true, reasons: ["HEAD is 2222222, not the packet's 1111111."] }, String(commitsSince));
      assert.ok(!('commitsBehind' in f));
    }
  });

  it('a HEAD one side does not know never matches', () => {
    const noHead = buildTestPacket({ head_commit: null, branch: 'main', inputs });
    assert.deepEqual(assessFreshness(noHead, { facts: { head: NEW, branch: 'main' }, commitsSince: 2, inputs }), {
      stale: true,
      reasons: ['The packet records no HEAD commit, so it cannot be matched with HEAD 2222222.'],
    });
    assert.deepEqual(assessFreshness(packet, { facts: { head: null, branch: 'main' }, commitsSince: 2, inputs }).reasons, [
      'The repository has no commit yet, but the packet was made at 1111111.',
    ]);
    // Neither knows one (a repository without commits, a packet made there): nothing to compare.
    assert.equal(assessFreshness(noHead, { facts: { head: null, branch: 'main' }, commitsSince: null, inputs }).stale, false);
  });

  it('names the other branch, or a detached HEAD; a packet without a branch never matches one', () => {
    const other = assessFreshness(packet, { facts: { head: OLD, branch: 'feature' }, commitsSince: 0, inputs });
    assert.deepEqual(other.reasons, ['The branch is feature, but the packet was made on main.']);
    const detached = assessFreshness(packet, { facts: { head: OLD, branch: null }, commitsSince: 0, inputs });
    assert.deepEqual(detached.reasons, ['The branch is a detached HEAD, but the packet was made on main.']);
    for (const branch of ['', null]) {
      const noBranch = buildTestPacket({ head_commit: OLD, branch, inputs });
      assert.deepEqual(assessFreshness(noBranch, { facts: { head: OLD, branch: 'feature' }, commitsSince: 0, inputs }).reasons, [
        'The packet records no branch, so it cannot be matched with the branch feature.',
      ]);
      assert.equal(assessFreshness(noBranch, { facts: { head: OLD, branch: null }, commitsSince: 0, inputs }).stale, false);
    }
  });

  it('without git, compares only the inputs', () => {
    assert.deepEqual(assessFreshness(packet, { facts: null, commitsSince: 4, inputs }), { stale: false, reasons: [] });
  });

  it('lists inputs that changed, vanished or appeared, one sentence for one or many', () => {
    const changed = assessFreshness(packet, { facts: null, commitsSince: null, inputs: [{ file: 'agent_state.json', sha256: 'h2' }] });
    assert.deepEqual(changed.reasons, ['An input changed after the packet: agent_state.json.']);
    const removedAndNew = assessFreshness(packet, { facts: null, commitsSince: null, inputs: [{ file: 'review_report.json', sha256: 'r' }] });
    assert.deepEqual(removedAndNew.reasons, ['Inputs changed after the packet: agent_state.json (removed), review_report.json (new).']);
    assert.equal(removedAndNew.stale, true);
  });

  it('gives the reasons most important first: HEAD, branch, inputs', () => {
    const f = assessFreshness(packet, { facts: { head: NEW, branch: 'dev' }, commitsSince: 2, inputs: [] });
    assert.deepEqual(f.reasons, [
      'HEAD moved 2 commits since the packet (1111111 → 2222222).',
      'The branch is dev, but the packet was made on main.',
      'An input changed after the packet: agent_state.json (removed).',
    ]);
  });
});
