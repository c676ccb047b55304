import type { FeedbackRecord } from './schemas';

/** How a recorded command ended. `timeout` and `error` are uncertain: the command may have partly applied. */
export type Outcome = 'ok' | 'failed' | 'timeout' | 'error';

/**
 * The command as one normalized string: argv joined by single spaces, or the string with its
 * whitespace collapsed. Used as the key of `lastRunOf` and to compare commands.
 */
export function normalizeCommand(command: string | string[]): string {
  const text = Array.isArray(command) ? command.join(' ') : command;
  return text.trim().replace(/\s+/g, ' ');
}

/** The command for people: argv with arguments that contain spaces quoted. */
export function displayCommand(command: string | string[]): string {
  if (!Array.isArray(command)) return command.trim();
  return command.map((a) => (/[\s"']/.test(a) || a === '' ? `'${a.replace(/'/g, `'\\''`)}'` : a)).join(' ');
}

/**
 * A null/absent exit is a failure too: the command timed out or never started. We tell the two apart
 * from the recorded error text, because a timeout is the case most likely to have partly applied.
 */
export function outcomeOf(record: FeedbackRecord): Outcome {
  const code = record.exit_code;
  if (typeof code === 'number') return code === 0 ? 'ok' : 'failed';
  const err = `${record.error ?? ''}`.toLowerCase();
  if (/time(d)?\s*-?out|timeout|deadline/.test(err)) return 'timeout';
  // No error text and a duration that hit a round limit is still most likely a timeout; without
  // evidence either way we say "error" — both are reported as uncertain.
  return 'error';
}

const TEST_RUNNERS: RegExp[] = [
  /(^|[\s/])(py\.test|pytest|jest|vitest|mocha|ava|tap|rspec|tox|nox|phpunit|ctest|karma|playwright test|cypress run)(\s|$)/,
  /(^|[\s/])(npm|yarn|pnpm|bun)(\s+run)?\s+test(:\S*)?(\s|$)/,
  /(^|[\s/])(npx|pnpx|bunx)\s+(jest|vitest|mocha|playwright\s+test)(\s|$)/,
  /(^|[\s/])python\d?(\.\d+)?\s+-m\s+(pytest|unittest|nose2?)(\s|$)/,
  /(^|[\s/])go\s+test(\s|$)/,
  /(^|[\s/])cargo\s+(test|nextest)(\s|$)/,
  /(^|[\s/])mvnw?\s+(\S+\s+)*(test|verify)(\s|$)/,
  /(^|[\s/])gradlew?\s+(\S+\s+)*(test|check)(\s|$)/,
  /(^|[\s/])(bundle\s+exec\s+)?(rake|rails)\s+test(\s|$)/,
  /(^|[\s/])dotnet\s+test(\s|$)/,
  /(^|[\s/])make\s+(test|check)(\s|$)/,
  /(^|[\s/])deno\s+test(\s|$)/,
  /(^|[\s/])mix\s+test(\s|$)/,
];

/** True when the command looks like a test-runner invocation (pytest, npm test, go test, cargo test, …). */
export function isTestCommand(command: string | string[]): boolean {
  const text = normalizeCommand(command);
  return TEST_RUNNERS.some((re) => re.test(text));
}

/** `started_at` as ISO 8601 (epoch seconds, epoch milliseconds or a date string), or null. */
export function startedAtIso(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    const ms = value > 1e12 ? value : value * 1000;
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}
