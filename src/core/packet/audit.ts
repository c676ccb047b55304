import { renderRestartPrompt } from '../render/prompt';
import { openQuestions } from '../render/text';
import { isStackFrame } from './excerpt';
import { questionsIn } from './judgement';
import { isReadOnlyCommand } from '../artifacts/readOnly';
import { openFailuresOf } from './ending';
import { pathsIn } from './readFirst';
import type { Packet } from './schema';
import type { Audit, Probe } from './auditSchema';
import { redact } from '../redact';

export type { Audit, Probe } from './auditSchema';

/**
 * The completeness audit: a deterministic checklist of what a fresh agent needs from a packet, each
 * probe pass / fail / not applicable with the fix. Score = probes passed / probes applicable.
 */

export interface AuditContext {
  /** The packet's freshness against the repository, when it was checked. */
  freshness?: { stale: boolean; reasons: string[] } | null;
  /** Which of the packet's files to read exist (repo-relative); omitted: not checked. */
  exists?: (path: string) => boolean;
}

const COMMAND_WORD = /(^|\s)(npm|npx|pnpm|yarn|bun|node|pytest|python3?|pip|uv|cargo|go|make|git|tsc|eslint|mvn|gradle|dotnet|ruby|rake|bundle|docker|kubectl|terraform|handoff)\s+\S/;
const MASK = '[REDACTED]';

const probe = (id: Probe['id'], title: string, status: Probe['status'], detail: string, fix: string): Probe => ({ id, title, status, detail, fix });
/** Whitespace runs as one blank: the prompt joins a question's lines, and keeps the blanks within a line. */
const flat = (s: string): string => s.replace(/\s+/g, ' ');
const list = (xs: readonly (string | number)[], max = 4): string => `${xs.slice(0, max).join(', ')}${xs.length > max ? `, and ${xs.length - max} more` : ''}`;

/** True when an excerpt carries a cause line: something other than a frame or "no output recorded". */
function hasCause(excerpt: string): boolean {
  if (/no output recorded/.test(excerpt)) return false;
  return excerpt.split('\n').some((l) => !isStackFrame(l) && !/^…?\s*$/.test(l));
}

const clipped = (s: string, n = 80): string => {
  const one = flat(redact(s)).trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/**
 * How a session states its task when the packet has no task id or goal: the task list's item in
 * progress (the summary names it, or the next action came from it), the latest and the first request
 * (the human's words, or the summary's "Task from the …" line of an older packet). Empty when none.
 */
function sessionTaskStatements(p: Packet): string[] {
  const out: string[] = [];
  const inProgress = /Task list: \d+ of \d+ done; in progress: (.+?)\.(?: |$)/.exec(p.summary)?.[1];
  if (inProgress?.trim()) out.push(`in progress in the task list: "${clipped(inProgress)}"`);
  else if (p.next_action_origin?.kind === 'task') out.push('the task list has a task in progress');
  const words = (kind: 'first-request' | 'latest-request') => p.human_words?.find((w) => w.kind === kind && w.text.trim());
  const latest = words('latest-request');
  const first = words('first-request');
  if (latest) out.push(`the latest request: "${clipped(latest.text)}"`);
  if (first) out.push(`the first request: "${clipped(first.text)}"`);
  if (!latest && !first) {
    const task = /Task from the [^:]+: "(.+?)"\./.exec(p.summary)?.[1];
    if (task?.trim()) out.push(`the session's request: "${clipped(task)}"`);
  }
  return out;
}

/** Runs the checklist on a packet. Pure: the same packet and context give the same audit. */
export function auditPacket(p: Packet, ctx: AuditContext = {}): Audit {
  const probes: Probe[] = [];

  const ownTask = p.topic !== 'default' || !!p.next_goal?.trim();
  // Without a task id or a goal, a session states its task by the human's requests and its task list's item in progress.
  const sessionTask = ownTask ? [] : sessionTaskStatements(p);
  const stated = ownTask || sessionTask.length > 0;
  probes.push(probe('task', 'The task is stated', stated ? 'pass' : 'fail',
    ownTask ? `topic ${p.topic}${p.next_goal ? `, goal: ${p.next_goal}` : ''}` : stated ? sessionTask.join('; ') : 'no active task id, board feature, goal, session request or task in progress',
    'Record the task as active_task_id in agent_state.json (or the active feature in feature_list.json), or give the next session a goal.'));

  const concrete = /`[^`]+`/.test(p.next_action) || pathsIn(p.next_action).length > 0 || COMMAND_WORD.test(p.next_action);
  probes.push(probe('next-action', 'The next action names a command or a file', concrete ? 'pass' : 'fail',
    concrete ? p.next_action.slice(0, 120) : `"${p.next_action.slice(0, 120)}" names neither`,
    'Write next_action in agent_state.json as one concrete step naming the command to run or the file to change.'));

  const failed = p.failed_attempts.filter((f) => !f.uncertain);
  const causeless = failed.filter((f) => !hasCause(f.excerpt)).map((f) => `#${f.index}`);
  probes.push(probe('failure-causes', 'Each failed attempt carries a cause line, not a stack frame',
    failed.length === 0 ? 'n/a' : causeless.length ? 'fail' : 'pass',
    failed.length === 0 ? 'no failed attempts' : causeless.length ? `no cause recorded for ${list(causeless)}` : `${failed.length} of ${failed.length} with a cause`,
    'Record the failing output (stdout_tail / stderr_tail, or error) of each failed command in feedback_record.jsonl.'));

  const uncertain = p.failed_attempts.filter((f) => f.uncertain);
  const withoutOutput = uncertain.filter((f) => !/\npartial output:\n/.test(f.excerpt));
  // An agent session records what its commands printed: when it holds none for a command, there is
  // nothing anyone could have recorded, and the prompt still asks to inspect its effects first.
  const fromSession = (f: (typeof uncertain)[number]): boolean => !!f.source && f.source.file !== 'feedback_record.jsonl';
  const blind = withoutOutput.filter((f) => !fromSession(f)).map((f) => `#${f.index}`);
  const silent = withoutOutput.filter(fromSession).map((f) => `#${f.index}`);
  probes.push(probe('uncertain-evidence', 'Each uncertain outcome carries its evidence and an inspection step',
    uncertain.length === 0 ? 'n/a' : blind.length ? 'fail' : 'pass',
    uncertain.length === 0
      ? 'no timed-out, killed or unfinished commands'
      : blind.length
        ? `no partial output recorded for ${list(blind)}`
        : silent.length
          ? `${uncertain.length} uncertain; the session holds no output for ${list(silent)}; the prompt asks to inspect them first`
          : `${uncertain.length} with partial output; the prompt asks to inspect them first`,
    'Record the partial output (stdout_tail / stderr_tail) of timed-out and killed commands, so the next session sees how far they got.'));

  // A note on a failure a later run fixed is its diagnosis, acted on: no dropped approach to carry.
  const noted = p.failed_attempts.filter((f) => f.note && f.resolved_by === undefined);
  const rejected = p.decisions.filter((d) => d.status === 'rejected').length;
  probes.push(probe('rejected-approaches', 'Rejected approaches are carried when failures carry notes',
    noted.length === 0 ? 'n/a' : rejected ? 'pass' : 'fail',
    noted.length === 0 ? 'no failure carries a note' : rejected ? `${rejected} rejected approach${rejected === 1 ? '' : 'es'}` : `${noted.length} failure notes, no rejected approach recorded`,
    'Record what was tried and dropped as decisions ("rejected: …") in agent_state.json, so the next session does not retry it.'));

  // Quote markers left out, so a quoted text reads as one run whatever its line breaks.
  const prompt = flat(renderRestartPrompt(p, ctx.freshness ? { freshness: ctx.freshness } : {}).replace(/^>( |$)/gm, ''));
  const inPrompt = (text: string): boolean => prompt.includes(flat(text).trim().slice(0, 60));
  // The questions of the closing words count too, whether or not the packet listed them.
  const closingQuestions = p.closing ? questionsIn(p.closing.text) : [];
  const questions = [...openQuestions(p).map((q) => q.text), ...closingQuestions];
  const dropped = [...new Set(questions.filter((q) => !inPrompt(q)).map((q) => flat(q).trim()))];
  const total = new Set(questions.map((q) => flat(q).trim())).size;
  probes.push(probe('open-questions', 'Open questions and blockers are in the restart prompt',
    total === 0 ? 'n/a' : dropped.length ? 'fail' : 'pass',
    total === 0 ? 'no questions or blockers recorded' : dropped.length ? `${dropped.length} left out of the prompt` : `${total} in the prompt, before the risks`,
    'Shorten the questions and blockers in agent_state.json so that all of them fit in the restart prompt.'));

  // An older packet has no `closing` field; its summary says whether the session had closing words.
  const hadClosing = p.closing !== undefined ? p.closing !== null : /Where the agent stopped: "/.test(p.summary);
  const closingShown = !!p.closing?.text.trim() && inPrompt(p.closing.text);
  probes.push(probe('closing-words', "The session's closing words are in the packet and the prompt",
    !hadClosing ? 'n/a' : closingShown ? 'pass' : 'fail',
    !hadClosing ? 'no closing words in the session' : closingShown ? `${p.closing?.text.length ?? 0} characters, quoted after the next action` : 'the session had closing words, but the packet or the prompt lost them',
    'Regenerate the packet with this version, so it keeps the closing message of the session.'));

  // The next action may not be a failure that a later run resolved, nor one that was never a failure.
  const named = p.failed_attempts.filter((f) => p.next_action.includes(`failed attempt #${f.index} `) || p.next_action.includes(`\`${f.command}\``));
  // The last human message: a failure before it is history, never "next" by recency (issue 33).
  const lastRequestLine = p.human_words?.find((w) => w.kind === 'latest-request')?.source?.line ?? null;
  const closingLine = p.closing?.source.line ?? null;
  const open = new Set(openFailuresOf(p.failed_attempts, p.commands_run, lastRequestLine, p.closing?.text ?? null).map((f) => f.index));
  const harmless = p.commands_run.filter((c) => c.not_a_failure && (p.next_action.includes(`\`${c.command}\``) || p.next_action.includes(`failed attempt #${c.index} `)));
  const readOnly = named.filter((f) => isReadOnlyCommand(f.command));
  const stale = named.filter((f) => !open.has(f.index) && !readOnly.includes(f));
  const kind = p.next_action_origin?.kind;
  const derivedFromFailure = p.next_action_source === 'derived' && (kind === 'failure' || kind === 'task' || (!p.next_action_origin && named.length > 0));
  // "Answer the request that never got a real answer" when the agent answered after it.
  const answered = p.next_action_source === 'derived' && kind === 'unanswered-request' && lastRequestLine !== null && closingLine !== null && closingLine > lastRequestLine;
  const fromRecord = derivedFromFailure || (p.next_action_source === 'derived' && kind === 'unanswered-request');
  probes.push(probe('next-action-open', 'The next action is not a superseded, read-only or harmless failure, nor an answered request',
    !fromRecord ? 'n/a' : stale.length || harmless.length || readOnly.length || answered ? 'fail' : 'pass',
    !fromRecord ? 'the next action does not come from a failure or an unanswered request'
      : answered ? `answers the request at line ${lastRequestLine}, which the agent answered (its closing words at line ${closingLine})`
        : readOnly.length ? `names ${list(readOnly.map((f) => `#${f.index}`))}, a read-only command: its exit code is an answer, nothing to fix or inspect`
          : harmless.length ? `names ${list(harmless.map((c) => `#${c.index}`))}, which is no failure (${harmless[0]?.not_a_failure ?? ''})`
            : stale.length ? `names ${list(stale.map((f) => `#${f.index}`))}, which a later run on the same target, the closing words or a later request superseded` : named.length ? 'names a failure still open' : kind === 'unanswered-request' ? 'the last request got no real answer' : 'names no failure',
    'Regenerate the packet with this version (the ending of the session decides the next action: superseded failures, read-only commands, searches, probes and answered requests never become it), or record next_action in agent_state.json.'));

  const files = p.next_session_prereqs;
  // Everything counts as missing when nothing was checked; the probe is n/a then and does not list them.
  const missing = files.filter((f) => !ctx.exists?.(f));
  probes.push(probe('read-first', 'The files to read first exist',
    files.length === 0 || !ctx.exists ? 'n/a' : missing.length ? 'fail' : 'pass',
    files.length === 0 ? 'no files listed' : !ctx.exists ? 'not checked' : missing.length ? `missing: ${list(missing)}` : `${files.length} of ${files.length} exist`,
    'Regenerate the packet once the files exist, or correct touched_files in agent_state.json.'));

  const masked = JSON.stringify(p).includes(MASK);
  const flagged = p.open_risks.some((r) => r.severity === 'block' && (r.id.startsWith('secret') || /\b(secret|credential|key|token|password)\b/i.test(r.detail)));
  // Values masked only as possible credentials (a word after a key name) are named by one warning.
  const possible = p.open_risks.some((r) => r.id === 'possible-credentials');
  probes.push(probe('secrets', 'Masked secrets are flagged as a risk',
    !masked ? 'n/a' : flagged || possible ? 'pass' : 'fail',
    !masked ? 'nothing was masked' : flagged ? 'a block risk names the leaked credential' : possible ? 'a warning names the values masked as possible credentials' : 'a credential was masked but no risk says where it leaked',
    'Rotate the credential, remove it from the workbench file (and from git history before pushing), then regenerate.'));

  const fresh = ctx.freshness;
  probes.push(probe('fresh', 'The packet is fresh',
    !fresh ? 'n/a' : fresh.stale ? 'fail' : 'pass',
    !fresh ? 'not checked against the repository' : fresh.stale ? fresh.reasons.join('; ') || 'stale' : 'branch, HEAD and inputs match',
    'Regenerate the packet (handoff generate, or Generate Handoff in the editor).'));

  const applicable = probes.filter((x) => x.status !== 'n/a').length;
  const passed = probes.filter((x) => x.status === 'pass').length;
  return { passed, applicable, probes };
}

/** `7/9 probes pass` and the failing ones by id, for a one-line summary. */
export function auditLine(a: Audit): string {
  const failing = a.probes.filter((x) => x.status === 'fail').map((x) => x.id);
  return `completeness ${a.passed}/${a.applicable} probes pass${failing.length ? ` — failing: ${failing.join(', ')}` : ''}`;
}
