/**
 * Times for people: "5 min ago (11:12)", with the exact ISO time kept for tooltips. Shared by the
 * extension host (tree rows) and the panel's browser script, so it imports neither vscode nor Node.
 */

/** Options for tests (a fixed zone and language); by default the user's own. */
export interface WhenOptions {
  locale?: string;
  timeZone?: string;
}

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** "just now", "4 min ago", "3 h ago", "yesterday", "12 days ago"; a time in the future (clock skew) is "just now". */
export function relativeTime(ms: number, now: number): string {
  const d = now - ms;
  if (d < MIN) return 'just now';
  if (d < HOUR) return `${Math.floor(d / MIN)} min ago`;
  if (d < DAY) return `${Math.floor(d / HOUR)} h ago`;
  if (d < 2 * DAY) return 'yesterday';
  if (d < 60 * DAY) return `${Math.floor(d / DAY)} days ago`;
  const months = Math.floor(d / (30 * DAY));
  return months < 24 ? `${months} months ago` : `${Math.floor(d / (365 * DAY))} years ago`;
}

function parts(ms: number, o: WhenOptions): Record<string, string> {
  const f = new Intl.DateTimeFormat(o.locale, { timeZone: o.timeZone, year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
}

/** The local clock time: "11:12" today, "30 Nov, 11:12" this year, "30 Nov 2025, 11:12" before. */
export function localTime(ms: number, now: number, o: WhenOptions = {}): string {
  const t = parts(ms, o);
  const n = parts(now, o);
  const clock = `${t['hour']}:${t['minute']}`;
  if (t['year'] === n['year'] && t['month'] === n['month'] && t['day'] === n['day']) return clock;
  const date = `${t['day']} ${t['month']}`;
  return t['year'] === n['year'] ? `${date}, ${clock}` : `${date} ${t['year']}, ${clock}`;
}

/** Relative and local together: "5 min ago (11:12)". */
export function humanTime(ms: number, now: number, o: WhenOptions = {}): string {
  return `${relativeTime(ms, now)} (${localTime(ms, now, o)})`;
}

/** The exact time for tooltips, or null for a time that does not parse. */
export function isoTime(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Epoch ms of an ISO time (or epoch-seconds number) from a packet, or null when it is not one. */
export function parseTime(value: string | number | null | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1000 : null;
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
