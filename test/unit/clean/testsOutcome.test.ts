import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { checkTests } from '../../../src/core/clean/testsCheck';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionCommand, SessionFacts, Unfinished } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { bashUse, claudeAssistant, claudeResult, claudeUserText } from '../session/sessionLines';

/** The Tests check words a test run with no exit code by what the session knows of it, never by a guess. */

const opts = { feedbackK: 5, maxCommands: 30 };

function sessionWith(dir: string, last: Partial<SessionCommand>): SessionFacts {
  const c: SessionCommand = {
    ordinal: 0, id: 'c0', command: 'npm test', exit_code: null, timed_out: false, unfinished: null, rejected: false, started_at: null,
    duration_ms: null, stdout_tail: null, stderr_tail: null, error: null, agent_note: null, user_reply: null, ...last,
  };
  return {
    agent: 'cline', file: path.join(dir, 'ui_messages.json'), sessionId: '1733000000000', cwd: dir, branch: null,
    firstUserRequest: 'Fix the tests', latestUserRequest: 'Fix the tests', userRequests: ['Fix the tests'], commands: [c], commandCount: 1,
    rejected: [], rejectedCount: 0, filesTouched: [], todos: null, lastAssistantMessage: null, apiErrorLines: 0, revision: 1, badLines: [],
  };
}

async function summaryFor(facts: (dir: string) => SessionFacts): Promise<string> {
  const dir = await makeTempDir('handoff-tests-outcome-');
  return checkTests(mergeSession(await loadWorkbench(dir, opts), facts(dir), { workspaceDir: dir, ...opts })).summary;
}

describe('Tests check: a run with no exit code, worded by its state', () => {
  const states: [Unfinished | null, string][] = [
    [null, 'has no exit status recorded'],
    ['no-result', 'has no exit status recorded'],
    ['background', 'went to the background and its outcome never came (still pending when the log ends)'],
    ['stopped', 'was stopped on purpose before it ended (no exit status)'],
    ['completed', 'completed with no exit status (a monitored stream that ended)'],
    ['running', 'was still running when the log was last written (no exit status yet)'],
    ['interrupted', 'was interrupted before it finished'],
    ['timeout', 'timed out with no exit status'],
    ['cancelled', 'never ran (a parallel call failed first)'],
  ];
  for (const [unfinished, words] of states) {
    it(`${unfinished ?? 'no state'}: "${words}"`, async () => {
      const summary = await summaryFor((d) => sessionWith(d, { unfinished }));
      assert.equal(summary, `The latest test run ${words} and no open risk names it: \`npm test\`.`);
      assert.ok(!/timeout or spawn error/.test(summary));
    });
  }

  it('a tool error says its reason', async () => {
    const summary = await summaryFor((d) => sessionWith(d, { unfinished: 'error', error: 'did not run: blocked by a PreToolUse hook\nmore' }));
    assert.equal(summary, 'The latest test run ended without an exit status (did not run: blocked by a PreToolUse hook) and no open risk names it: `npm test`.');
  });

  it('a Claude Code test run sent to the background whose notice never came is pending, from the transcript', async () => {
    const dir = await makeTempDir('handoff-tests-outcome-');
    const file = path.join(dir, 's.jsonl');
    await fs.writeFile(file, `${[
      claudeUserText('Run the suite'),
      claudeAssistant([bashUse('b1', 'python -m pytest -q', { run_in_background: true })]),
      claudeResult('b1', 'Command running in background with ID: bt4k8w2ns', { toolUseResult: { stdout: '', stderr: '', interrupted: false, backgroundTaskId: 'bt4k8w2ns' } }),
    ].join('\n')}\n`);
    const facts = await readSessionFile(file, 'claude-code');
    assert.ok(facts);
    const r = checkTests(mergeSession(await loadWorkbench(dir, opts), facts, { workspaceDir: dir, ...opts }));
    assert.match(r.summary, /^The latest test run went to the background and its outcome never came \(still pending when the log ends\)/);
  });
});
