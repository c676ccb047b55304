import * as assert from 'node:assert/strict';
import { ReadingWatch, UNKNOWN_RETRY_MS } from '../../../src/ui/state/readingWatch';
import type { ContextResult } from '../../../src/core/context/types';

const unknown = (reason = 'no agent session found for /w'): ContextResult => ({ known: false, reason });
const known = (percent = 25, file = '/c/projects/-w/s.jsonl'): ContextResult => ({
  known: true, source: 'claude', sessionId: 's', usedTokens: percent * 2000, windowTokens: 200_000, percent, compactAtPercent: 83.5, at: 't', file,
});

describe('ReadingWatch', () => {
  it('retries an unknown reading soon, then less often, never slower than the fallback', () => {
    const w = new ReadingWatch();
    const delays = Array.from({ length: 9 }, () => w.next(unknown(), []).retryInMs);
    assert.deepEqual(delays.slice(0, UNKNOWN_RETRY_MS.length), [...UNKNOWN_RETRY_MS]);
    assert.ok(delays.every((d) => d !== null && d <= 30_000));
    assert.ok((delays[0] ?? Infinity) <= 1_000, 'the first retry comes within a second');
  });

  it('logs a lost or found reading once, with where it looked and how many retries it took', () => {
    const w = new ReadingWatch();
    const first = w.next(unknown(), ['Claude Code: /c/projects/-w*']);
    assert.match(first.log ?? '', /no reading: no agent session found for \/w\. Looked in: Claude Code: \/c\/projects\/-w\*/);
    assert.equal(w.next(unknown(), []).log, null, 'the same unknown reading is not logged again');
    const found = w.next(known(), []);
    assert.equal(found.retryInMs, null);
    assert.match(found.log ?? '', /reading 25% from Claude Code, session s \(\/c\/projects\/-w\/s\.jsonl\) after 2 retries/);
    assert.equal(w.next(known(30), []).log, null, 'a moving reading of the same session is not news');
    // Lost again: logged again, and the retries start from the quick end.
    const lost = w.next(unknown(), []);
    assert.ok(lost.log);
    assert.equal(lost.retryInMs, UNKNOWN_RETRY_MS[0]);
  });
});
