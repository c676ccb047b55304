/**
 * A zstd frame made of raw (stored) blocks: valid zstd any decoder reads, written without a compressor
 * (Node 20 has none). Tests use it to put a rollout with a real path into `.jsonl.zst`; the decoding of
 * real compressed blocks is tested on the committed `codex-zst` fixture (written by the zstd CLI).
 * `frames` splits the data into that many concatenated frames.
 */
export function storedZstd(data: Buffer, frames = 1): Buffer {
  const out: Buffer[] = [];
  const per = Math.ceil(data.length / frames) || 0;
  for (let f = 0; f < frames; f++) {
    const part = data.subarray(f * per, Math.min(data.length, (f + 1) * per));
    // Magic number, then a descriptor with no content size, no checksum, no dictionary, and a 1 MiB window.
    out.push(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, (20 - 10) << 3]));
    const block = 128 * 1024;
    let at = 0;
    do {
      const size = Math.min(block, part.length - at);
      const last = at + size >= part.length ? 1 : 0;
      const header = last | (0 << 1) | (size << 3);
      out.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), part.subarray(at, at + size));
      at += size;
    } while (at < part.length);
  }
  return Buffer.concat(out);
}
