import * as assert from 'node:assert/strict';
import { isTestCommand, outcomeOf, startedAtIso } from '../../../src/core/artifacts/commands';

/** One invocation per runner family that only its own rule recognises (not a bare runner name like `jest`). */
const RUNNERS = [
  'npm test', 'yarn run test:unit', 'pnpm run test', 'bun test',
  'python -m unittest', 'python3 -m nose', 'python3.12 -m nose2',
  'go test',
  'cargo test', 'cargo nextest',
  'mvn verify', 'mvnw -q -B test',
  'gradle check', 'gradlew --info test',
  'rake test', 'rails test', 'bundle exec rails test',
  'dotnet test',
  'make test', 'make check',
  'deno test',
  'mix test',
];

describe('recognising test commands', () => {
  it('recognises each runner alone, after other words, called by its path, and followed by arguments', () => {
    for (const r of RUNNERS) {
      assert.ok(isTestCommand(r), r);
      assert.ok(isTestCommand(`cd app && ${r} --verbose`), `cd app && ${r} --verbose`);
      assert.ok(isTestCommand(`/usr/local/bin/${r}`), `/usr/local/bin/${r}`);
      assert.ok(isTestCommand(r.split(' ')), `argv of ${r}`);
    }
  });

  it("does not take a runner's name inside a longer word for the runner", () => {
    for (const r of RUNNERS.filter((x) => !x.startsWith('bundle '))) assert.ok(!isTestCommand(`x${r}`), `x${r}`);
    assert.ok(!isTestCommand('mongo test'), 'the mongo shell on a database named test');
    assert.ok(isTestCommand('xbundle exec rake test'), 'rake test is still a whole word there');
  });

  it('reads any whitespace between the words as one space', () => {
    for (const c of ['npm  run\ttest', 'go\ntest ./...', 'python3  -m   unittest', 'mvn  -q \t verify', 'bundle  exec\trake  test', 'npx  playwright \t test']) {
      assert.ok(isTestCommand(c), JSON.stringify(c));
    }
    assert.ok(isTestCommand(['cargo', ' test ', '--', '--nocapture']));
  });

  it('recognises runners started through npx and friends', () => {
    for (const c of ['npx jest', 'pnpx vitest run', 'bunx mocha', 'npx playwright test', 'cd web && npx jest --ci']) assert.ok(isTestCommand(c), c);
    for (const c of ['npx prettier .', 'npx playwright install', 'npx tsc -p .']) assert.ok(!isTestCommand(c), c);
  });
});

describe('the outcome of a recorded command', () => {
  it('calls a missing exit a timeout when the error says so, in any case', () => {
    for (const error of ['Timed out after 30s', 'TIMEOUT', 'command timed-out', 'Deadline exceeded']) {
      assert.equal(outcomeOf({ command: 'x', exit_code: null, error }), 'timeout', error);
    }
    for (const error of [null, '', 'spawn ENOENT', 'killed by signal SIGTERM']) {
      assert.equal(outcomeOf({ command: 'x', exit_code: null, error }), 'error', String(error));
    }
    assert.equal(outcomeOf({ command: 'x', exit_code: 1, error: 'timeout' }), 'failed');
  });
});

describe('the start time of a recorded command', () => {
  it('has none for a number that is no time', () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) assert.equal(startedAtIso(v), null, String(v));
  });
});
