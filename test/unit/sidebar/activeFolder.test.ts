import assert from 'node:assert/strict';
import { pickActiveFolder } from '../../../src/ui/state/activeFolder';

const folder = (name: string) => ({ name, uri: { toString: () => `file:///ws/${name}` } });

describe('active folder (multi-root)', () => {
  const a = folder('api');
  const b = folder('web');

  it("follows the active editor's folder", () => {
    assert.equal(pickActiveFolder(b, a, [a, b]), b);
  });

  it('keeps the last folder while an editor outside every folder is active', () => {
    assert.equal(pickActiveFolder(undefined, b, [a, b]), b);
  });

  it('falls back to the first folder when the last one was removed', () => {
    assert.equal(pickActiveFolder(undefined, folder('gone'), [a, b]), a);
    assert.equal(pickActiveFolder(undefined, undefined, []), undefined);
  });
});
