import * as assert from 'node:assert/strict';
import { isTestCommand, normalizeCommand, outcomeOf, startedAtIso } from '../../../src/core/artifacts/commands';

describe('feedback command helpers', () => {
  it('recognises test runners and nothing else', () => {
    for (const c of ['pytest -k partial', 'python -m pytest', 'npm test', 'pnpm run test:unit', 'yarn test', 'npx jest', 'vitest run', 'mocha out/**/*.js',
      'go test ./...', 'cargo test', 'mvn -q test', './gradlew test', 'bundle exec rspec', 'rake test', 'tox -e py312', 'dotnet test']) {
      assert.ok(isTestCommand(c), c);
    }
    assert.ok(isTestCommand(['pytest', 'tests/test_refund.py']));
    for (const c of ['git status', 'npm install', 'ruff check .', 'echo pytest-like', 'cat test.txt']) assert.ok(!isTestCommand(c), c);
  });

  it('classifies exits: 0 ok, non-zero failed, null timeout or error', () => {
    assert.equal(outcomeOf({ command: 'x', exit_code: 0 }), 'ok');
    assert.equal(outcomeOf({ command: 'x', exit_code: 2 }), 'failed');
    assert.equal(outcomeOf({ command: 'x', exit_code: null, error: 'timeout after 30.0s' }), 'timeout');
    assert.equal(outcomeOf({ command: 'x', exit_code: null, error: 'spawn ENOENT' }), 'error');
    assert.equal(outcomeOf({ command: 'x' }), 'error');
  });

  it('normalizes commands and start times', () => {
    assert.equal(normalizeCommand(['pytest', 'tests/a.py']), normalizeCommand('  pytest   tests/a.py '));
    assert.equal(startedAtIso(1764400000), '2025-11-29T07:06:40.000Z');
    assert.equal(startedAtIso(1764400000000), '2025-11-29T07:06:40.000Z');
    assert.equal(startedAtIso('2025-11-29T07:06:40Z'), '2025-11-29T07:06:40.000Z');
    assert.equal(startedAtIso(null), null);
  });
});
