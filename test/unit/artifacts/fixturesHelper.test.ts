import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copyFixture, fixturesDir } from '../helpers/fixtures';

describe('fixtures helper', () => {
  it('finds the shared fixtures and copies one into a writable temp dir', async () => {
    const dir = await copyFixture('workbench-refund');
    assert.notEqual(path.dirname(dir), fixturesDir());
    const files = (await fs.readdir(dir)).sort();
    assert.ok(files.includes('feedback_record.jsonl'));
    await fs.appendFile(path.join(dir, 'agent_state.json'), ' ');
  });
});
