import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { describeSources } from '../../../src/core/packet/sources';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { actionsFor } from '../../../src/ui/panel/model';
import { mergeSession } from '../../../src/core/session/merge';
import { VscodeTaskReader } from '../../../src/core/session/taskReader';
import { buildTestPacket } from '../helpers/packetBuilder';
import { makeTempDir } from '../helpers/fixtures';
import { placeTasks, TASK_IDS, taskDir } from './vscodeAgentFixture';

describe('a packet from a Cline or Roo Code task', () => {
  it('names the agent and the task in its sources, and the panel line says "From Roo Code task …"', async () => {
    const folder = await fs.realpath(await makeTempDir('handoff-vscode-packet-'));
    const root = await placeTasks('roo-condense', folder);
    const facts = await new VscodeTaskReader(taskDir(root, 'roo-condense'), 'roo', { cwd: folder }).facts();
    assert.ok(facts);
    const merged = mergeSession(await loadWorkbench(folder, { feedbackK: 5, maxCommands: 30 }), facts, { workspaceDir: folder, feedbackK: 5, maxCommands: 30 });
    const label = `roo:${TASK_IDS['roo-condense']}`;
    assert.equal(merged.origins?.['commands'], label);
    assert.equal(merged.origins?.['task_list'], label);
    assert.equal(merged.origins?.['session'], label);
    assert.equal(merged.session?.displayName, 'Roo Code task 019ad5c4-8e2a');
    assert.equal(merged.feedback?.derivedFrom, 'Roo Code task 019ad5c4-8e2a');
    assert.deepEqual(merged.featureList?.features.map((f) => f.status), ['done', 'in_progress', 'todo']);
    const line = describeSources({ commands: label, task_list: label, changed_files: `git + ${label}`, next_action: 'task list' });
    assert.equal(line, 'From Roo Code task 019ad5c4-8e2a (commands, task list, changed files); git (changed files); next action from the task list.');
    assert.match(describeSources({ commands: 'cline:1764580000000' }), /^From Cline task 1764580000000 \(commands\)/);
  });

  it('its restart prompt tells how to start the next task with it; a Claude Code packet\'s prompt is as before', () => {
    const roo = renderRestartPrompt(buildTestPacket({ sources: { session: 'roo:019ad5c4-8e2a', commands: 'roo:019ad5c4-8e2a' } }));
    assert.match(roo, /continuing work handed off from a previous Roo Code task/);
    assert.match(roo, /open Roo Code, start a new task and paste this whole prompt as the task's first message/);
    assert.match(renderRestartPrompt(buildTestPacket({ sources: { session: 'zoo:019ad5c4-8e2a' } })), /open Zoo Code, start a new task and paste this whole prompt/);
    assert.match(describeSources({ commands: 'zoo:019ad5c4-8e2a' }), /^From Zoo Code task 019ad5c4 \(commands\)/);
    const cline = renderRestartPrompt(buildTestPacket({ sources: { session: 'cline:1764580000000' } }));
    assert.match(cline, /open Cline, start a new task/);
    const claude = renderRestartPrompt(buildTestPacket({ sources: { session: 'claude:7f3e2a91' } }));
    assert.match(claude, /continuing work handed off from a previous session \(/);
    assert.doesNotMatch(claude, /start a new task/);
  });
});

describe('the panel of a packet from a task', () => {
  it('offers Copy as New Task next to Copy Restart Prompt, and only for a Cline / Roo Code / Kilo Code task', () => {
    const entry = (sources: Record<string, string>, status: 'active' | 'archived' = 'active') =>
      ({ id: 'p', dir: '/p', packet: buildTestPacket({ sources, status }), freshness: { stale: false, reasons: [] } }) as Parameters<typeof actionsFor>[0];
    assert.deepEqual(actionsFor(entry({ session: 'roo:019a' })), ['copyPrompt', 'copyAsNewTask', 'copyJson', 'copyPrSummary', 'openMarkdown', 'regenerate']);
    assert.deepEqual(actionsFor(entry({ session: 'kilo:6f1c' })).slice(0, 2), ['copyPrompt', 'copyAsNewTask']);
    assert.deepEqual(actionsFor(entry({ session: 'zoo:019a' })).slice(0, 2), ['copyPrompt', 'copyAsNewTask']);
    assert.deepEqual(actionsFor(entry({ session: 'claude:7f3e' })), ['copyPrompt', 'copyJson', 'copyPrSummary', 'openMarkdown', 'regenerate']);
    assert.deepEqual(actionsFor(entry({ session: 'cline:1764' }, 'archived')), ['generate']);
  });
});
