import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isFailure, isTestCommand, isTestOutput, notAFailure } from '../../../src/core/artifacts/commands';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { checkFeatureBoard } from '../../../src/core/clean/featureBoard';
import { checkTests } from '../../../src/core/clean/testsCheck';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionCommand, SessionFacts } from '../../../src/core/session/model';
import { makeTempDir } from '../helpers/fixtures';

/** Issue 20 item 6: the Tests check knows the common runners; searches and probes are no failures. */

const RUNNERS = [
  'npx hardhat test', 'forge test', 'cargo test', 'go test ./...', 'pytest -q', 'npx vitest run', 'npx jest --ci', 'npx mocha',
  'bun test', 'deno test', 'bundle exec rspec', 'vendor/bin/phpunit', 'dotnet test', 'gradle test', './gradlew test', 'mvn test',
  'make test', 'make check', 'ctest --output-on-failure', 'tox -e py312', 'npm test', 'npm t', 'npm run test', 'yarn test', 'pnpm test', 'bun run test',
];

let ordinal = 0;
const cmd = (command: string, exit: number | null, extra: Partial<SessionCommand> = {}): SessionCommand => ({
  ordinal: ordinal++, id: `c${ordinal}`, command, exit_code: exit, timed_out: false, unfinished: null, rejected: false, started_at: null,
  duration_ms: null, stdout_tail: '', stderr_tail: null, error: null, agent_note: null, user_reply: null, ...extra,
});

async function snapshotWith(over: Partial<SessionFacts>) {
  const dir = await makeTempDir('handoff-runs-');
  const commands = over.commands ?? [];
  const facts: SessionFacts = {
    agent: 'claude-code', file: path.join(dir, 's.jsonl'), sessionId: 'abcdef12-0000', cwd: dir, branch: null, firstUserRequest: 'x', latestUserRequest: 'x',
    userRequests: ['x'], commands, commandCount: commands.length, rejected: [], rejectedCount: 0, filesTouched: [], todos: null, lastAssistantMessage: null,
    apiErrorLines: 0, revision: 1, badLines: [], ...over,
  };
  return mergeSession(await loadWorkbench(dir, { feedbackK: 5, maxCommands: 30 }), facts, { workspaceDir: dir, feedbackK: 5, maxCommands: 30 });
}

describe('test runs and what is no failure', () => {
  it('knows every common runner, and package-manager test scripts', () => {
    for (const r of RUNNERS) assert.ok(isTestCommand(r), r);
    for (const r of ['npx hardhat compile', 'forge build', 'npm run build', 'go vet ./...']) assert.ok(!isTestCommand(r), r);
  });

  it('reads a runner\'s summary in the output as a test run ("69 passing"), not any number', () => {
    assert.ok(isTestOutput('  Token\n    ✔ mints\n\n  69 passing (2s)\n'));
    assert.ok(isTestOutput('===== 3 passed, 1 skipped in 0.42s ====='));
    assert.ok(isTestOutput('Tests:       1 failed, 12 passed, 13 total'));
    assert.ok(isTestOutput('test result: ok. 9 passed; 0 failed'));
    assert.ok(!isTestOutput('69 passing cars were counted'));
    assert.ok(!isTestOutput('copied 12 files'));
  });

  it('the Tests check names `npx hardhat test` that printed "69 passing" as the latest test run, and a script that printed it too', async () => {
    const hardhat = await snapshotWith({ commands: [cmd('npx hardhat test', 0, { stdout_tail: '  69 passing (2s)' })] });
    const r = checkTests(hardhat);
    assert.equal(r.unknown, undefined);
    assert.match(r.summary, /^The latest test run passed: `npx hardhat test`/);
    const script = await snapshotWith({ commands: [cmd('node scripts/run-all.js', 1, { stdout_tail: '  68 passing (2s)\n  1 failing' })] });
    assert.match(checkTests(script).summary, /^The latest test run failed with exit 1 and no open risk names it: `node scripts\/run-all\.js`/);
  });

  it('a search that found nothing, a probe and a run stopped on purpose are no failures; a real failure is one', () => {
    const cases: [Parameters<typeof notAFailure>[0], string | null][] = [
      [{ command: 'grep -n "retry\\|backoff" src/a.py', exit_code: 1, stdout_tail: '', interpretation: 'No matches found' }, 'search found nothing'],
      [{ command: 'cd services/sync && rg -l moment src', exit_code: 1, stdout_tail: '' }, 'search found nothing'],
      [{ command: 'git grep -n TODO', exit_code: 1, stdout_tail: '(Bash completed with no output)' }, 'search found nothing'],
      [{ command: 'find . -name "*.orig"', exit_code: 1, stdout_tail: null }, 'search found nothing'],
      [{ command: 'test -f .env.local', exit_code: 1 }, 'a probe: the thing it looked for is not there'],
      [{ command: 'command -v poetry', exit_code: 1 }, 'a probe: the thing it looked for is not there'],
      [{ command: 'which forge', exit_code: 1 }, 'a probe: the thing it looked for is not there'],
      [{ command: 'ls build/out', exit_code: 2, stderr_tail: "ls: cannot access 'build/out': No such file or directory" }, 'a probe: the thing it looked for is not there'],
      [{ command: 'python -m ledger_sync.stub_provider', exit_code: null, unfinished: 'stopped' }, 'a background run stopped on purpose'],
      // A read-only command changed nothing: whatever its exit, it is an answer (issue 33).
      [{ command: 'grep -n x src/a.py', exit_code: 2, stderr_tail: 'grep: src/a.py: No such file or directory' }, 'a read-only command: its exit code is an answer, nothing changed'],
      [{ command: 'grep x a | head', exit_code: 1, stdout_tail: '' }, 'a read-only command: its exit code is an answer, nothing changed'],
      [{ command: 'rg x', exit_code: 1, stdout_tail: 'some output' }, 'a read-only command: its exit code is an answer, nothing changed'],
      [{ command: "sed -n '1,220p' src/app.ts", exit_code: 2, stderr_tail: 'sed: can\'t read src/app.ts' }, 'a read-only command: its exit code is an answer, nothing changed'],
      [{ command: 'cd web && git log --oneline -5', exit_code: 128 }, 'a read-only command: its exit code is an answer, nothing changed'],
      [{ command: 'diff -u a.txt b.txt', exit_code: 1, stdout_tail: '--- a.txt' }, 'the files differ (diff exits 1 when they do)'],
      [{ command: 'cmp out/a.bin out/b.bin', exit_code: 1 }, 'the files differ (diff exits 1 when they do)'],
      [{ command: 'python3 -m http.server 8001', exit_code: 1, stderr_tail: 'OSError: [Errno 98] Address already in use' }, 'a server was already running there'],
      [{ command: 'diff -u a.txt b.txt', exit_code: 2, stderr_tail: 'diff: b.txt: No such file' }, 'a read-only command: its exit code is an answer, nothing changed'],
      // Writers and real failures stay failures.
      [{ command: 'cat a.txt > b.txt', exit_code: 1 }, null],
      [{ command: "sed -i 's/a/b/' f.txt", exit_code: 1 }, null],
      [{ command: 'python3 -m http.server 8001', exit_code: 1, stderr_tail: 'Traceback: ImportError' }, null],
      [{ command: 'npm test', exit_code: 1, stdout_tail: '' }, null],
    ];
    for (const [record, why] of cases) {
      assert.equal(notAFailure(record), why, String(record.command));
      assert.equal(isFailure(record), why === null, String(record.command));
    }
  });

  it('the Feature board check is neutral for a session with no task tool, and checks a task list when there is one', async () => {
    const none = checkFeatureBoard(await snapshotWith({ todos: null }));
    assert.equal(none.unknown, true);
    assert.equal(none.passed, true);
    assert.match(none.summary, /no task list in this session/);
    const list = checkFeatureBoard(await snapshotWith({ todos: [{ content: 'a', status: 'in_progress', since: 0 }] }));
    assert.equal(list.unknown, undefined);
    assert.match(list.summary, /task list of the Claude Code session abcdef12 agrees with itself/);
  });
});
