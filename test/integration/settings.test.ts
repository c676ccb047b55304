import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { waitFor } from './helpers/testEnv';

describe('settings (in the extension host)', () => {
  it('applies new wrap-up thresholds to the status bar without a reload', async () => {
    const api = await extensionApi();
    await stateWhere(api, (s) => s.context.known, 'a context reading');
    const cfg = () => vscode.workspace.getConfiguration('sessionHandoff');
    const before = api.statusBar.current.background;
    assert.equal(before, 'warning');
    // Raised, not lowered: crossing a lower urgeAt would spend this session's one urgent prompt.
    try {
      await cfg().update('wrapUp.urgeAt', 0.8, vscode.ConfigurationTarget.Global);
      await cfg().update('wrapUp.warnAt', 0.6, vscode.ConfigurationTarget.Global);
      await waitFor(() => api.statusBar.current.background === null, 10000, 'no background under the higher thresholds');
      assert.equal(api.services.config.get().wrapUp.warnAt, 0.6);
    } finally {
      await cfg().update('wrapUp.warnAt', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('wrapUp.urgeAt', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(() => api.statusBar.current.background === before, 10000, 'the previous background again');
  });

  it('reports an invalid setting once in the log and keeps the default', async () => {
    const api = await extensionApi();
    const cfg = vscode.workspace.getConfiguration('sessionHandoff');
    try {
      await cfg.update('feedbackK', 500, vscode.ConfigurationTarget.Global);
      const s = await waitFor(() => {
        const x = api.services.config.get();
        return x.problems.length ? x : undefined;
      }, 5000, 'a settings problem');
      assert.equal(s.options.feedbackK, 5);
      assert.match(s.problems.join(' '), /feedbackK/);
    } finally {
      await cfg.update('feedbackK', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
