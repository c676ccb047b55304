import * as assert from 'node:assert/strict';
import { FeedbackTrim, resolves } from '../../../src/core/artifacts/feedback';
import { isTestCommand } from '../../../src/core/artifacts/commands';
import type { IndexedRecord } from '../../../src/core/artifacts/snapshot';

/** A small deterministic generator, so a failing draw can be run again. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const COMMANDS: (string | string[])[] = [
  ['pytest', 'tests/unit/test_a.py'], ['pytest', 'tests/unit/test_b.py', '-q'], ['pytest', 'tests/unit'], ['pytest'],
  ['pytest', 'tests/unit/test_a.py', 'tests/unit/test_b.py'], ['pytest', 'tests/e2e/test_c.py'], 'pytest tests/e2e',
  ['npm', 'test'], ['npx', 'eslint', 'src/a.ts'], ['npx', 'eslint', '--fix', 'src/a.ts'], 'make build', ['npx', 'tsc', '--noEmit'],
];

function randomLog(seed: number, n: number): IndexedRecord[] {
  const rnd = lcg(seed);
  return Array.from({ length: n }, (_, index) => ({
    index,
    record: { command: COMMANDS[Math.floor(rnd() * COMMANDS.length)]!, exit_code: rnd() < 0.3 ? 1 : 0, stdout_tail: '', stderr_tail: '' },
  }));
}

/** What the trim must find, the slow way: for each kept failure, the first later passing run that resolves it. */
function expected(log: IndexedRecord[], kept: IndexedRecord[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const f of kept) {
    if (f.record.exit_code === 0) continue;
    const by = log.find((r) => r.index > f.index && r.record.exit_code === 0 && resolves(r.record.command, isTestCommand(r.record.command), f.record.command));
    if (by) out[f.index] = by.index;
  }
  return out;
}

describe('feedback trim: which later run resolves a failure', () => {
  for (const seed of [1, 2, 3, 7, 42]) {
    it(`names the first later passing run that resolves each kept failure, as resolves() decides (draw ${seed})`, () => {
      const log = randomLog(seed, 400);
      // A small cap: failures leave the kept set while others are still open.
      const trim = new FeedbackTrim({ feedbackK: 5, maxCommands: 12 });
      for (const r of log) trim.add(r);
      const result = trim.result();
      const want = expected(log, result.kept);
      assert.ok(Object.keys(want).length > 0, 'the draw resolves some failures');
      assert.deepEqual(result.resolvedBy ?? {}, want);
    });
  }

  it('a run of one target does not resolve a failure of two; a run of their folder does, and only once', () => {
    const trim = new FeedbackTrim({ feedbackK: 0, maxCommands: 30 });
    const add = (index: number, command: string[], exit: number) => trim.add({ index, record: { command, exit_code: exit } });
    add(0, ['pytest', 'tests/unit/test_a.py', 'tests/unit/test_b.py'], 1);
    add(1, ['pytest', 'tests/unit/test_a.py'], 0);
    add(2, ['pytest', 'tests/unit/test_b.py'], 0);
    add(3, ['jest', 'tests/unit'], 0);
    assert.equal(trim.result().resolvedBy, undefined, 'neither one target nor another runner resolves it');
    add(4, ['pytest', 'tests/unit'], 0);
    add(5, ['pytest'], 0);
    assert.deepEqual(trim.result().resolvedBy, { 0: 4 });
  });

  it('a failure that leaves the kept ones is no longer resolved, and a newer failure of the same command is', () => {
    const trim = new FeedbackTrim({ feedbackK: 0, maxCommands: 2 });
    const add = (index: number, command: string, exit: number) => trim.add({ index, record: { command, exit_code: exit } });
    add(0, 'make build', 1);
    add(1, 'npm run lint', 1);
    add(2, 'make build', 1);
    add(3, 'make build', 0);
    const r = trim.result();
    assert.deepEqual(r.kept.map((k) => k.index), [1, 2]);
    assert.deepEqual(r.resolvedBy, { 2: 3 });
  });
});
