import * as assert from 'node:assert/strict';

const STAR = 0x2a;

/**
 * `after` is `before` with some bytes turned into `*` and nothing else: the same length, every other
 * byte equal. Returns the masked spans ([start, end) byte offsets) so a test can say what was masked.
 */
export function sameOutsideStars(before: Buffer, after: Buffer): [number, number][] {
  assert.equal(after.length, before.length, 'the same number of bytes');
  const spans: [number, number][] = [];
  for (let i = 0; i < before.length; i++) {
    if (after[i] === before[i]) continue;
    assert.equal(after[i], STAR, `byte ${i} changed to something other than a mask`);
    const last = spans[spans.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else spans.push([i, i + 1]);
  }
  return spans;
}
