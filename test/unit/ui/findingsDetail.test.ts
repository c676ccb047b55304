import assert from 'node:assert/strict';
import type { CleanFinding } from '../../../src/core/clean/types';
import { findingsDetail } from '../../../src/ui/commands/findingsDetail';

describe('dirty-workbench modal text', () => {
  const finding = (i: number, paths?: string[]): CleanFinding => ({ check: 'temp-artifacts', kind: 'temp-files', detail: `finding ${i}`, fix: 'delete', paths });

  it('lists each finding with its first paths and says what Generate Anyway does', () => {
    const text = findingsDetail([finding(1, ['a.tmp', 'b.tmp', 'c.tmp', 'd.tmp']), { check: 'tests', kind: 'tests-failing', detail: 'red', fix: 'run' }]);
    assert.match(text, /• temp-artifacts: finding 1 \(a\.tmp, b\.tmp, c\.tmp, …\)/);
    assert.match(text, /• tests: red$/m);
    assert.doesNotMatch(text, /d\.tmp/);
    assert.match(text, /block risk/);
  });

  it('caps a long list and says how many are left out', () => {
    const text = findingsDetail(Array.from({ length: 12 }, (_, i) => finding(i)), 8);
    assert.equal(text.split('\n').filter((l) => l.startsWith('• ')).length, 8);
    assert.match(text, /… and 4 more/);
  });
});
