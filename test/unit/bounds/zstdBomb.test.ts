import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { codexRolloutReader } from '../../../src/core/context/codex';
import { SessionReader } from '../../../src/core/session/reader';
import { DECODED_BASE, MAX_WINDOW, streamZst } from '../../../src/core/zstd';
import { makeTempDir } from '../helpers/fixtures';
import { rleBomb } from '../helpers/zstdBomb';
import { storedZstd } from '../helpers/zstdFrame';

const NAME = 'rollout-2026-11-20T16-00-00-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68.jsonl.zst';

describe('zstd decompression bombs are refused before they are decoded', () => {
  it('a frame asking for a 1.875 GiB window (754 bytes) is refused with its file and byte, nothing decoded', async () => {
    const dir = await makeTempDir('zst-bomb-');
    const file = path.join(dir, NAME);
    const bomb = rleBomb(187, 128 * 1024, 'max');
    assert.equal(bomb.length, 754);
    await fs.writeFile(file, bomb);
    let decoded = 0;
    await assert.rejects(streamZst(file, (p) => void (decoded += p.length)), (e: Error) => {
      assert.match(e.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: compressed byte 0: a frame asks for a 1920 MiB window, over the 8 MiB decoded`));
      return true;
    });
    assert.equal(decoded, 0);
    // The meter names the file and the reason; it does not hang on it.
    const meter = await codexRolloutReader(file).read();
    assert.ok(!meter.known && /window, over the 8 MiB/.test(meter.reason), JSON.stringify(meter));
  });

  it('blocks that decode past the output budget are refused before that much is decoded', async () => {
    const dir = await makeTempDir('zst-bomb-');
    const file = path.join(dir, NAME);
    // 4 000 blocks of 128 KiB (500 MiB) from 16 KB, in a small window.
    await fs.writeFile(file, rleBomb(4000, 128 * 1024, 128 * 1024));
    let decoded = 0;
    await assert.rejects(streamZst(file, (p) => void (decoded += p.length)), /compressed byte \d+: decodes to over 271\.6 MiB from 15\.6 KiB compressed; not decoded further/);
    assert.equal(decoded, 0);
    assert.ok(DECODED_BASE < 500 * 1024 * 1024);
  });

  it('many tiny blocks in a big window (the decoder moves its window for each) are refused by the work they would cost', async () => {
    const dir = await makeTempDir('zst-bomb-');
    const file = path.join(dir, NAME);
    await fs.writeFile(file, rleBomb(2000, 1, MAX_WINDOW));
    await assert.rejects(streamZst(file, () => undefined), /\d+ blocks in a 8 MiB window cost the decoder over [\d.]+ MiB of work for 7\.8 KiB compressed/);
    // The session reader counts the file as unreadable rather than decoding it.
    const facts = await new SessionReader(file, 'codex').read();
    assert.ok(facts && facts.badLines.length === 1, JSON.stringify(facts?.badLines));
  });

  it('a real-sized file in an ordinary window is decoded whole', async () => {
    const dir = await makeTempDir('zst-ok-');
    const file = path.join(dir, NAME);
    const data = Buffer.from('{"type":"x"}\n'.repeat(400_000));
    await fs.writeFile(file, storedZstd(data, 3));
    let decoded = 0;
    const done = await streamZst(file, (p) => void (decoded += p.length));
    assert.deepEqual([done?.decodedBytes, decoded], [data.length, data.length]);
  });
});
