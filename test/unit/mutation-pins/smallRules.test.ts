import * as assert from 'node:assert/strict';
import { core } from './findingCore';
import { displayCommand, isTestCommand, normalizeCommand, outcomeOf, startedAtIso } from '../../../src/core/artifacts/commands';
import { testTargets } from '../../../src/core/clean/command';
import { evaluateClean } from '../../../src/core/clean/evaluate';
import { agentLabel, asShown, describeReading, shortPercent, statuslineText } from '../../../src/core/context/format';
import type { ContextReading, ContextResult } from '../../../src/core/context/types';
import { mapSeverity } from '../../../src/core/packet/severity';
import { cleanFacts, snapshotWith } from '../helpers/workbenchSnapshot';

const reading = (over: Partial<ContextReading> = {}): ContextReading => ({
  known: true, source: 'claude', sessionId: 's', usedTokens: 99_212, windowTokens: 200_000, percent: 49.6, compactAtPercent: 83.5, at: '', ...over,
});
const unknown: ContextResult = { known: false, source: 'codex', reason: 'no token_count yet' };

describe('small rules of the core', () => {
  describe('severity words', () => {
    it('maps every word for each level, ignoring case and spaces; anything else is a warning', () => {
      for (const w of ['block', 'blocker', 'blocking', 'critical', 'fatal', 'error', ' ERROR ']) assert.equal(mapSeverity(w), 'block', w);
      for (const w of ['high', 'major', 'severe', 'High']) assert.equal(mapSeverity(w), 'high', w);
      for (const w of ['info', 'low', 'minor', 'note', 'notice', ' Low']) assert.equal(mapSeverity(w), 'info', w);
      for (const w of ['warn', 'medium', '', null, undefined, 'blocked']) assert.equal(mapSeverity(w), 'warn', String(w));
    });
  });

  describe('recorded commands', () => {
    it('normalizes argv and strings to single spaces', () => {
      assert.equal(normalizeCommand(['npm', 'run', ' test ']), 'npm run test');
      assert.equal(normalizeCommand('  pytest\t-q   tests/ '), 'pytest -q tests/');
    });

    it('shows argv with arguments that need it quoted, and strings trimmed', () => {
      assert.equal(displayCommand(['git', 'commit', '-m', 'fix it', '', "it's", 'a"b']), `git commit -m 'fix it' '' 'it'\\''s' 'a"b'`);
      assert.equal(displayCommand('  npm test  '), 'npm test');
      assert.equal(displayCommand(['ls', '-la']), 'ls -la');
    });

    it('an exit code decides ok or failed; without one, the error text tells a timeout from an error', () => {
      assert.equal(outcomeOf({ command: 'x', exit_code: 0 }), 'ok');
      assert.equal(outcomeOf({ command: 'x', exit_code: 3 }), 'failed');
      for (const error of ['Timed out after 120s', 'timeout', 'time-out', 'TIME OUT', 'deadline exceeded']) assert.equal(outcomeOf({ command: 'x', exit_code: null, error }), 'timeout', error);
      assert.equal(outcomeOf({ command: 'x', exit_code: null, error: 'spawn ENOENT' }), 'error');
      assert.equal(outcomeOf({ command: 'x' }), 'error');
    });

    it('recognises test runners by name, whatever the path or wrapper', () => {
      for (const c of [
        'pytest -q', 'py.test', '/usr/bin/pytest tests', 'npx jest --ci', 'vitest run', 'mocha', 'npm test', 'npm run test:unit', 'yarn test', 'pnpm run test',
        'bun test', 'npx playwright test', 'python -m pytest', 'python3.12 -m unittest', 'go test ./...', 'cargo test', 'cargo nextest run', 'mvn -q test',
        './mvnw verify', 'gradle check', './gradlew clean test', 'bundle exec rake test', 'rails test', 'dotnet test', 'make test', 'make check', 'deno test',
        'mix test', 'rspec', 'tox', 'phpunit', 'ctest', 'karma', 'cypress run', ['npm', 'test'],
      ]) assert.ok(isTestCommand(c), String(c));
      for (const c of ['npm run build', 'npm install', 'ls tests', 'git status', 'make', 'go build', 'cargo build', 'pytest-watch', 'mytest', 'npm testx', 'python -m http.server', 'gradle build']) {
        assert.ok(!isTestCommand(c), c);
      }
    });

    it('reads start times as epoch seconds, epoch milliseconds or a date; keeps text it cannot read', () => {
      assert.equal(startedAtIso(1_700_000_000), '2023-11-14T22:13:20.000Z');
      assert.equal(startedAtIso(1_700_000_000_123), '2023-11-14T22:13:20.123Z');
      assert.equal(startedAtIso(1_000_000_000_001), '2001-09-09T01:46:40.001Z');
      assert.equal(startedAtIso(1_000_000_000_000), '+033658-09-27T01:46:40.000Z');
      assert.equal(startedAtIso('2026-01-02T03:04:05Z'), '2026-01-02T03:04:05.000Z');
      assert.equal(startedAtIso('yesterday'), 'yesterday');
      for (const v of [null, undefined, '', Number.NaN, Number.POSITIVE_INFINITY, 1e20]) assert.equal(startedAtIso(v), null, String(v));
    });

    it('finds the test targets a command names', () => {
      assert.deepEqual(testTargets('pytest -q tests/test_refund.py::test_x "src/a.spec.ts" b.py:12 x.y -k name'), ['tests/test_refund.py', 'src/a.spec.ts', 'b.py', 'x.y']);
      assert.deepEqual(testTargets('go test ./...'), ['./...']);
      assert.deepEqual(testTargets('npm test a/ --dir=x/y'), []);
    });
  });

  describe('the context reading for people', () => {
    it('rounds to a whole percent, or shows a dash for unknown', () => {
      assert.equal(shortPercent(reading({ percent: 49.6 })), '50%');
      assert.equal(shortPercent(reading({ percent: 49.4 })), '49%');
      assert.equal(shortPercent(unknown), '—');
      assert.equal((asShown(reading({ percent: 49.5 })) as ContextReading).percent, 50);
      assert.equal(asShown(unknown), unknown);
    });

    it('names the agent, the generic file and its writer, or no agent', () => {
      assert.equal(agentLabel(reading()), 'Claude Code');
      assert.equal(agentLabel(reading({ source: 'codex' })), 'Codex CLI');
      assert.equal(agentLabel(unknown), 'Codex CLI');
      assert.equal(agentLabel(reading({ source: 'generic', agent: 'claude' })), 'Claude Code (context_usage.json)');
      assert.equal(agentLabel(reading({ source: 'generic', agent: 'aider' })), 'aider (context_usage.json)');
      assert.equal(agentLabel(reading({ source: 'generic' })), 'agent (context_usage.json)');
      assert.equal(agentLabel({ known: false, source: 'generic', reason: 'x' }), 'context_usage.json');
      assert.equal(agentLabel({ known: false, reason: 'x' }), 'no agent');
    });

    it('describes a reading in one line', () => {
      assert.equal(describeReading(reading()), '49.6 % — 99,212 of 200,000 tokens · Claude Code · compacts at 83.5 %');
      assert.equal(describeReading(unknown), 'unknown — no token_count yet');
    });

    it('the statusline carries extras when calm and a call to action at wrap-up or urgent', () => {
      assert.equal(statuslineText(reading(), 'ok', ['clean', 'handoff fresh']), 'ctx 50% · clean · handoff fresh');
      assert.equal(statuslineText(reading(), undefined), 'ctx 50%');
      assert.equal(statuslineText(reading(), 'wrap-up', ['clean']), 'ctx 50% · wrap up: run handoff generate');
      assert.equal(statuslineText(reading(), 'urgent', ['clean']), 'ctx 50% · wrap up now: run handoff generate');
    });
  });

  describe('the clean-state report', () => {
    const input = (over: Partial<Parameters<typeof evaluateClean>[0]> = {}) => ({
      facts: cleanFacts(), addedLines: [], files: [], snapshot: snapshotWith({ feedback: [{ command: 'npm test', exit_code: 0 }] }), options: { tempGlobs: [], debugPatterns: [] }, ownPaths: [], ...over,
    });

    it('runs the five checks in order; clean when none finds anything', () => {
      const r = evaluateClean(input());
      assert.deepEqual(r.checks.map((c) => c.check), ['working-tree', 'temp-artifacts', 'tests', 'feature-board', 'branch']);
      assert.equal(r.clean, true);
      assert.deepEqual(core(r.findings), []);
      assert.deepEqual(r.diagnostics, []);
      assert.ok(!('invalidPatterns' in r.checks[1]!));
    });

    it('gathers every finding, and turns an invalid debug pattern into a settings diagnostic', () => {
      const r = evaluateClean(input({ files: ['a.tmp'], facts: cleanFacts({ detached: true }), options: { tempGlobs: ['*.tmp'], debugPatterns: ['(oops'] } }));
      assert.equal(r.clean, false);
      assert.deepEqual(r.findings.map((f) => f.check), ['temp-artifacts', 'branch']);
      assert.deepEqual(r.diagnostics, [{ file: 'settings', message: 'The debug-print pattern `(oops` is not a valid regular expression; it was skipped.' }]);
    });
  });
});
