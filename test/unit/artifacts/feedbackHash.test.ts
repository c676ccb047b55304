import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { copyFixture, makeTempDir } from '../helpers/fixtures';

describe('freshness reads the feedback log by hash only', () => {
  it('hashes the log exactly as the full read does, without parsing a record', async () => {
    const dir = await copyFixture('workbench-refund');
    // A line no parser would accept: the hash-only read reports nothing about it.
    await fs.appendFile(path.join(dir, 'feedback_record.jsonl'), '{"command": \n');
    const full = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 50 });
    const hashed = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 50, feedback: 'hash' });
    assert.deepEqual(hashed.sources, full.sources);
    assert.ok(full.sources.some((s) => s.file === 'feedback_record.jsonl'));
    assert.equal(hashed.feedback, null);
    assert.ok(full.feedback && full.feedback.total > 0);
    assert.ok(full.diagnostics.some((d) => d.file === 'feedback_record.jsonl'));
    assert.ok(!hashed.diagnostics.some((d) => d.file === 'feedback_record.jsonl'));
    assert.equal(hashed.agentState?.session_id, 'refund-s3');
  });

  it('a log that leads outside the workspace is refused, as by the full read', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await copyFixture('workbench-refund');
    const outside = path.join(await makeTempDir(), 'log.jsonl');
    await fs.writeFile(outside, '{"command": "x"}\n');
    await fs.rm(path.join(dir, 'feedback_record.jsonl'));
    await fs.symlink(outside, path.join(dir, 'feedback_record.jsonl'));
    const hashed = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 50, feedback: 'hash' });
    assert.ok(!hashed.sources.some((s) => s.file === 'feedback_record.jsonl'));
    assert.match(hashed.diagnostics.find((d) => d.file === 'feedback_record.jsonl')?.message ?? '', /leads outside the workspace/);
  });
});
