import type { FeedbackRecord } from '../artifacts/schemas';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CheckResult } from './types';
import { normalizeCommand } from '../artifacts/commands';
import { agentsRead } from '../session/model';
import { testTargets } from './command';
import { redact } from '../redact';

/** Texts where a session records what is still broken: open risks, blockers, verification findings. */
function riskTexts(snapshot: WorkbenchSnapshot): string[] {
  // Stryker disable next-line ArrayDeclaration: a seeded text is no test command, so it never names one
  const texts: string[] = [];
  // The schemas make each entry free text or an object carrying its text under a common key.
  const add = (v: string | Record<string, unknown>): void => {
    if (typeof v === 'string') texts.push(v);
    else {
      for (const key of ['detail', 'text', 'description', 'id', 'verify', 'code'] as const) {
        const s = v[key];
        if (typeof s === 'string') texts.push(s);
      }
    }
  };
  snapshot.agentState?.open_risks.forEach(add);
  snapshot.agentState?.blockers.forEach(add);
  snapshot.verification?.findings.forEach(add);
  return texts.map((t) => t.toLowerCase().replace(/\s+/g, ' '));
}

/**
 * The newest failing command before the latest (green) test run that no later run of the same command
 * fixed — when the next action is about it: derived from it (no `next_action` recorded) or naming its
 * command or test file. A green check beside a "fix that failure" next action needs saying why.
 */
function failureStillNext(snapshot: WorkbenchSnapshot, before: number): { cmd: string; index: number } | null {
  const kept = snapshot.feedback?.kept ?? [];
  // Newest first (kept is in log order): a command seen passing fixes its earlier failures.
  const passed = new Set<string>();
  for (const r of [...kept].reverse()) {
    const cmd = normalizeCommand(r.record.command);
    if (r.record.exit_code === 0) passed.add(cmd);
    if (passed.has(cmd)) continue;
    // The newest open failure came after the green run: that is not an older failure beside it.
    // Stryker disable next-line EqualityOperator: the record at `before` is the green run, never a failure
    if (r.index > before) return null;
    const next = snapshot.agentState?.next_action?.trim().toLowerCase().replace(/\s+/g, ' ');
    if (!next) return { cmd, index: r.index };
    const needles = [cmd.toLowerCase(), ...testTargets(cmd).map((t) => t.toLowerCase())];
    return needles.some((n) => next.includes(n)) ? { cmd, index: r.index } : null;
  }
  return null;
}

/** What a session command with no exit status is doing, by its reader's `unfinished` (after "The latest test run …"). */
const UNFINISHED: Record<string, string> = {
  timeout: 'timed out with no exit status',
  background: 'went to the background and its outcome never came (still pending when the log ends)',
  running: 'was still running when the log was last written (no exit status yet)',
  interrupted: 'was interrupted before it finished',
  'no-result': 'has no exit status recorded',
  stopped: 'was stopped on purpose before it ended (no exit status)',
  completed: 'completed with no exit status (a monitored stream that ended)',
  cancelled: 'never ran (a parallel call failed first)',
};

/**
 * How a run without an exit code ended, as far as anyone knows: the session command's state, else the
 * reason recorded with it (`handoff record` writes "timeout after 30 s", "killed by SIGTERM"), else
 * just that no exit status was recorded — never a guess.
 */
function noExitOutcome(record: FeedbackRecord): string {
  const unfinished = typeof record['unfinished'] === 'string' ? record['unfinished'] : null;
  const known = unfinished ? UNFINISHED[unfinished] : undefined;
  if (known) return known;
  const why = (record.error ?? '').trim().split('\n')[0]?.trim() ?? '';
  if (unfinished === 'error') return why ? `ended without an exit status (${clip(why)})` : 'ended without an exit status (a tool error)';
  return why ? `did not finish (${clip(why)})` : 'has no exit status recorded';
}

const clip = (text: string): string => {
  // Redacted first: a cut never leaves part of a secret.
  const s: string = redact(text);
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
};

/**
 * Tests: the newest recorded test run (feedback_record.jsonl, else the agent session) is green, or
 * red and named in the open risks (by its command or its test file). With no test run recorded
 * anywhere the check is unknown: neutral, saying how to get one.
 */
export function checkTests(snapshot: WorkbenchSnapshot): CheckResult {
  const base = { check: 'tests' as const, title: 'Tests' };
  const last = snapshot.feedback?.lastTestRun ?? null;
  if (!last) {
    // Say what was looked for: a project whose tests run through its own script must know why
    // none of its commands counted. Nobody knows the state, which is not the same as red.
    const seen = snapshot.feedback?.total ?? 0;
    const where = snapshot.feedback?.derivedFrom ?? (snapshot.feedback ? 'feedback_record.jsonl' : null);
    const why = seen && where
      ? `None of the ${seen} command${seen === 1 ? '' : 's'} in ${where} looks like a test run (pytest, npm test, go test, cargo test, mvn test, …)`
      : `No test run is recorded (${snapshot.session ? `neither in feedback_record.jsonl nor in the ${snapshot.session.displayName}` : `no feedback_record.jsonl and no ${agentsRead()} session for this folder`})`;
    return {
      ...base,
      passed: true,
      unknown: true,
      summary: `Unknown: ${why.charAt(0).toLowerCase()}${why.slice(1)}. Run the tests through the agent, or record a run with \`handoff record -- <test command>\`.`,
      findings: [],
    };
  }
  const cmd = normalizeCommand(last.record.command);
  const derived = snapshot.feedback?.derivedFrom;
  // A session's commands are numbered as the packet numbers them ("#N", the record index); a log by its line.
  const where = derived ? `${derived}, command #${last.index}` : `feedback_record.jsonl line ${last.index + 1}`;
  const exit = last.record.exit_code;
  if (exit === 0) {
    const older = failureStillNext(snapshot, last.index);
    const note = older
      ? `Green because the latest run passed; the newest failure, \`${older.cmd}\` (${derived ? `command #${older.index}` : `line ${older.index + 1}`}), is still named as the next action.`
      : null;
    return { ...base, passed: true, summary: `The latest test run passed: \`${cmd}\` (${where}).${note ? ` ${note}` : ''}`, ...(note ? { note } : {}), findings: [] };
  }
  const outcome = exit === null || exit === undefined ? noExitOutcome(last.record) : `failed with exit ${exit}`;
  const needles = [cmd.toLowerCase(), ...testTargets(cmd).map((t) => t.toLowerCase())];
  const named = riskTexts(snapshot).some((t) => needles.some((n) => t.includes(n)));
  if (named) {
    return {
      ...base,
      passed: true,
      summary: `The latest test run ${outcome} (\`${cmd}\`), and the open risks name it.`,
      findings: [],
    };
  }
  return {
    ...base,
    passed: false,
    summary: `The latest test run ${outcome} and no open risk names it: \`${cmd}\`.`,
    findings: [
      {
        check: 'tests',
        kind: 'tests-failing',
        detail: `The latest test run ${outcome} and no open risk names it: \`${cmd}\` (${where}).`,
        fix: `Make \`${cmd}\` pass, or record the failure in agent_state.json open_risks.`,
        commands: [cmd],
      },
    ],
  };
}
