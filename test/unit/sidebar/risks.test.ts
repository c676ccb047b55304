import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Risk } from '../../../src/core/packet/schema';
import { badgeCount, findLine, locateRisk, mergeRisks, sourceFileOf } from '../../../src/ui/state/risks';
import { groupRisks } from '../../../src/ui/views/grouping';
import { copyFixture } from '../helpers/fixtures';

const risk = (id: string, severity: Risk['severity'], detail = id, source = 'agent_state.json'): Risk => ({ id, severity, detail, source });
const ack = (id: string) => ({ risk_id: id, by: 'ana', at: '2026-01-01T00:00:00Z' });

describe('open risks', () => {
  it('shows a risk in both the packet and the live set once, as a packet risk, most severe first', () => {
    const merged = mergeRisks(
      [risk('review:score', 'warn'), risk('verify:a', 'block')],
      [risk('verify:a', 'block'), risk('clean:tests', 'high'), risk('x', 'info')],
      new Map(),
      () => null,
    );
    assert.deepEqual(merged.map((r) => `${r.risk.id}/${r.origin}`), ['verify:a/packet', 'clean:tests/live', 'review:score/packet', 'x/live']);
  });

  it('attaches acknowledgements by id; acknowledged risks leave the badge and move to their own group', () => {
    const merged = mergeRisks([risk('a', 'block'), risk('b', 'high'), risk('c', 'warn')], [], new Map([['a', ack('a')]]), () => null);
    assert.equal(badgeCount(merged), 1);
    const groups = groupRisks(merged);
    assert.deepEqual(groups.map((g) => `${g.group}:${g.risks.map((r) => r.risk.id).join(',')}`), ['high:b', 'warn:c', 'acknowledged:a']);
  });

  it('locates a verification finding at its line in the artifact', async () => {
    const wb = await copyFixture('workbench-refund');
    const file = path.join(wb, 'verification_report.json');
    const texts = new Map([[file, await fs.readFile(file, 'utf8')]]);
    const r = risk('verify:scope.off_scope', 'warn', "off-scope writes: ['README.md']", 'verification_report.json');
    const loc = locateRisk(r, { folder: wb, repoRoot: wb, workbenchDir: wb }, texts);
    assert.equal(loc?.file, file);
    const expected = (await fs.readFile(file, 'utf8')).split('\n').findIndex((l) => l.includes('off-scope writes')) + 1;
    assert.ok(expected > 0);
    assert.equal(loc?.line, expected);

    // A source with an anchor (as agents write them) reads the same artifact, keyed the same way.
    const anchored = { ...r, source: 'verification_report.json#findings' };
    const dirs = { folder: wb, repoRoot: wb, workbenchDir: wb };
    assert.equal(sourceFileOf(anchored, dirs), file);
    assert.equal(locateRisk(anchored, dirs, texts)?.line, expected);
  });

  it('opens the first offending path of a clean-state risk, and refuses paths outside the folder', () => {
    const dirs = { folder: '/ws', repoRoot: '/ws', workbenchDir: '/ws' };
    assert.deepEqual(locateRisk({ ...risk('c', 'block', 'dirty', 'clean_state'), paths: ['src/a.ts'] }, dirs, new Map()), { file: '/ws/src/a.ts' });
    assert.equal(locateRisk({ ...risk('c', 'block', 'dirty', 'clean_state'), paths: ['../etc/passwd'] }, dirs, new Map()), null);
    assert.equal(locateRisk(risk('e', 'warn', 'x', '../../outside.json'), dirs, new Map()), null);
    assert.equal(locateRisk(risk('g', 'warn', 'x', 'git'), dirs, new Map()), null);
  });

  it('finds no line when the artifact does not mention the risk', () => {
    assert.equal(findLine('{\n  "a": 1\n}\n', risk('zzz:qqq', 'info', 'nothing like it')), null);
  });
});
