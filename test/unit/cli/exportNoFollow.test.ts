import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, otherUser, workbenchRepo } from '../helpers/workbenchRepo';

describe('handoff export never writes through a link, a FIFO or a folder', function () {
  if (process.platform === 'win32') return;
  this.timeout(120_000);
  const make = tempRepos(workbenchRepo);

  async function setup() {
    const r = make();
    const env = await otherUser();
    const gen = handoff(['generate', '--dir', r.dir], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const home = env['HOME'] as string;
    const bashrc = path.join(home, '.bashrc');
    await fs.writeFile(bashrc, 'export PATH=$PATH\n');
    return { r, env, home, bashrc, packetDir: path.join(r.dir, 'outputs', 'handoff', 'sess-a') };
  }

  it('a committed handoff-export.json that is a link to a dotfile is refused; the dotfile is unchanged', async () => {
    const { r, env, bashrc, packetDir } = await setup();
    const link = path.join(packetDir, 'handoff-export.json');
    await fs.symlink(path.relative(packetDir, bashrc), link);
    r.commit('an export that is a link');
    const out = handoff(['export', '--dir', r.dir], { env });
    assert.equal(out.code, 1, out.stdout);
    assert.match(out.stderr, /handoff-export\.json is a symbolic link, not a regular file; not written, nothing changed/);
    assert.equal(await fs.readFile(bashrc, 'utf8'), 'export PATH=$PATH\n');
    assert.ok((await fs.lstat(link)).isSymbolicLink());
  });

  it('--out onto a link, a FIFO or a folder is refused; onto a plain file it writes', async () => {
    const { r, env, bashrc } = await setup();
    const dir = await makeTempDir('handoff-out-');
    const link = path.join(dir, 'export.json');
    await fs.symlink(bashrc, link);
    const viaLink = handoff(['export', '--dir', r.dir, '--out', link], { env });
    assert.equal(viaLink.code, 1);
    assert.match(viaLink.stderr, /export\.json is a symbolic link, not a regular file; not written/);
    assert.equal(await fs.readFile(bashrc, 'utf8'), 'export PATH=$PATH\n');
    assert.ok((await fs.lstat(link)).isSymbolicLink(), 'the link is not replaced either');

    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const viaFifo = handoff(['export', '--dir', r.dir, '--out', fifo], { env, timeoutMs: 60_000 });
    assert.equal(viaFifo.code, 1);
    assert.match(viaFifo.stderr, /pipe is a named pipe \(FIFO\), not a regular file; not written/);

    const folder = path.join(dir, 'folder');
    await fs.mkdir(folder);
    const viaFolder = handoff(['export', '--dir', r.dir, '--out', folder], { env });
    assert.equal(viaFolder.code, 1);
    assert.match(viaFolder.stderr, /folder is a folder, not a regular file; not written/);
    assert.deepEqual(await fs.readdir(folder), []);

    const plain = path.join(dir, 'plain.json');
    await fs.writeFile(plain, 'old');
    assert.equal(handoff(['export', '--dir', r.dir, '--out', plain], { env }).code, 0);
    assert.match(await fs.readFile(plain, 'utf8'), /"packet_id": "sess-a"/);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['export.json', 'folder', 'pipe', 'plain.json'], 'no temp file left');
  });

  it('a packet folder committed as a link out of the output dir gets no export', async () => {
    const { r, env, packetDir } = await setup();
    const elsewhere = await makeTempDir('handoff-elsewhere-');
    await fs.cp(packetDir, path.join(elsewhere, 'sess-b'), { recursive: true });
    const json = path.join(elsewhere, 'sess-b', 'handoff.json');
    await fs.writeFile(json, (await fs.readFile(json, 'utf8')).replace(/"packet_id": "sess-a"/, '"packet_id": "sess-b"'));
    await fs.symlink(path.join(elsewhere, 'sess-b'), path.join(r.dir, 'outputs', 'handoff', 'sess-b'));
    const out = handoff(['export', '--dir', r.dir, '--id', 'sess-b'], { env });
    assert.notEqual(out.code, 0);
    assert.deepEqual((await fs.readdir(path.join(elsewhere, 'sess-b'))).sort(), ['handoff.json', 'handoff.md']);
  });
});
