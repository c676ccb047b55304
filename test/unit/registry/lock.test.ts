import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LockTimeoutError, withLock } from '../../../src/core/registry/lock';

describe('withLock', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-lock-'));
  });

  it('never lets two holders overlap', async () => {
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withLock(dir, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setTimeout(r, 5));
          order.push(i);
          inside--;
        }),
      ),
    );
    assert.equal(maxInside, 1);
    assert.equal(order.length, 8);
    assert.deepEqual(await fs.readdir(dir), []);
  });

  it('recovers a lock left by a dead process and an old one', async () => {
    // A pid that has certainly exited: a child we waited for.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ pid: dead, at: Date.now(), nonce: 'x' }));
    assert.equal(await withLock(dir, async () => 'took it', { timeoutMs: 2000 }), 'took it');
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ pid: process.pid, at: Date.now() - 120_000, nonce: 'y' }));
    assert.equal(await withLock(dir, async () => 'old one too', { timeoutMs: 2000 }), 'old one too');
    assert.deepEqual(await fs.readdir(dir), []);
  });

  it('times out with a clear message while a live holder keeps it', async () => {
    await fs.writeFile(path.join(dir, '.lock'), JSON.stringify({ pid: process.pid, at: Date.now(), nonce: 'z' }));
    await assert.rejects(withLock(dir, async () => 1, { timeoutMs: 200 }), (e: unknown) => {
      assert.ok(e instanceof LockTimeoutError);
      assert.match(e.message, new RegExp(`pid ${process.pid}`));
      return true;
    });
  });
});
