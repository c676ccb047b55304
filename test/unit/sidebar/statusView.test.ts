import assert from 'node:assert/strict';
import type { ContextResult } from '../../../src/core/context/types';
import { parseSettings } from '../../../src/ui/settings';
import { budgetFor } from '../../../src/ui/state/contextPort';
import type { WorkbenchUiState } from '../../../src/ui/state/types';
import { statusView } from '../../../src/ui/statusView';

const reading = (percent: number): ContextResult => ({
  known: true,
  source: 'claude',
  sessionId: 'sess-42',
  usedTokens: Math.round(percent * 2000),
  windowTokens: 200_000,
  percent,
  compactAtPercent: 83.5,
  at: '2026-01-01T00:00:00Z',
});

function state(context: ContextResult, over: Partial<WorkbenchUiState> = {}): WorkbenchUiState {
  const settings = parseSettings(() => undefined);
  return {
    folder: { uri: { fsPath: '/ws' }, name: 'ws', index: 0 } as unknown as WorkbenchUiState['folder'],
    trusted: true,
    phase: 'ready',
    phaseMessage: null,
    workbenchDir: '/ws',
    outputDir: '/ws/outputs/handoff',
    snapshot: null,
    diagnostics: [],
    git: null,
    clean: { clean: false, checks: [{ check: 'working-tree', title: 'Working tree', passed: false, summary: '2 changes', findings: [] }], findings: [{ check: 'working-tree', kind: 'uncommitted-changes', detail: '2 changes', fix: 'commit' }] },
    packets: [],
    activePacket: null,
    risks: [],
    context,
    candidates: [],
    session: null,
    budget: budgetFor(context, settings),
    updatedAt: 0,
    ...over,
  };
}

describe('status bar view', () => {
  it('shows 49.6 % as 50% with the warning background at the default 50 % threshold', () => {
    const v = statusView(state(reading(49.6)));
    assert.match(v.text, /\b50%/);
    assert.equal(v.background, 'warning');
    assert.match(v.tooltip, /49\.6%/);
    assert.match(v.tooltip, /sess\\-42/);
    assert.match(v.tooltip, /99,200 of 200,000/);
    assert.match(v.tooltip, /compacts at ≈ 84%/);
    assert.match(v.tooltip, /Working tree/);
    assert.match(v.text, /\$\(warning\)/);
  });

  it('uses the error background from urgeAt and none below warnAt', () => {
    assert.equal(statusView(state(reading(80))).background, 'error');
    assert.equal(statusView(state(reading(30))).background, null);
  });

  it('shows an unknown reading as —, never 0%', () => {
    const v = statusView(state({ known: false, reason: 'no session found' }));
    assert.match(v.text, /—/);
    assert.doesNotMatch(v.text, /0%/);
    assert.match(v.tooltip, /no session found/);
    assert.equal(v.background, null);
  });

  it('escapes agent-written text in the Markdown tooltip', () => {
    const r = reading(10);
    const v = statusView(state(r.known ? { ...r, sessionId: '[x](command:evil)' } : r));
    assert.ok(v.tooltip.includes('\\[x\\]\\(command\\:evil\\)'), v.tooltip);
    assert.doesNotMatch(v.tooltip, /[^\\]\[x\]/);
  });

  it('shows the clean glyph when the workbench is clean', () => {
    const v = statusView(state(reading(10), { clean: { clean: true, checks: [], findings: [] } }));
    assert.match(v.text, /\$\(pass\)/);
  });
});
