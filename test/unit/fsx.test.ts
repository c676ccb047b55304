import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../../src/core/fsx';

describe('atomicWrite', () => {
  it('replaces a file and leaves no temp file behind', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
    const file = path.join(dir, 'nested', 'a.json');
    await atomicWrite(file, 'one');
    await atomicWrite(file, 'two');
    assert.equal(await readIfExists(file), 'two');
    assert.deepEqual(await fs.readdir(path.dirname(file)), ['a.json']);
    assert.equal(await readIfExists(path.join(dir, 'missing')), null);
  });
});
