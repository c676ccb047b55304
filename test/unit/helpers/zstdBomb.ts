/**
 * Hostile zstd frames, written by hand: `blocks` RLE blocks (one byte repeated `blockSize` times each)
 * in one frame whose window descriptor asks for `window` bytes (a power of two from 1 KiB, or the
 * largest zstd allows, 1.875 GiB, when `window` is 'max'). A few hundred bytes decode to gigabytes.
 */
export function rleBomb(blocks: number, blockSize: number, window: number | 'max'): Buffer {
  const wd = window === 'max' ? (20 << 3) | 7 : (Math.log2(window) - 10) << 3;
  const out: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0x00, wd];
  for (let i = 0; i < blocks; i++) {
    const header = (i === blocks - 1 ? 1 : 0) | (1 << 1) | (blockSize << 3);
    out.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, 0x61);
  }
  return Buffer.from(out);
}
