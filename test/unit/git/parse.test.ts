import * as assert from 'node:assert/strict';
import { parseAddedLines, unquoteGitPath } from '../../../src/git/parseDiff';
import { parseNameStatusZ, parseStatusV2 } from '../../../src/git/parseStatus';

describe('git output parsers', () => {
  it('reads porcelain v2 headers, renames, unmerged and untracked entries', () => {
    const out = [
      '# branch.oid 1111111111111111111111111111111111111111',
      '# branch.head feat/x',
      '# branch.upstream origin/feat/x',
      '1 .M N... 100644 100644 100644 aaa bbb src/a file.ts',
      '2 R. N... 100644 100644 100644 aaa bbb R100 new name.ts',
      'old name.ts',
      'u UU N... 100644 100644 100644 100644 a b c conflict.ts',
      '? notes.tmp',
      '! ignored.log',
      '',
    ].join('\0');
    const s = parseStatusV2(out);
    assert.equal(s.branch, 'feat/x');
    assert.equal(s.upstream, 'origin/feat/x');
    assert.equal(s.head, '1111111111111111111111111111111111111111');
    assert.deepEqual(s.entries, [
      { path: 'src/a file.ts', kind: 'modified', staged: false },
      { path: 'new name.ts', kind: 'renamed', from: 'old name.ts', staged: true },
      { path: 'conflict.ts', kind: 'modified', staged: false },
      { path: 'notes.tmp', kind: 'untracked', staged: false },
    ]);
  });

  it('reads a detached HEAD and a repository without commits', () => {
    assert.equal(parseStatusV2('# branch.oid abc\0# branch.head (detached)\0').branch, null);
    assert.equal(parseStatusV2('# branch.oid (initial)\0# branch.head main\0').head, null);
  });

  it('reads name-status -z with renames', () => {
    const out = ['M', 'a.ts', 'R087', 'old.ts', 'new.ts', 'A', 'b.ts', 'D', 'c.ts', ''].join('\0');
    assert.deepEqual(parseNameStatusZ(out).map((e) => [e.kind, e.path, e.from]), [
      ['modified', 'a.ts', undefined],
      ['renamed', 'new.ts', 'old.ts'],
      ['added', 'b.ts', undefined],
      ['deleted', 'c.ts', undefined],
    ]);
  });

  it('reads added lines with new-file line numbers, quoted paths and "+++" content', () => {
    const diff = [
      'diff --git a/x.js b/x.js',
      '--- a/x.js',
      '+++ b/x.js',
      '@@ -3,0 +4,2 @@ function f() {',
      '+  console.log(1);',
      '+++ not a header',
      '@@ -10 +12 @@',
      '-old',
      '+new',
      'diff --git "a/t\\tab.py" "b/t\\tab.py"',
      '--- /dev/null',
      '+++ "b/t\\tab.py"',
      '@@ -0,0 +1 @@',
      '+print("x")',
      'diff --git a/gone.py b/gone.py',
      '--- a/gone.py',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-print(1)',
    ].join('\n');
    assert.deepEqual(parseAddedLines(diff), [
      { path: 'x.js', line: 4, text: '  console.log(1);' },
      { path: 'x.js', line: 5, text: '++ not a header' },
      { path: 'x.js', line: 12, text: 'new' },
      { path: 't\tab.py', line: 1, text: 'print("x")' },
    ]);
  });

  it('unquotes octal escapes as UTF-8', () => {
    assert.equal(unquoteGitPath('"caf\\303\\251.txt"'), 'café.txt');
    assert.equal(unquoteGitPath('plain.txt'), 'plain.txt');
  });
});
