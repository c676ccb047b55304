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
  if (record.error && /time(d)?\s*-?out|timeout|deadline/i.test(record.error)) return 'timeout';
  // No error text and a duration that hit a round limit is still most likely a timeout; without
  // evidence either way we say "error" — both are reported as uncertain.
  return 'error';
}

/**
 * Matched against the normalized command (see `normalizeCommand`), whose only whitespace is single
 * spaces. A runner's name counts only as a whole word: at the start, or after a space or a `/`.
 */
const TEST_RUNNERS: RegExp[] = [
  /(^|[ /])(py\.test|pytest|jest|vitest|mocha|ava|tap|rspec|tox|nox|phpunit|ctest|karma|playwright test|cypress run)( |$)/,
  /(^|[ /])(npm|yarn|pnpm|bun)( run)? test(:\S*)?( |$)/,
  /(^|[ /])python\d?(\.\d+)? -m (pytest|unittest|nose2?)( |$)/,
  /(^|[ /])go test( |$)/,
  /(^|[ /])cargo (test|nextest)( |$)/,
  /(^|[ /])mvnw? (\S+ )*(test|verify)( |$)/,
  /(^|[ /])gradlew? (\S+ )*(test|check)( |$)/,
  /(^|[ /])(bundle exec )?(rake|rails) test( |$)/,
  /(^|[ /])dotnet test( |$)/,
  /(^|[ /])make (test|check)( |$)/,
  /(^|[ /])deno test( |$)/,
  /(^|[ /])mix test( |$)/,
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
    const ms = value > 1e12 ? value : value * 1000;
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? null : d.toISOString();
  }
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}
