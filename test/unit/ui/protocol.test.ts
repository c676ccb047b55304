import assert from 'node:assert/strict';
import { parseHostMessage, parsePanelState, parseWebviewMessage } from '../../../src/ui/protocol';
import { buildTestPacket } from '../helpers/packetBuilder';

describe('panel protocol', () => {
  const model = {
    packet: buildTestPacket(),
    packetDir: '/tmp/x/outputs/handoff/sess-1',
    freshness: { stale: true, reasons: ['HEAD moved 2 commits'] },
    acks: [{ id: 'verify:X1', by: 'dev', at: '2026-01-01T00:00:00Z' }],
    folderName: 'demo',
    folderUri: 'file:///tmp/x',
    pinned: false,
    actions: ['copyPrompt', 'copyJson', 'openMarkdown', 'regenerate'],
    writtenAt: 1_764_400_000_000,
  };

  it('accepts every webview intent it defines', () => {
    for (const type of ['ready', 'copyPrompt', 'copyJson', 'openMarkdown', 'regenerate', 'generate'] as const) {
      assert.deepEqual(parseWebviewMessage({ type }), { type });
    }
    assert.deepEqual(parseWebviewMessage({ type: 'openFile', path: 'src/a.ts' }), { type: 'openFile', path: 'src/a.ts' });
  });

  it('rejects malformed webview messages', () => {
    for (const bad of [null, 'ready', 42, {}, { type: 'eval', code: 'x' }, { type: 'openFile' }, { type: 'openFile', path: 3 }, { type: 'openFile', path: '' }]) {
      assert.equal(parseWebviewMessage(bad), null, JSON.stringify(bad));
    }
  });

  it('accepts a render of a valid packet and keeps its text as data', () => {
    const packet = buildTestPacket({ summary: '<img src=x onerror=alert(1)>' });
    const msg = parseHostMessage({ type: 'render', model: { ...model, packet } });
    assert.ok(msg && msg.type === 'render');
    assert.equal(msg.model.packet.summary, '<img src=x onerror=alert(1)>');
    assert.equal(msg.model.freshness?.stale, true);
  });

  it('rejects a render whose packet breaks the schema', () => {
    const broken = { ...buildTestPacket(), next_action: '' };
    assert.equal(parseHostMessage({ type: 'render', model: { ...model, packet: broken } }), null);
    assert.equal(parseHostMessage({ type: 'render', model: { ...model, acks: [{ id: 1 }] } }), null);
    assert.equal(parseHostMessage({ type: 'copied', what: 'everything' }), null);
  });

  it('restores only a well-formed panel state', () => {
    assert.deepEqual(parsePanelState({ folderUri: 'file:///w', packetId: 'p' }), { folderUri: 'file:///w', packetId: 'p' });
    assert.deepEqual(parsePanelState({ packetId: 7 }), {});
    assert.deepEqual(parsePanelState(undefined), {});
  });
});
