import * as assert from 'node:assert/strict';
import { fixOffer, offerFor } from '../../../src/core/clean/fixOffer';
import type { CleanFinding } from '../../../src/core/clean/types';

const finding = (over: Partial<CleanFinding>): CleanFinding => ({ check: 'working-tree', kind: 'uncommitted-changes', detail: 'd', fix: 'Commit or stash the changes.', ...over });

describe('Apply Fix offers', () => {
  it('runs a plain invocation of every known tool', () => {
    for (const command of [
      'git status',
      'npm test',
      'pnpm test',
      'yarn test',
      'npx vitest run',
      'pytest -q',
      'python -m pytest',
      'python3 -m pytest',
      'go test ./...',
      'cargo test',
      'make test',
      'handoff check',
    ]) {
      assert.deepEqual(offerFor(command), { command, how: 'run' }, command);
    }
  });

  it('shows and runs a command without the whitespace around it', () => {
    assert.deepEqual(offerFor('  npm test \n'), { command: 'npm test', how: 'run' });
    assert.deepEqual(offerFor('git\tstatus'), { command: 'git\tstatus', how: 'run' });
  });

  it('types a command with several placeholders for the user to complete', () => {
    assert.deepEqual(offerFor('git commit -m "<why>" -- <path>'), { command: 'git commit -m "<why>" -- <path>', how: 'type' });
  });

  it('only copies a command whose program is not known for sure', () => {
    for (const command of ['', 'python<version> -m pytest', '<tool> test', 'gitx status', 'rm -rf build']) {
      assert.equal(offerFor(command).how, 'copy', command);
    }
  });

  it('blank command lines are not offered: the fix sentence is', () => {
    assert.deepEqual(fixOffer(finding({ commands: ['', '   '] })), { kind: 'advice', text: 'Commit or stash the changes.' });
    assert.deepEqual(fixOffer(finding({ commands: ['  ', 'git stash push -m "<why>"'] })), { kind: 'commands', commands: [{ command: 'git stash push -m "<why>"', how: 'type' }] });
  });

  it('temporary files without paths fall back to the commands, or to the sentence', () => {
    const temp = { check: 'temp-artifacts', kind: 'temp-files', fix: 'Delete them.' } as const;
    assert.deepEqual(fixOffer(finding({ ...temp })), { kind: 'advice', text: 'Delete them.' });
    assert.deepEqual(fixOffer(finding({ ...temp, paths: [] })), { kind: 'advice', text: 'Delete them.' });
    assert.deepEqual(fixOffer(finding({ ...temp, paths: [], commands: ['git clean -n'] })), { kind: 'commands', commands: [{ command: 'git clean -n', how: 'run' }] });
    assert.deepEqual(fixOffer(finding({ ...temp, paths: ['a.tmp'], commands: ['git clean -n'] })), { kind: 'delete-temp-files', paths: ['a.tmp'] });
  });
});
