import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { codexMeta, codexTokens } from '../unit/helpers/agentLines';
import { storedZstd } from '../unit/helpers/zstdFrame';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { inHostEnv, waitFor } from './helpers/testEnv';

const THREAD = '019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68';

describe('a compressed Codex rollout (in the extension host)', () => {
  it('drives the meter, and stays the same session when Codex makes it plain again on resume', async function () {
    // A rollout in an old date folder is found by the next full look (the editor's fallback refresh runs every 30 s).
    this.timeout(120_000);
    const api = await extensionApi();
    const env = inHostEnv();
    await stateWhere(api, (s) => s.context.known, 'a context reading');
    const plain = path.join(env.codexHome, 'sessions', '2026', '11', '20', `rollout-2026-11-20T16-00-00-${THREAD}.jsonl`);
    const zst = `${plain}.zst`;
    const text = codexMeta({ id: THREAD, cwd: env.workspace }) + codexTokens(129_200);
    await fs.mkdir(path.dirname(plain), { recursive: true });
    try {
      // (129 200 − 12 000) / (258 400 − 12 000) = 47.6 %: Codex's own footer figure.
      await fs.writeFile(zst, storedZstd(Buffer.from(text)));
      const s = await stateWhere(api, (x) => x.context.known && x.context.file === zst, 'the reading from the .jsonl.zst', 60000);
      assert.ok(s.context.known);
      assert.equal(s.context.sessionId, THREAD);
      await waitFor(() => api.statusBar.current.text.includes('48%'), 10000, 'status bar at 48%');
      assert.match(api.statusBar.current.tooltip, /Codex/);

      // Resumed: the plain file comes back (and grows), the compressed one goes.
      await fs.writeFile(plain, text + codexTokens(160_000));
      await fs.rm(zst);
      const r = await stateWhere(api, (x) => x.context.known && x.context.file === plain, 'the reading from the plain rollout', 20000);
      assert.ok(r.context.known);
      assert.equal(r.context.sessionId, THREAD);
      await waitFor(() => api.statusBar.current.text.includes('60%'), 10000, 'status bar at 60%');
    } finally {
      await fs.rm(path.join(env.codexHome, 'sessions'), { recursive: true, force: true });
      // The other tests start from the workspace's Claude Code reading.
      await stateWhere(api, (x) => x.context.known && x.context.file?.startsWith(env.claudeDir) === true, 'the Claude Code reading back', 20000);
    }
  });
});
