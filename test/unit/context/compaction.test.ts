import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeTranscriptReader } from '../../../src/core/context/claude';
import { COMPACTION_GRACE_MS, uncoveredCompaction } from '../../../src/core/context/compaction';
import type { ContextResult } from '../../../src/core/context/types';
import type { WorkbenchUiState } from '../../../src/ui/state/types';
import { statusView } from '../../../src/ui/statusView';
import { claudeCall } from '../helpers/agentLines';
import { fixturePath, makeTempDir } from '../helpers/fixtures';

const boundary = (at: string, preTokens: number) =>
  `${JSON.stringify({ isSidechain: false, type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens }, timestamp: at, sessionId: 'sess-1' })}\n`;

describe('after a compaction: the meter keeps when and how full, the UI says when no handoff covers it', () => {
  it('reads the compact boundary of the fixture: when, and the context just before (preTokens)', async () => {
    const r = await claudeTranscriptReader(fixturePath('agents', 'claude-compacted.jsonl')).read();
    assert.deepEqual(r.compaction, { at: '2026-11-21T10:05:00.000Z', percent: 83.5 });
  });

  it('sees a boundary appended while watching, and keeps it after the next call', async () => {
    const file = path.join(await makeTempDir('compaction-'), 't.jsonl');
    await fs.writeFile(file, claudeCall({ input: 150_000 }));
    const reader = claudeTranscriptReader(file);
    assert.equal((await reader.read()).compaction, undefined);
    await fs.appendFile(file, boundary('2026-11-21T10:05:00.000Z', 170_000) + claudeCall({ input: 30_000 }));
    const r = await reader.read();
    assert.ok(r.known);
    assert.equal(r.usedTokens, 30_000, 'the reading is the call after the compaction');
    assert.deepEqual(r.compaction, { at: '2026-11-21T10:05:00.000Z', percent: 85 });
  });

  const reading: ContextResult = {
    known: true, source: 'claude', sessionId: 's', usedTokens: 30_000, windowTokens: 200_000, percent: 15, compactAtPercent: 83.5,
    at: '2026-11-21T10:06:00.000Z', compaction: { at: '2026-11-21T10:05:00.000Z', percent: 84.2 },
  };
  const at = Date.parse('2026-11-21T10:05:00.000Z');

  it('is uncovered with no packet, or only an old one; covered by one written shortly before or after', () => {
    assert.equal(uncoveredCompaction(reading, [])?.text, 'compacted at 84 % without a handoff');
    assert.equal(uncoveredCompaction(reading, [at - COMPACTION_GRACE_MS - 60_000])?.text, 'compacted at 84 % without a handoff');
    assert.equal(uncoveredCompaction(reading, [at - 2 * 60_000]), null);
    assert.equal(uncoveredCompaction(reading, [at + 5 * 60_000]), null);
    assert.equal(uncoveredCompaction({ ...reading, compaction: undefined }, []), null);
    assert.equal(uncoveredCompaction({ ...reading, compaction: { at: reading.at } }, [])?.text, 'compacted without a handoff');
  });

  it('the status bar tooltip says so with Generate Handoff, and stops once a packet covers it', () => {
    const s = { folder: { name: 'ws' }, trusted: true, clean: null, phaseMessage: null, packets: [], activePacket: null, context: reading, budget: 'ok' } as unknown as WorkbenchUiState;
    const tip = statusView(s).tooltip;
    assert.match(tip, /Compacted at 84 % without a handoff\.\*\* \[Generate Handoff\]\(command:sessionHandoff\.generateHandoff\)/);
    const covered = { ...s, packets: [{ writtenAt: at + 60_000 }] } as unknown as WorkbenchUiState;
    assert.doesNotMatch(statusView(covered).tooltip, /without a handoff/);
  });
});
