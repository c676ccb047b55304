import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { privateQueueDir } from '../../../src/cli/commands/hookDetached';
import { atomicWrite } from '../../../src/core/fsx';
import { redactedJson } from '../../../src/core/redact';
import { makeDir, makeDirSync } from '../../../src/core/safeDirs';
import { makeTempDir } from '../helpers/fixtures';

describe('no folder is made, nothing written, under /proc, /sys or /dev', function () {
  before(function () {
    if (process.platform === 'win32') this.skip();
  });

  it('a state folder under /proc: the hook queue is refused with the reason, at once (a recursive mkdir there never returns)', async () => {
    const q = await privateQueueDir({ HANDOFF_STATE_DIR: '/proc/1' });
    assert.deepEqual(q, { ok: false, reason: 'the hook queue /proc/1/hook-queue cannot be created: /proc/1/hook-queue lies under /proc, a system folder; nothing is made or written there' });
  });

  it('/sys and /dev are refused alike, also through a link, blocking or not; an ordinary folder is made level by level', async () => {
    await assert.rejects(makeDir('/sys/kernel/handoff'), /^Error: \/sys\/kernel\/handoff lies under \/sys, a system folder/);
    assert.throws(() => makeDirSync('/dev/handoff/state'), /\/dev\/handoff\/state lies under \/dev/);
    const dir = await makeTempDir('sysdir-');
    await fs.symlink('/proc/self', path.join(dir, 'state'));
    await assert.rejects(makeDir(path.join(dir, 'state', 'q')), /lies under \/proc/);
    await assert.rejects(atomicWrite(path.join(dir, 'state', 'q', 'x.json'), redactedJson({})), /lies under \/proc/);
    const deep = path.join(dir, 'a', 'b', 'c');
    await makeDir(deep, 0o700);
    makeDirSync(path.join(deep, 'd'));
    assert.ok((await fs.stat(path.join(deep, 'd'))).isDirectory());
    assert.equal((await fs.stat(deep)).mode & 0o777, 0o700);
    await fs.writeFile(path.join(dir, 'file'), '');
    await assert.rejects(makeDir(path.join(dir, 'file', 'x')), /is not a folder/);
  });
});
