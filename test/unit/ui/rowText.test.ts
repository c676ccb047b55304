import assert from 'node:assert/strict';
import { LABEL_MAX, splitFix, splitLabel } from '../../../src/ui/views/rowText';

describe('short row labels', () => {
  const cases = [
    'exit 1 on pytest tests/test_refund.py',
    'awaiting decision on partial-refund rounding rule',
    "off-scope writes: ['README.md']",
    'review soft_fail with 6/10; weakest: handoff_readiness (0/2): active task not closed in state',
    'T-002 is done, but its done_when command last failed: pytest tests/test_refund.py::test_partial (exit 1)',
    'averyveryverylongsinglewordwithoutanyspacesatallinside',
  ];

  it('keeps every label short enough for the default sidebar and drops nothing', () => {
    for (const text of cases) {
      const { label, rest } = splitLabel(text);
      assert.ok(label.length <= LABEL_MAX, `${label} (${label.length})`);
      assert.ok(label.length >= 8, label);
      // Nothing is lost: label and rest together still hold every word.
      const letters = (s: string) => s.replace(/[\s():;,—]/g, '');
      assert.equal(letters(label + rest).replace(/\(/g, ''), letters(text).replace(/\(/g, ''), text);
    }
  });

  it('breaks at the finding\'s natural end where there is one', () => {
    assert.deepEqual(splitLabel('2 untracked files: notes.tmp, refund_calc.py'), { label: '2 untracked files', rest: 'notes.tmp, refund_calc.py' });
    assert.deepEqual(splitLabel('review soft_fail with 6/10; weakest: x'), { label: 'review soft_fail with 6/10', rest: 'weakest: x' });
    assert.deepEqual(splitLabel('Short finding'), { label: 'Short finding', rest: '' });
    assert.deepEqual(splitLabel('exit 1 on pytest tests/test_refund.py'), { label: 'exit 1 on pytest', rest: 'tests/test_refund.py' });
  });

  it('takes a clean-state risk apart into its finding and its fix', () => {
    assert.deepEqual(splitFix('1 temporary file: notes.tmp. — fix: Delete them.'), { finding: '1 temporary file: notes.tmp', fix: 'Delete them.' });
    assert.deepEqual(splitFix('exit 1 on pytest'), { finding: 'exit 1 on pytest', fix: null });
  });
});
