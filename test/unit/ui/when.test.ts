import assert from 'node:assert/strict';
import { humanTime, isoTime, localTime, parseTime, relativeTime } from '../../../src/ui/format/when';

const NOW = Date.parse('2026-11-30T11:12:30Z');
const UTC = { locale: 'en-GB', timeZone: 'UTC' };

describe('times for people', () => {
  it('says how long ago, never a negative time', () => {
    assert.equal(relativeTime(NOW - 20_000, NOW), 'just now');
    assert.equal(relativeTime(NOW + 90_000, NOW), 'just now');
    assert.equal(relativeTime(NOW - 5 * 60_000, NOW), '5 min ago');
    assert.equal(relativeTime(NOW - 3 * 3_600_000, NOW), '3 h ago');
    assert.equal(relativeTime(NOW - 30 * 3_600_000, NOW), 'yesterday');
    assert.equal(relativeTime(NOW - 12 * 86_400_000, NOW), '12 days ago');
    assert.equal(relativeTime(NOW - 365 * 86_400_000, NOW), '12 months ago');
  });

  it('gives the local clock time, with the date only when it is not today', () => {
    assert.equal(localTime(Date.parse('2026-11-30T09:05:00Z'), NOW, UTC), '09:05');
    assert.equal(localTime(Date.parse('2026-11-02T21:40:00Z'), NOW, UTC), '2 Nov, 21:40');
    assert.equal(localTime(Date.parse('2025-11-30T11:12:00Z'), NOW, UTC), '30 Nov 2025, 11:12');
    // The same instant in another zone is another clock time.
    assert.equal(localTime(Date.parse('2026-11-30T09:05:00Z'), NOW, { locale: 'en-GB', timeZone: 'Asia/Kolkata' }), '14:35');
  });

  it('puts both together, and keeps the exact time for tooltips', () => {
    assert.equal(humanTime(NOW - 5 * 60_000, NOW, UTC), '5 min ago (11:07)');
    assert.equal(isoTime(NOW), '2026-11-30T11:12:30.000Z');
    assert.equal(isoTime(Number.NaN), null);
    assert.equal(parseTime('2025-11-30T11:12:00Z'), Date.parse('2025-11-30T11:12:00Z'));
    assert.equal(parseTime(1764400000), 1764400000000);
    assert.equal(parseTime('not a time'), null);
    assert.equal(parseTime(null), null);
  });
});
