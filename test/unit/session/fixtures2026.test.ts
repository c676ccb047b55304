import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { assertMatchesExpected } from './expectedFacts';
import type { TranscriptFixture } from './sessionFixture';
import { expectedFor, fixtureText } from './sessionFixture';

async function derive(name: TranscriptFixture): Promise<{ cwd: string; facts: SessionFacts; expected: Record<string, unknown> }> {
  const cwd = await makeTempDir('handoff-session-');
  const file = path.join(cwd, `${name}.jsonl`);
  await fs.writeFile(file, await fixtureText(name, cwd));
  const facts = await readSessionFile(file, name.startsWith('claude-') ? 'claude-code' : 'codex');
  assert.ok(facts, 'the session file is read');
  return { cwd, facts, expected: await expectedFor(name, cwd) };
}

describe('session readers on the 2026 transcript fixtures', () => {
  for (const name of ['claude-tasks', 'claude-bigline', 'codex-2026'] as const) {
    it(`${name} yields its .expected.json`, async () => {
      const { facts, expected } = await derive(name);
      assertMatchesExpected(facts, expected);
    });
  }

  it('claude-tasks: background outcomes, the monitor, the stop, the search with no match and the mid-turn prompt', async () => {
    const { cwd, facts } = await derive('claude-tasks');
    const all = [...facts.commands, ...facts.rejected];
    const full = all.find((c) => c.id === 'toolu_01JScN6q5nctrNLGVnnAXTCQ');
    // Resolved by its notice, not "did not complete".
    assert.deepEqual([full?.exit_code, full?.unfinished, full?.timed_out], [1, null, false]);
    assert.match(full?.error ?? '', /failed with exit code 1/);
    const monitor = all.find((c) => c.tool === 'Monitor');
    assert.deepEqual([monitor?.background?.task_id, monitor?.background?.status, monitor?.unfinished], ['byzcj7zmb', 'completed', 'completed']);
    const grep = all.find((c) => c.command.startsWith('grep'));
    assert.deepEqual([grep?.exit_code, grep?.interpretation], [1, 'No matches found']);
    assert.deepEqual(facts.cwds, [cwd, path.join(cwd, 'services', 'sync')]);
    assert.deepEqual(facts.latestRequest, { text: 'keep the max backoff under 30s, the nightly cron window is tight', line: 53 });
    assert.deepEqual(facts.unanswered, []);
    assert.deepEqual(facts.answers, []);
    assert.match(facts.closing?.text ?? '', /^Status: ProviderClient now retries/);
    assert.match(facts.closing?.text ?? '', /Question for you: should the cursor be written before each retry/);
  });

  it('codex-2026: the rolled-back request is not the task, the aborted command may have partially executed', async () => {
    const { facts } = await derive('codex-2026');
    assert.equal(facts.firstRequest?.line, 26);
    assert.equal(facts.latestRequest?.line, 26);
    assert.match(facts.closing?.text ?? '', /Two questions before I go further/);
    assert.equal(facts.closing?.line, 62);
    const aborted = facts.commands.find((c) => c.command === 'npm install moment@3.0.0');
    assert.deepEqual([aborted?.rolled_back, aborted?.unfinished], [true, 'interrupted']);
    assert.ok(facts.commands.filter((c) => !c.rolled_back).every((c) => c.exit_code !== null));
    assert.deepEqual(facts.unanswered, []);
  });

  it('edits: each applied patch with its call line and the command that came after it', async () => {
    const { cwd, facts } = await derive('codex-2026');
    const at = (f: string) => path.join(cwd, 'src', 'dates', f);
    // Patch at line 41 after `npm install dayjs` (command 4); patch at line 50 after the failing `npm test` (command 5).
    assert.deepEqual(facts.edits, [
      { file: at('format.ts'), line: 41, beforeCommand: 5 },
      { file: at('parse.ts'), line: 41, beforeCommand: 5 },
      { file: at('parse.ts'), line: 50, beforeCommand: 6 },
    ]);
    const claude = await derive('claude-tasks');
    const sync = (f: string) => path.join(claude.cwd, 'services', 'sync', f);
    assert.deepEqual(claude.facts.edits?.map((e) => [path.relative(claude.cwd, e.file), e.line, e.beforeCommand]), [
      [path.relative(claude.cwd, sync('src/ledger_sync/provider.py')), 33, 3],
      [path.relative(claude.cwd, sync('tests/test_provider.py')), 39, 3],
      [path.relative(claude.cwd, sync('src/ledger_sync/provider.py')), 47, 5],
    ]);
  });
});
