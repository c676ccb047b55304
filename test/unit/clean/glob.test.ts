import * as assert from 'node:assert/strict';
import { globMatcher, globToRegExp } from '../../../src/core/clean/glob';
import { looksLikeCode } from '../../../src/core/clean/codeSmells';

describe('glob matcher', () => {
  const cases: [string, string, boolean][] = [
    ['**/*.tmp', 'notes.tmp', true],
    ['**/*.tmp', 'a/b/notes.tmp', true],
    ['**/*.tmp', 'notes.tmp.txt', false],
    ['*.bak', 'deep/x.bak', true],
    ['**/scratch/**', 'scratch/a.py', true],
    ['**/scratch/**', 'src/scratch/x/y.py', true],
    ['**/scratch/**', 'src/scratchpad.py', false],
    ['src/?.ts', 'src/a.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['src/*.ts', 'src/x/a.ts', false],
    ['**/*~', 'src/a.ts~', true],
    ['a+b.(x)', 'a+b.(x)', true],
  ];
  for (const [glob, p, want] of cases) {
    it(`${glob} ${want ? 'matches' : 'does not match'} ${p}`, () => assert.equal(globToRegExp(glob).test(p), want));
  }
  it('matches any of several globs and normalises backslashes', () => {
    const m = globMatcher(['*.orig', '**/*.rej']);
    assert.equal(m('a\\b.rej'), true);
    assert.equal(m('a/b.ts'), false);
  });
  it('tells commented-out code from prose', () => {
    for (const code of ['const x = compute();', 'return total', 'if (a) {', 'def refund(order):', 'x = 1', 'foo(bar)']) assert.ok(looksLikeCode(code), code);
    for (const prose of ['This explains why', 'TODO: handle refunds', 'see the design doc']) assert.ok(!looksLikeCode(prose), prose);
  });
});
