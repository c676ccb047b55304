import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonMayHoldControl, stripControl, stripControlDeep, stripControlLine } from '../../src/core/controlChars';
import { atomicWrite, files, readIfExists, readRegular, useBlockingFileAccess } from '../../src/core/fsx';
import { TailReader } from '../../src/core/context/tailReader';
import { redact } from '../../src/core/redact';

// Every test here runs twice: with the asynchronous file operations of the extension and the CLI, and
// with the blocking ones the statusline process switches to.
for (const mode of ['asynchronous', 'blocking'] as const) describe(`${mode} file access`, () => {
  before(() => useBlockingFileAccess(mode === 'blocking'));
  after(() => useBlockingFileAccess(false));

  describe(`atomicWrite (${mode} file access)`, () => {
    it('replaces a file and leaves no temp file behind', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
      const file = path.join(dir, 'nested', 'a.json');
      await atomicWrite(file, redact('one'));
      await atomicWrite(file, redact('two'));
      assert.equal(await readIfExists(file), 'two');
      assert.deepEqual(await fs.readdir(path.dirname(file)), ['a.json']);
      assert.equal(await readIfExists(path.join(dir, 'missing')), null);
    });

    it('refuses a symbolic link, a FIFO or a folder in the file\'s place, changing nothing; with a root, a folder leading out', async function () {
      if (process.platform === 'win32') this.skip();
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
      const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-out-'));
      const target = path.join(outside, '.bashrc');
      await fs.writeFile(target, 'mine\n');
      await fs.symlink(target, path.join(dir, 'link.json'));
      await assert.rejects(atomicWrite(path.join(dir, 'link.json'), redact('x')), /link\.json is a symbolic link, not a regular file; not written, nothing changed$/);
      assert.equal(await fs.readFile(target, 'utf8'), 'mine\n');
      assert.ok((await fs.lstat(path.join(dir, 'link.json'))).isSymbolicLink(), 'the link itself is not replaced');
      execFileSync('mkfifo', [path.join(dir, 'pipe')]);
      await assert.rejects(atomicWrite(path.join(dir, 'pipe'), redact('x')), /pipe is a named pipe \(FIFO\), not a regular file; not written/);
      await fs.mkdir(path.join(dir, 'folder'));
      await assert.rejects(atomicWrite(path.join(dir, 'folder'), redact('x')), /folder is a folder, not a regular file; not written/);
      await fs.symlink(outside, path.join(dir, 'away'));
      await assert.rejects(atomicWrite(path.join(dir, 'away', 'new', 'a.json'), redact('x'), { root: dir }), /leads outside/);
      assert.deepEqual((await fs.readdir(outside)).sort(), ['.bashrc'], 'nothing created outside');
      assert.deepEqual((await fs.readdir(dir)).sort(), ['away', 'folder', 'link.json', 'pipe'], 'no temp file left');
    });
  });

  describe(`openRegular / readRegular (hostile files, ${mode} file access)`, () => {
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

    it('answers the same for a file in a folder known to lie in the root, with one open and no path resolved', async function () {
      if (process.platform === 'win32') this.skip();
      const root = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-root-'));
      const outside = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-out-')), 'secret.json');
      await fs.writeFile(outside, '{"token":"x"}');
      const folder = path.join(root, 'p');
      await fs.mkdir(folder);
      await fs.writeFile(path.join(folder, 'real.json'), '{"a":1}');
      await fs.writeFile(path.join(folder, 'big.json'), 'x'.repeat(5000));
      await fs.symlink('real.json', path.join(folder, 'in.json'));
      await fs.symlink(outside, path.join(folder, 'out.json'));
      await fs.symlink(path.join(folder, 'gone.json'), path.join(folder, 'dangling.json'));
      execFileSync('mkfifo', [path.join(folder, 'pipe')]);
      await fs.mkdir(path.join(folder, 'dir'));
      for (const name of ['real.json', 'big.json', 'in.json', 'out.json', 'dangling.json', 'pipe', 'dir', 'none.json']) {
        const full = await readRegular(path.join(folder, name), { root, maxBytes: 4096 });
        const quick = await readRegular(path.join(folder, name), { root, folderInRoot: true, maxBytes: 4096 });
        assert.deepEqual({ ...quick, ...(quick.ok ? { mtimeMs: 0 } : {}) }, { ...full, ...(full.ok ? { mtimeMs: 0 } : {}) }, name);
      }
      // A plain file: opened once (with no link followed), nothing resolved or looked up first.
      const calls: string[] = [];
      const access = files();
      const saved = { lstat: access.lstat, realpath: access.realpath, open: access.open };
      access.lstat = (f) => (calls.push('lstat'), saved.lstat(f));
      access.realpath = (f) => (calls.push('realpath'), saved.realpath(f));
      access.open = (f, flags, mode) => (calls.push('open'), saved.open(f, flags, mode));
      try {
        assert.ok((await readRegular(path.join(folder, 'real.json'), { root, folderInRoot: true, maxBytes: 4096 })).ok);
        assert.deepEqual(calls, ['open']);
      } finally {
        Object.assign(access, saved);
      }
    });

    it('reads a file whole whatever its size against the first read, and one that grows while read', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
      for (const n of [0, 1, 4095, 4096, 70_000, 1024 * 1024 + 3]) {
        const text = 'y'.repeat(n);
        await fs.writeFile(path.join(dir, `f${n}`), text);
        const r = await readRegular(path.join(dir, `f${n}`), { maxBytes: 2 * 1024 * 1024 });
        assert.ok(r.ok && r.bytes.toString() === text, `${n} bytes`);
      }
      // Bytes appended after fstat saw the size are read too.
      const file = path.join(dir, 'grows');
      await fs.writeFile(file, 'abc');
      const access = files();
      const open = access.open;
      access.open = async (f, flags, mode) => {
        const handle = await open(f, flags, mode);
        const stat = handle.stat.bind(handle);
        return Object.assign(handle, { stat: async () => { const st = await stat(); await fs.appendFile(file, 'defgh'); return st; } });
      };
      try {
        const r = await readRegular(file, { maxBytes: 1024 });
        assert.ok(r.ok && r.bytes.toString() === 'abcdefgh');
      } finally {
        access.open = open;
      }
    });

    it('stops at the byte cap even when the size said otherwise', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
      await fs.writeFile(path.join(dir, 'big'), 'x'.repeat(5000));
      const r = await readRegular(path.join(dir, 'big'), { maxBytes: 4096 });
      assert.ok(!r.ok && r.refusal.kind === 'refused' && /over the 4 KB limit/.test(r.refusal.message));
      assert.deepEqual(await readRegular(path.join(dir, 'none'), { maxBytes: 1 }), { ok: false, refusal: { kind: 'missing' } });
    });
  });

  describe(`the tail reader (${mode} file access)`, () => {
    it('reads the last complete lines, then only what was appended', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fsx-'));
      const file = path.join(dir, 'log.jsonl');
      await fs.writeFile(file, '{"n":1}\n{"n":2}\n{"n":');
      const reader = new TailReader<number[]>(file, {
        initial: () => [],
        decisive: () => false,
        apply: (seen, line) => [...seen, (JSON.parse(line) as { n: number }).n],
        result: (seen) => ({ known: false, reason: seen.join(',') }),
      });
      const first = await reader.read();
      assert.ok(!first.known && first.reason === '1,2', JSON.stringify(first));
      await fs.appendFile(file, '3}\n');
      const after = await reader.read();
      assert.ok(!after.known && after.reason === '1,2,3', JSON.stringify(after));
      assert.equal(reader.stats.mode, 'append');
    });
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
