import { isReadOnlyCommand } from './readOnly';
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
  /(^|[ /])npm t( |$)/,
  /(^|[ /])(hardhat|forge|bun) test( |$)/,
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

/** The summary lines test runners print: mocha's "69 passing", pytest's "== 3 passed in 0.4s ==", jest, vitest, cargo, go. */
const TEST_OUTPUT: RegExp[] = [
  /^\s*\d+ (passing|failing)( \(\d|\s*$)/m,
  /^=+ .*\b\d+ (passed|failed)\b.* in \d+(\.\d+)?s/m,
  /^\d+ (passed|failed)(, \d+ \w+)* in \d+(\.\d+)?s/m,
  /^Tests:\s+(\d+ \w+, )*\d+ (passed|failed)/m,
  /^\s*Test Files\s+\d+ (passed|failed)/m,
  /^test result: (ok|FAILED)\. \d+ passed/m,
  /^(ok|FAIL)\s+\S+\s+\d+(\.\d+)?s$/m,
];

/** True when a command's output is a test runner's summary, whatever script started it ("69 passing"). */
export function isTestOutput(output: string | null | undefined): boolean {
  return !!output && TEST_OUTPUT.some((re) => re.test(output));
}

/** A test run: a known runner, or output that reads as a runner's summary. */
export function isTestRun(record: Pick<FeedbackRecord, 'command' | 'stdout_tail' | 'stderr_tail'>): boolean {
  return isTestCommand(record.command) || isTestOutput(record.stdout_tail) || isTestOutput(record.stderr_tail);
}

/** Leading `cd DIR &&` steps dropped: `cd services/sync && grep x f` is the grep. */
function lastStep(text: string): string | null {
  // Quoted text is an argument (`grep "a\|b"`): masked while looking for operators.
  const masked = text.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, (m) => 'q'.repeat(m.length));
  const steps: string[] = [];
  let from = 0;
  for (const m of masked.matchAll(/\s*&&\s*/g)) {
    steps.push(`${text.slice(from, m.index)}\u0000${masked.slice(from, m.index)}`);
    from = (m.index ?? 0) + m[0].length;
  }
  steps.push(`${text.slice(from)}\u0000${masked.slice(from)}`);
  while (steps.length > 1 && /^cd\s+\S+\u0000/.test(steps[0] ?? '')) steps.shift();
  if (steps.length !== 1) return null;
  const [step = '', mask = ''] = (steps[0] ?? '').split('\u0000');
  // Anything else that chains, pipes or substitutes says more than one command: its exit is no probe's.
  return /;|\|\||\||\$\(|`|\n|>/.test(mask) ? null : step.trim();
}

/** A command that starts a server, and what a server says when its port is taken by a running one. */
const SERVER = /(http\.server|serve\b|runserver|npm run (dev|start|serve)|pnpm (run )?(dev|start)|yarn (dev|start)|next (dev|start)|vite\b|uvicorn|gunicorn|flask run|rails s(erver)?\b|php -S)/;
const ALREADY_RUNNING = /EADDRINUSE|address already in use|port \d+ is (already )?in use|already running|Only one usage of each socket address/i;

const SEARCH = /^(grep|egrep|fgrep|rg|ag|ack|git grep|find)( |$)/;
const PROBE = /^(test -[a-zA-Z]|\[ -[a-zA-Z] |\[\[ -[a-zA-Z] |which |command -v |type -p |ls( |$))/;
const blank = (s: string | null | undefined): boolean => !(s ?? '').trim() || /^\((Bash )?completed with no output\)$/i.test((s ?? '').trim());

/** What `notAFailure` asks of a command, which depends on the command alone: worked out once per command. */
interface CommandFacts {
  /** The command without its leading `cd DIR &&` steps, or null when it chains more than one command. */
  step: string | null;
  search: boolean;
  probe: boolean;
  diff: boolean;
  server: boolean;
  readOnly: boolean;
}
const factsCache = new Map<string, CommandFacts>();
function commandFacts(full: string): CommandFacts {
  let facts = factsCache.get(full);
  // Stryker disable next-line ConditionalExpression: without the cache the same facts are worked out again
  if (!facts) {
    const step = lastStep(full);
    facts = {
      step,
      search: step !== null && SEARCH.test(step),
      probe: step !== null && PROBE.test(step),
      diff: /^(?:cd\s+\S+\s*&&\s*)*(?:diff|cmp|git diff --no-index|fc)\b/.test(full),
      server: SERVER.test(full),
      readOnly: isReadOnlyCommand(full),
    };
    // Stryker disable next-line all: the bound keeps the cache small; it does not change any answer
    if (factsCache.size >= 2000) factsCache.clear();
    factsCache.set(full, facts);
  }
  return facts;
}

/**
 * Why a non-zero exit is no failure, or null when it is one. A search that found nothing (`grep`, `rg`,
 * `ag`, `git grep`, `find` exiting 1 with no output, or the agent's own reading "No matches found"), a
 * probe (`test -f`, `[ -e … ]`, `which`, `command -v`, `ls` of a missing path), and a background run
 * stopped on purpose, a stream that ended, or a call that never ran are facts, not failures.
 * `normalized` is `normalizeCommand(record.command)`, when the caller has it already.
 */
export function notAFailure(record: FeedbackRecord, normalized?: string): string | null {
  const unfinished = typeof record['unfinished'] === 'string' ? record['unfinished'] : null;
  const exit = record.exit_code;
  if (exit === 0) return null;
  if (exit === null || exit === undefined) {
    if (unfinished === 'stopped') return 'a background run stopped on purpose';
    if (unfinished === 'completed') return 'a monitored stream that ended';
    if (unfinished === 'cancelled') return 'never ran (a parallel call failed first)';
    if (commandFacts(normalized ?? normalizeCommand(record.command)).readOnly) return 'a read-only command that did not finish: nothing changed';
    return null;
  }
  const facts = commandFacts(normalized ?? normalizeCommand(record.command));
  const interpretation = typeof record['interpretation'] === 'string' ? record['interpretation'] : '';
  const { step } = facts;
  if (/no match(es)? found/i.test(interpretation) && (step === null || facts.search)) return 'search found nothing';
  if (facts.diff && exit === 1) return 'the files differ (diff exits 1 when they do)';
  if (facts.server && ALREADY_RUNNING.test(`${record.stdout_tail ?? ''}\n${record.stderr_tail ?? ''}\n${record.error ?? ''}`)) return 'a server was already running there';
  if (facts.search || facts.probe) {
    const quiet = blank(record.stdout_tail) && blank(record.error);
    if (facts.search && exit === 1 && quiet && blank(record.stderr_tail)) return 'search found nothing';
    if (facts.probe && quiet && (blank(record.stderr_tail) || /no such file|not found|cannot access/i.test(record.stderr_tail ?? ''))) {
      return 'a probe: the thing it looked for is not there';
    }
  }
  if (facts.readOnly) return 'a read-only command: its exit code is an answer, nothing changed';
  return null;
}

/** A failure: an outcome other than `ok`, unless `notAFailure` says why it is none. */
export function isFailure(record: FeedbackRecord, normalized?: string): boolean {
  return outcomeOf(record) !== 'ok' && notAFailure(record, normalized) === null;
}

/** The command with its flags left out: `git rm -r --cached x` and `git rm --cached x` are one command. */
export function looseKey(command: string | string[]): string {
  return normalizeCommand(command).split(' ').filter((w) => !/^-/.test(w)).join(' ');
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
