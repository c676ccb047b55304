import * as assert from 'node:assert/strict';
import { ReviewReportSchema, VerificationReportSchema } from '../../../src/core/artifacts/schemas';
import type { WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { collectReadFirst, pathsIn, READ_FIRST_MAX, type ReadFirstOptions } from '../../../src/core/packet/readFirst';
import type { ChangedFile, FailedAttempt } from '../../../src/core/packet/schema';
import { emptySnapshot } from '../helpers/workbenchSnapshot';

describe('pathsIn: the file paths a text names', () => {
  const cases: [string, string[]][] = [
    ['see src/a.ts', ['src/a.ts']], // after a blank, from its first character
    ['src/a.ts', ['src/a.ts']], // at the very end
    ['src/a.ts and more', ['src/a.ts']],
    ['Fix src/a.ts. Then rerun', ['src/a.ts']], // a full stop after the path
    ['src/a.ts(12,5): error TS2322', ['src/a.ts']],
    ['src/a.ts:12: in test', ['src/a.ts']],
    ['tests/test_a.py::test_refund FAILED', ['tests/test_a.py']],
    ['open "src/a.ts", then `lib/b.go`', ['src/a.ts', 'lib/b.go']],
    ['run a.py', ['a.py']], // a bare name with a code extension
    ['edit src/App.tsx', ['src/App.tsx']],
    ['./src/a.ts', ['src/a.ts']], // the leading ./ dropped
    ['pkg/./a.ts', ['pkg/./a.ts']], // only a leading ./ is dropped
    ['../lib/a.ts', []], // above the repository
    ['/usr/lib/node/a.js and C:/x/b.ts', []], // absolute
    ['version 1.2.3 on example.com', []],
    ['see README.md', []], // a bare name that is not code
    ['see docs/README.md', ['docs/README.md']], // but with a folder it is a path
    ['a.pyc', []],
  ];
  for (const [text, paths] of cases) {
    it(`"${text}" → ${JSON.stringify(paths)}`, () => assert.deepEqual(pathsIn(text), paths));
  }

  it('bare names with the code extensions', () => {
    const names = ['a.py', 'a.ts', 'a.tsx', 'a.js', 'a.mjs', 'a.cts', 'a.go', 'a.rs', 'a.yml', 'a.yaml', 'a.json', 'a.sh', 'a.hpp'];
    assert.deepEqual(pathsIn(names.join(' ')), names);
  });
});

const changedFiles = (...paths: string[]): ChangedFile[] => paths.map((path) => ({ path, kind: 'modified' }));
const failure = (command: string, excerpt = ''): FailedAttempt => ({ index: 0, command, outcome: 'failed', exit_code: 1, note: null, excerpt, uncertain: false });
const readFirst = (changed: ChangedFile[], failed: FailedAttempt[] = [], options: Partial<ReadFirstOptions> = {}, snapshot: WorkbenchSnapshot = emptySnapshot()): string[] =>
  collectReadFirst(snapshot, changed, failed, { tempGlobs: [], ...options });

describe('collectReadFirst: what "Read these first" lists', () => {
  it('changed files, never a deleted one', () => {
    assert.deepEqual(readFirst([{ path: 'src/gone.ts', kind: 'deleted' }, ...changedFiles('src/a.ts')]), ['src/a.ts']);
  });

  it('at most READ_FIRST_MAX source files', () => {
    const many = Array.from({ length: READ_FIRST_MAX + 2 }, (_, i) => `src/f${i}.ts`);
    assert.deepEqual(readFirst(changedFiles(...many)), many.slice(0, READ_FIRST_MAX));
  });

  it('the workbench files: state and logs never, reports last', () => {
    assert.deepEqual(readFirst(changedFiles('agent_state.json', 'src/a.ts', 'feedback_record.jsonl')), ['src/a.ts']);
    assert.deepEqual(readFirst(changedFiles('outputs/verification/run-1.json', 'review_report.json', 'src/a.ts')), ['src/a.ts', 'outputs/verification/run-1.json', 'review_report.json']);
    assert.deepEqual(readFirst(changedFiles('backup/agent_state.json.orig', 'src/a.ts')), ['backup/agent_state.json.orig', 'src/a.ts'], 'only the exact names are the workbench\'s');
  });

  it('temporary files never, reports included', () => {
    const tempGlobs = ['tmp/**'];
    assert.deepEqual(readFirst(changedFiles('tmp/review_report.json', 'tmp/verification.log', 'src/a.ts', 'verification_report.json'), [], { tempGlobs }), ['src/a.ts', 'verification_report.json']);
  });

  it('the verification and review reports when they did not pass', () => {
    const verification = (passed: boolean) => ({ ...VerificationReportSchema.parse({ passed }), file: 'outputs/verification/v.json' });
    const review = (verdict: string) => ({ ...ReviewReportSchema.parse({ total: 5, verdict }), file: 'outputs/review/r.json' });
    const changed = changedFiles('src/a.ts');
    assert.deepEqual(readFirst(changed, [], {}, { ...emptySnapshot(), verification: verification(false), review: review('soft_fail') }), ['src/a.ts', 'outputs/verification/v.json', 'outputs/review/r.json']);
    assert.deepEqual(readFirst(changed, [], {}, { ...emptySnapshot(), verification: verification(true), review: review('pass') }), ['src/a.ts']);
  });

  it('tests a failed command names come first, newest failure first', () => {
    const failed = [failure('pytest tests/test_old.py'), failure('pytest tests/test_new.py')];
    assert.deepEqual(readFirst(changedFiles('src/a.py'), failed), ['tests/test_new.py', 'tests/test_old.py', 'src/a.py']);
  });

  const testPaths: [string, boolean][] = [
    ['tests/a.py', true], ['test/a.py', true], ['spec/a.rb', true], ['src/__tests__/a.ts', true],
    ['test_refund.py', true], ['src/test_refund.py', true], ['src/tests_refund.py', true], ['src/refund.test.ts', true],
    ['src/refund_spec.rb', true], ['pkg/refund_test.go', true],
    ['src/latest_run.py', false], ['src/contest.py', false], ['src/testing.py', false],
  ];
  for (const [path, isTest] of testPaths) {
    it(`${path} named by a failed command is ${isTest ? '' : 'not '}a test to read first`, () => {
      assert.deepEqual(readFirst(changedFiles('src/z.ts'), [failure(`run ${path}`)]), isTest ? [path, 'src/z.ts'] : ['src/z.ts']);
    });
  }

  it('a named file is resolved to the changed or known file it ends', () => {
    assert.deepEqual(readFirst(changedFiles('src/other.py', 'tests/test_refund.py'), [failure('pytest test_refund.py')]), ['tests/test_refund.py', 'src/other.py']);
    const knownFiles = ['src/other.py', 'tests/unit/test_refund.py'];
    assert.deepEqual(readFirst(changedFiles('src/other.py'), [failure('pytest test_refund.py')], { knownFiles }), ['tests/unit/test_refund.py', 'src/other.py']);
    assert.deepEqual(readFirst(changedFiles('src/other.py'), [failure('pytest tests/unit/test_refund.py')], { knownFiles }), ['tests/unit/test_refund.py', 'src/other.py']);
    assert.deepEqual(readFirst(changedFiles('src/other.py'), [failure('pytest tests/test_gone.py')], { knownFiles }), ['src/other.py'], 'not in the repository');
  });

  it('the failure output: tests it names first, then the changed sources it names, then the rest', () => {
    const excerpt = 'src/b.py:3: in helper\ntests/test_a.py:10: AssertionError';
    assert.deepEqual(readFirst(changedFiles('src/a.py', 'src/b.py', 'tests/test_a.py'), [failure('make check', excerpt)]), ['tests/test_a.py', 'src/b.py', 'src/a.py']);
  });

  it('the failure output: unchanged files only when they are known tests', () => {
    const excerpt = 'lib/util.py:3: in helper\ntests/test_lib.py:10: AssertionError';
    assert.deepEqual(readFirst(changedFiles('src/a.py'), [failure('make check', excerpt)]), ['src/a.py']);
    const knownFiles = ['src/a.py', 'lib/util.py', 'tests/test_lib.py'];
    assert.deepEqual(readFirst(changedFiles('src/a.py'), [failure('make check', excerpt)], { knownFiles }), ['tests/test_lib.py', 'src/a.py']);
  });
});
