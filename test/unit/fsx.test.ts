import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonMayHoldControl, stripControl, stripControlDeep, stripControlLine } from '../../src/core/controlChars';
import { atomicWrite, readIfExists, readRegular } from '../../src/core/fsx';
import { redact } from '../../src/core/redact';

describe('atomicWrite', () => {
  it('replaces a file and leaves no temp file behind', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
    const file = path.join(dir, 'nested', 'a.json');
    await atomicWrite(file, redact('one'));
    await atomicWrite(file, redact('two'));
    assert.equal(await readIfExists(file), 'two');
    assert.deepEqual(await fs.readdir(path.dirname(file)), ['a.json']);
    assert.equal(await readIfExists(path.join(dir, 'missing')), null);
  });
});

describe('openRegular / readRegular (hostile files)', () => {
  it('refuses a FIFO at once instead of waiting for a writer', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const r = await readRegular(fifo, { maxBytes: 1024 });
    assert.ok(!r.ok && r.refusal.kind === 'refused');
    assert.equal(r.refusal.message, 'is a named pipe (FIFO), not a regular file; not read');
    await assert.rejects(readIfExists(fifo), /pipe \(FIFO\)/);
  });

  it('refuses a character device, which would never end', async function () {
    if (process.platform === 'win32') this.skip();
    const r = await readRegular('/dev/zero', { maxBytes: 1024 });
    assert.ok(!r.ok && r.refusal.kind === 'refused' && /character device/.test(r.refusal.message));
  });

  it('refuses a symlink whose real target leaves the root, without naming the target; follows one inside', async function () {
    if (process.platform === 'win32') this.skip();
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-root-'));
    const outside = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-out-')), 'secret.json');
    await fs.writeFile(outside, '{"token":"x"}');
    await fs.symlink(outside, path.join(root, 'out.json'));
    await fs.writeFile(path.join(root, 'real.json'), '{}');
    await fs.symlink('real.json', path.join(root, 'in.json'));
    const out = await readRegular(path.join(root, 'out.json'), { root, maxBytes: 1024 });
    assert.ok(!out.ok && out.refusal.kind === 'refused');
    assert.match(out.refusal.message, /leads outside the workspace; not followed/);
    assert.ok(!out.refusal.message.includes(outside));
    const inside = await readRegular(path.join(root, 'in.json'), { root, maxBytes: 1024 });
    assert.ok(inside.ok && inside.bytes.toString() === '{}');
    // Without a root the same link is read: containment is the caller's choice.
    assert.ok((await readRegular(path.join(root, 'out.json'), { maxBytes: 1024 })).ok);
  });

  it('stops at the byte cap even when the size said otherwise', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
    await fs.writeFile(path.join(dir, 'big'), 'x'.repeat(5000));
    const r = await readRegular(path.join(dir, 'big'), { maxBytes: 4096 });
    assert.ok(!r.ok && r.refusal.kind === 'refused' && /over the 4 KB limit/.test(r.refusal.message));
    assert.deepEqual(await readRegular(path.join(dir, 'none'), { maxBytes: 1 }), { ok: false, refusal: { kind: 'missing' } });
  });
});

describe('control characters', () => {
  it('leave text and paths; line breaks stay in text only', () => {
    assert.equal(stripControl('a\u0000b\u001b[1mc\u202ed\tok\nnext'), 'ab[1mcd\tok\nnext');
    assert.equal(stripControlLine('src/a\nb\t.py\u0085'), 'src/ab.py');
    assert.deepEqual(stripControlDeep({ 'k\u0000': ['x\u0007y', 1, null] }), { k: ['xy', 1, null] });
    assert.equal(jsonMayHoldControl(JSON.stringify({ a: 'x\u0000' })), true);
    assert.equal(jsonMayHoldControl(JSON.stringify({ a: 'plain text' })), false);
  });
});
