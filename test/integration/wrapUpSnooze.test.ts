import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../src/extension';
import type { ShowWrapUp } from '../../src/ui/wrapUp';
import { claudeCall } from '../unit/helpers/agentLines';
import { extensionApi, stateWhere } from './helpers/extensionApi';
import { inHostEnv, waitFor } from './helpers/testEnv';

/** One notification the prompter asked for, and the button the test picked. */
interface Shown {
  level: Parameters<ShowWrapUp>[0];
  message: string;
  actions: readonly string[];
}

// Each test speaks as a new agent session (a new sessionId in the same transcript), because the
// prompter fires once per level per session; the 200,000-token window makes 120,000 = 60 % (wrap-up,
// default warnAt 0.5) and 160,000 = 80 % (urgent, default urgeAt 0.75).
describe('wrap-up Snooze (in the extension host)', () => {
  let api: ExtensionApi;
  let file = '';
  let original: { sessionId: string; usedTokens: number } | undefined;
  let lastSession = '';
  let answer: (level: Shown['level']) => string | undefined = () => undefined;
  const shown: Shown[] = [];
  let restoreShow: vscode.Disposable | undefined;
  let n = 0;

  const promptsFor = (sessionId: string) => api.wrapUp.prompts.filter((p) => p.sessionId === sessionId);

  /** Appends an assistant call for `sessionId` and waits until the extension has read it. */
  async function agentAt(sessionId: string, usedTokens: number, timeoutMs = 15_000): Promise<void> {
    const line = claudeCall({ sessionId, cwd: inHostEnv().workspace, id: `msg_snooze_${++n}`, input: 10, cacheRead: usedTokens - 10, timestamp: new Date().toISOString() });
    await fs.appendFile(file, line);
    lastSession = sessionId;
    // The prompter listens to the same state change, synchronously: once the state shows the
    // reading, any prompt it caused has been recorded.
    await stateWhere(api, (s) => s.context.known && s.context.sessionId === sessionId && s.context.usedTokens === usedTokens, `the reading of ${sessionId} at ${usedTokens} tokens`, timeoutMs);
  }

  before(async function () {
    // The first append may wait for the transcript watcher to go live (or the 30 s fallback poll).
    this.timeout(60_000);
    api = await extensionApi();
    const s = await stateWhere(api, (x) => x.context.known, 'a context reading');
    assert.ok(s.context.known && s.context.file);
    file = s.context.file;
    original = { sessionId: s.context.sessionId, usedTokens: s.context.usedTokens };
    restoreShow = api.wrapUp.overrideShow(async (level, message, actions) => {
      shown.push({ level, message, actions });
      return answer(level);
    });
    // Warm-up: one more token in the original session (no new level) proves appends are being read.
    await agentAt(original.sessionId, original.usedTokens + 1, 45_000);
  });

  after(async () => {
    answer = () => undefined;
    // End any snooze this suite left (its expiry re-prompts the current session, into the seam).
    if (lastSession) {
      const before = promptsFor(lastSession).length;
      api.wrapUp.snooze(1);
      await waitFor(() => promptsFor(lastSession).length > before, 20000, 'the snooze to end');
    }
    // Give the transcript its original session back, so the status bar reads as before.
    if (original) await agentAt(original.sessionId, original.usedTokens);
    restoreShow?.dispose();
  });

  it('without a snooze, crossing the urge level shows the urgent prompt with a Snooze button', async () => {
    const session = `snooze-control-${Date.now()}`;
    const before = shown.length;
    await agentAt(session, 160_000);
    assert.deepEqual(promptsFor(session).map((p) => [p.level, p.percent]), [['urgent', 80]]);
    assert.equal(shown.length, before + 1, 'one notification shown');
    assert.equal(shown.at(-1)?.level, 'urgent');
    assert.match(shown.at(-1)?.message ?? '', /80%/);
    assert.ok(shown.at(-1)?.actions.includes('Snooze'));
  });

  it('after the Snooze command, a crossing in the snooze window shows nothing', async () => {
    await vscode.commands.executeCommand('sessionHandoff.snoozeWrapUp');
    const session = `snooze-command-${Date.now()}`;
    const before = shown.length;
    await agentAt(session, 160_000);
    assert.equal(api.statusBar.current.text.includes('80%'), true, 'the meter moved, so the reading arrived');
    assert.deepEqual(promptsFor(session), [], 'no prompt recorded while snoozed');
    assert.equal(shown.length, before, 'no notification while snoozed');
  });

  it('when the snooze ends, the level reached meanwhile prompts once', async () => {
    // The reading arrives inside a snooze far longer than any machine takes to deliver it; only then is
    // the window shortened to end on its own timer, so a slow machine cannot move the crossing past it.
    api.wrapUp.snooze(10 * 60_000); // replaces the 15-minute snooze of the previous test
    const session = `snooze-expiry-${Date.now()}`;
    await agentAt(session, 160_000);
    assert.deepEqual(promptsFor(session), [], 'silent inside the window');
    const windowMs = 300;
    const ends = Date.now() + windowMs;
    api.wrapUp.snooze(windowMs);
    assert.deepEqual(promptsFor(session), [], 'still silent until the shortened window ends');
    const [prompt] = await waitFor(() => (promptsFor(session).length ? promptsFor(session) : undefined), 30_000, 'the prompt after the snooze');
    assert.ok(prompt && prompt.at >= ends - 5, 'prompted when the window ended, not before');
    assert.equal(prompt?.level, 'urgent');
    assert.equal(promptsFor(session).length, 1);
  });

  it("picking Snooze on the wrap-up notification silences the next level's prompt", async () => {
    answer = (level) => (level === 'wrap-up' ? 'Snooze' : undefined);
    const session = `snooze-button-${Date.now()}`;
    await agentAt(session, 120_000);
    assert.deepEqual(promptsFor(session).map((p) => p.level), ['wrap-up'], 'the wrap-up prompt was shown');
    answer = () => undefined;
    const before = shown.length;
    await agentAt(session, 160_000);
    assert.deepEqual(promptsFor(session).map((p) => p.level), ['wrap-up'], 'no urgent prompt inside the snooze');
    assert.equal(shown.length, before);
  });
});
