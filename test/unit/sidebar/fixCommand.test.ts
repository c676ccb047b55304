import assert from 'node:assert/strict';
import { fixCommand } from '../../../src/ui/actions/fixCommand';

describe('clean-state fix commands', () => {
  it('finds the command a fix suggests in backticks', () => {
    assert.deepEqual(fixCommand('Re-run `pytest tests/test_refund.py` until it passes, or set T-2 back.'), {
      command: 'pytest tests/test_refund.py',
      placeholder: false,
    });
  });

  it('flags a command with a <placeholder> so it is typed, not run', () => {
    assert.deepEqual(fixCommand('Commit the changes, or stash them with a message: `git stash push -m "<why>"`.'), {
      command: 'git stash push -m "<why>"',
      placeholder: true,
    });
  });

  it('treats backticked words that are not commands as advice', () => {
    assert.equal(fixCommand('Set `active` to T-003.'), null);
    assert.equal(fixCommand('Delete them (or add them to .gitignore).'), null);
  });
});
