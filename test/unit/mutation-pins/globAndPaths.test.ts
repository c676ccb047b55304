import * as assert from 'node:assert/strict';
import { globMatcher, globToRegExp, isUnder } from '../../../src/core/clean/glob';
import { findingPaths, isOwnPath, listPaths, MAX_FINDING_PATHS } from '../../../src/core/clean/inputs';

const matches = (glob: string, p: string) => globToRegExp(glob).test(p);

describe('temp-artifact globs and repo paths', () => {
  it('a glob without a slash matches the file name in any folder', () => {
    assert.ok(matches('*.tmp', 'a.tmp'));
    assert.ok(matches('*.tmp', 'deep/er/a.tmp'));
    assert.ok(!matches('*.tmp', 'a.tmpx'));
    assert.ok(!matches('*.tmp', 'a.tmp/b'));
    assert.ok(matches('*~', 'src/file.ts~'));
  });

  it('a glob with a slash is anchored at the root, ./ or / in front ignored', () => {
    assert.ok(matches('build/*.log', 'build/x.log'));
    assert.ok(!matches('build/*.log', 'sub/build/x.log'));
    assert.ok(matches('./build/*.log', 'build/x.log'));
    assert.ok(matches('/build/*.log', 'build/x.log'));
  });

  it('* and ? stay inside one folder; ** spans folders', () => {
    assert.ok(!matches('src/*.ts', 'src/a/b.ts'));
    assert.ok(matches('src/?.ts', 'src/a.ts'));
    assert.ok(!matches('src/?.ts', 'src/ab.ts'));
    assert.ok(!matches('src/?.ts', 'src//.ts'));
    assert.ok(matches('src/**/b.ts', 'src/b.ts'));
    assert.ok(matches('src/**/b.ts', 'src/x/y/b.ts'));
    assert.ok(!matches('src/**/b.ts', 'srcb.ts'));
    assert.ok(matches('**/scratch/**', 'scratch/a'));
    assert.ok(matches('**/scratch/**', 'a/scratch/b/c'));
    assert.ok(!matches('**/scratch/**', 'a/scratchy/b'));
    assert.ok(matches('tmp/**', 'tmp/a/b'));
    assert.ok(matches('a**b/c', 'axx/yyb/c'));
    assert.ok(matches('x/a**', 'x/a/b/c'));
  });

  it('regular-expression characters in a glob are literal', () => {
    assert.ok(matches('a+b(1).[x]$', 'a+b(1).[x]$'));
    assert.ok(!matches('a.b', 'axb'));
    assert.ok(matches('{a}|^b', '{a}|^b'));
  });

  it('a matcher tries every glob, skips blank ones and reads backslashes as slashes', () => {
    const m = globMatcher(['*.bak', '  ', 'tmp/**']);
    assert.ok(m('x.bak') && m('tmp/y') && m('tmp\\y\\z'));
    assert.ok(!m('x.ts'));
    assert.ok(!globMatcher(['', ' '])('anything'));
  });

  it('isUnder: the folder itself or inside it, never a sibling with the same prefix', () => {
    assert.ok(isUnder('out/handoff', 'out/handoff/'));
    assert.ok(isUnder('out/handoff/a/b.json', 'out/handoff'));
    assert.ok(!isUnder('out/handoff2/a', 'out/handoff'));
    assert.ok(isUnder('out\\handoff\\a', 'out\\handoff'));
    assert.ok(isUnder('anything', ''));
    assert.ok(isUnder('anything', '.'));
  });

  it("the tool's own paths never include the whole repository", () => {
    assert.ok(isOwnPath('outputs/handoff/x', ['other', 'outputs/handoff']));
    assert.ok(!isOwnPath('src/a.ts', ['', '.']));
    assert.ok(!isOwnPath('src/a.ts', []));
  });

  it('findings carry at most 100 paths; a detail lists 5 and says how many more', () => {
    const many = Array.from({ length: 130 }, (_, i) => `f${i}`);
    assert.equal(MAX_FINDING_PATHS, 100);
    assert.deepEqual(findingPaths(many), many.slice(0, 100));
    assert.equal(listPaths(many.slice(0, 5)), 'f0, f1, f2, f3, f4');
    assert.equal(listPaths(many.slice(0, 6)), 'f0, f1, f2, f3, f4 and 1 more');
    assert.equal(listPaths(many, 2), 'f0, f1 and 128 more');
  });
});
