import * as assert from 'node:assert/strict';
import { auditLine, auditPacket, type Audit, type AuditContext, type Probe } from '../../../src/core/packet/audit';
import type { FailedAttempt, Packet } from '../../../src/core/packet/schema';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { buildTestPacket } from '../helpers/packetBuilder';

const probeOf = (a: Audit, id: Probe['id']): Probe => a.probes.find((x) => x.id === id)!;
/** Status and detail of one probe on a test packet with `over` applied. */
const seen = (id: Probe['id'], over: Partial<Packet> = {}, ctx: AuditContext = {}): [string, string] => {
  const x = probeOf(auditPacket(buildTestPacket(over), ctx), id);
  return [x.status, x.detail];
};
const attempt = (index: number, over: Partial<FailedAttempt> = {}): FailedAttempt => ({
  index, command: 'npm test', outcome: 'failed', exit_code: 1, note: null, excerpt: 'AssertionError: expected 1 to equal 2', uncertain: false, ...over,
});
const uncertain = (index: number, excerpt: string): FailedAttempt => attempt(index, { outcome: 'timeout', exit_code: null, excerpt, uncertain: true });

describe('completeness audit: what each probe reports', () => {
  it('eleven probes in a fixed order, each with its title', () => {
    assert.deepEqual(auditPacket(buildTestPacket()).probes.map((x) => [x.id, x.title]), [
      ['task', 'The task is stated'],
      ['next-action', 'The next action names a command or a file'],
      ['failure-causes', 'Each failed attempt carries a cause line, not a stack frame'],
      ['uncertain-evidence', 'Each uncertain outcome carries its evidence and an inspection step'],
      ['rejected-approaches', 'Rejected approaches are carried when failures carry notes'],
      ['open-questions', 'Open questions and blockers are in the restart prompt'],
      ['closing-words', "The session's closing words are in the packet and the prompt"],
      ['next-action-open', 'The next action is not a superseded, read-only or harmless failure, nor an answered request'],
      ['read-first', 'The files to read first exist'],
      ['secrets', 'Masked secrets are flagged as a risk'],
      ['fresh', 'The packet is fresh'],
    ]);
  });

  it('the task: a topic, or a goal that is more than blanks', () => {
    assert.deepEqual(seen('task'), ['pass', 'topic T-1']);
    assert.deepEqual(seen('task', { next_goal: 'ship refunds' }), ['pass', 'topic T-1, goal: ship refunds']);
    assert.deepEqual(seen('task', { topic: 'default', next_goal: 'ship refunds' }), ['pass', 'topic default, goal: ship refunds']);
    assert.deepEqual(seen('task', { topic: 'default', next_goal: '   ' }), ['fail', 'no active task id, board feature, goal, session request or task in progress']);
  });

  const actions: [string, 'pass' | 'fail'][] = [
    ['npm test', 'pass'], // a command word at the very start
    ['Then run npm test', 'pass'],
    ['Run python -m unittest', 'pass'], // python without a version
    ['Run make  check', 'pass'], // more than one blank after the command
    ['Practise the tango dance', 'fail'], // "go" inside a word is not a command
    ['Ask about npm', 'fail'], // a command word with nothing after it
    ['Keep going with the refactor', 'fail'],
  ];
  for (const [action, status] of actions) {
    it(`the next action "${action}": ${status}`, () => {
      assert.equal(seen('next-action', { next_action: action })[0], status);
    });
  }

  it('the next action detail: the action itself, cut at 120 characters', () => {
    const long = `Run npm test ${'x'.repeat(200)}`;
    assert.deepEqual(seen('next-action', { next_action: long }), ['pass', long.slice(0, 120)]);
    const vague = `Keep going ${'y'.repeat(200)}`;
    assert.deepEqual(seen('next-action', { next_action: vague }), ['fail', `"${vague.slice(0, 120)}" names neither`]);
  });

  it('failure causes: counted over the certain failures only', () => {
    assert.deepEqual(seen('failure-causes', { failed_attempts: [] }), ['n/a', 'no failed attempts']);
    assert.deepEqual(seen('failure-causes', { failed_attempts: [uncertain(3, 'timeout')] }), ['n/a', 'no failed attempts']);
    assert.deepEqual(seen('failure-causes', { failed_attempts: [attempt(1), attempt(2)] }), ['pass', '2 of 2 with a cause']);
  });

  const excerpts: [string, string, boolean][] = [
    ['a frame, then the cause', '    at run (src/a.ts:1:1)\nAssertionError: expected 1', true],
    ['a one-word cause', 'AssertionError', true],
    ['blank lines only', '\n   \n', false],
    ['an empty excerpt', '', false],
    ['a cut mark only', '…', false],
    ['a cut mark and blanks', '… \n\n', false],
    ['"no output recorded"', 'exit 1 with no output recorded', false],
  ];
  for (const [name, excerpt, cause] of excerpts) {
    it(`a failure excerpt of ${name} ${cause ? 'carries' : 'lacks'} a cause`, () => {
      assert.deepEqual(seen('failure-causes', { failed_attempts: [attempt(7, { excerpt })] }), cause ? ['pass', '1 of 1 with a cause'] : ['fail', 'no cause recorded for #7']);
    });
  }

  it('the attempts without a cause: the first four by number, then how many more', () => {
    const noCause = (n: number): FailedAttempt[] => Array.from({ length: n }, (_, i) => attempt(i + 1, { excerpt: '' }));
    assert.equal(seen('failure-causes', { failed_attempts: noCause(4) })[1], 'no cause recorded for #1, #2, #3, #4');
    assert.equal(seen('failure-causes', { failed_attempts: noCause(5) })[1], 'no cause recorded for #1, #2, #3, #4, and 1 more');
    assert.equal(seen('failure-causes', { failed_attempts: noCause(7) })[1], 'no cause recorded for #1, #2, #3, #4, and 3 more');
  });

  it('uncertain evidence: partial output on every timed-out or killed command', () => {
    assert.deepEqual(seen('uncertain-evidence', { failed_attempts: [attempt(1)] }), ['n/a', 'no timed-out, killed or unfinished commands']);
    const partial = 'timeout after 30.0s\npartial output:\ncollected 12 items';
    assert.deepEqual(seen('uncertain-evidence', { failed_attempts: [uncertain(2, partial)] }), ['pass', '1 with partial output; the prompt asks to inspect them first']);
    assert.deepEqual(seen('uncertain-evidence', { failed_attempts: [uncertain(2, partial), uncertain(5, 'timeout after 30.0s')] }), ['fail', 'no partial output recorded for #5']);
  });

  it('uncertain evidence: a session command the session holds no output for is no gap anyone could fill; a workbench record still is', () => {
    const session = { file: '/home/dev/.codex/sessions/2026/11/20/rollout.jsonl', line: 15 };
    const aborted = { ...uncertain(1, 'aborted by user after 14.2s; no partial output recorded'), source: session };
    assert.deepEqual(seen('uncertain-evidence', { failed_attempts: [aborted] }), ['pass', '1 uncertain; the session holds no output for #1; the prompt asks to inspect them first']);
    const logged = { ...uncertain(4, 'timeout after 30.0s'), source: { file: 'feedback_record.jsonl', line: 5 } };
    assert.deepEqual(seen('uncertain-evidence', { failed_attempts: [aborted, logged] }), ['fail', 'no partial output recorded for #4']);
    assert.deepEqual(seen('uncertain-evidence', { failed_attempts: [uncertain(4, 'timeout after 30.0s')] }), ['fail', 'no partial output recorded for #4']);
  });

  it('rejected approaches: only decisions marked rejected count, once a failure carries a note', () => {
    const noted = [attempt(1, { note: 'rounding is off by one' }), attempt(2, { note: 'still off' })];
    assert.deepEqual(seen('rejected-approaches', { failed_attempts: [attempt(1)], decisions: [] }), ['n/a', 'no failure carries a note']);
    assert.deepEqual(seen('rejected-approaches', { failed_attempts: noted, decisions: [{ text: 'use Decimal', status: 'made' }] }), ['fail', '2 failure notes, no rejected approach recorded']);
    assert.deepEqual(seen('rejected-approaches', { failed_attempts: noted, decisions: [{ text: 'floats', status: 'rejected' }, { text: 'use Decimal', status: 'made' }] }), ['pass', '1 rejected approach']);
    assert.deepEqual(seen('rejected-approaches', { failed_attempts: noted, decisions: [{ text: 'floats', status: 'rejected' }, { text: 'ints', status: 'rejected' }] }), ['pass', '2 rejected approaches']);
  });

  it('open questions: n/a without any; blockers and questions counted when all reach the prompt', () => {
    assert.deepEqual(seen('open-questions', { open_risks: [] }), ['n/a', 'no questions or blockers recorded']);
    const blocker = { id: 'blocker:1', severity: 'block' as const, detail: 'Need the refund policy from finance', source: 'agent_state.json' };
    assert.deepEqual(seen('open-questions', { open_risks: [blocker], questions_for_human: ['Round half up or half even?'] }), ['pass', '2 in the prompt, before the risks']);
  });

  it('open questions: found in the prompt whatever their line breaks, blanks and length', () => {
    const odd = [
      'Which rounding rule\n   applies to refunds?', // the prompt joins lines with one blank
      'Keep  the two-space  gap in the reason code?', // blanks inside a line stay as written
      '  Should partial refunds notify the customer?  ',
      `Is the ledger export ${'very '.repeat(60)}large?`, // longer than the prompt shows
    ];
    assert.deepEqual(seen('open-questions', { questions_for_human: odd }), ['pass', '4 in the prompt, before the risks']);
  });

  it('open questions: those the prompt leaves out are counted (only past its hard limit: questions are never dropped to make room)', () => {
    const many = Array.from({ length: 9 }, (_, i) => `question number ${i} about the rounding rule`);
    assert.deepEqual(seen('open-questions', { questions_for_human: many }), ['pass', '9 in the prompt, before the risks']);
    const huge = Array.from({ length: 60 }, (_, i) => `question ${i}: ${'which rounding rule applies to partial refunds '.repeat(6)}`);
    const prompt = renderRestartPrompt(buildTestPacket({ questions_for_human: huge })).replace(/\s+/g, ' ');
    const missing = huge.filter((q) => !prompt.includes(q.slice(0, 60))).length;
    assert.ok(missing > 0 && missing < huge.length);
    assert.deepEqual(seen('open-questions', { questions_for_human: huge }), ['fail', `${missing} left out of the prompt`]);
  });

  it('open questions: judged on the prompt as rendered with the freshness warning', () => {
    const questions = Array.from({ length: 31 }, (_, i) => `question ${i}: ${'which rounding rule applies here '.repeat(9)}`);
    // A warning shorter than one question, so at the edge it pushes out exactly one.
    const stale = { stale: true, reasons: ['r'.repeat(100)] };
    let p: Packet | undefined;
    // The goal grows until the stale warning, and only it, pushes the last question past the hard limit.
    for (let n = 0; n <= 500 && !p; n += 1) {
      const q = buildTestPacket({ questions_for_human: questions, next_goal: n ? 'g'.repeat(n) : null });
      if (renderRestartPrompt(q).includes('question 30:') && !renderRestartPrompt(q, { freshness: stale }).includes('question 30:')) p = q;
    }
    assert.ok(p, 'a packet whose prompt fits only without the stale warning');
    assert.equal(probeOf(auditPacket(p), 'open-questions').status, 'pass');
    assert.deepEqual(seen('open-questions', p, { freshness: stale }), ['fail', '1 left out of the prompt']);
  });

  it('open questions: a question of the closing words counts, listed or not', () => {
    const closing = { text: 'Done with the parser. Should the cache be flushed on deploy?', source: { file: '/s.jsonl', line: 9 } };
    assert.deepEqual(seen('open-questions', { closing, questions: [] }), ['pass', '1 in the prompt, before the risks']);
  });

  it('closing words: n/a without any, pass when quoted, fail when an older packet lost them', () => {
    assert.deepEqual(seen('closing-words', { closing: null }), ['n/a', 'no closing words in the session']);
    assert.deepEqual(seen('closing-words', {}), ['n/a', 'no closing words in the session']);
    const closing = { text: 'Status: parser done.\n\nNext: wire it into the CLI.', source: { file: '/s.jsonl', line: 9 } };
    assert.deepEqual(seen('closing-words', { closing }), ['pass', `${closing.text.length} characters, quoted after the next action`]);
    assert.deepEqual(seen('closing-words', { summary: 'Task x. Where the agent stopped: "Committed."' }), ['fail', 'the session had closing words, but the packet or the prompt lost them']);
  });

  it('next action: fails when it names a failure a later run resolved, or a search that found nothing', () => {
    const failed = [attempt(3, { command: 'npm test', resolved_by: 5 })];
    const origin = { kind: 'failure' as const, source: null };
    assert.deepEqual(seen('next-action-open', { next_action: 'Ship it', next_action_source: 'agent_state' }), ['n/a', 'the next action does not come from a failure or an unanswered request']);
    assert.deepEqual(seen('next-action-open', { failed_attempts: failed, next_action: 'Fix the cause and re-run `npm test`.', next_action_source: 'derived', next_action_origin: origin }), ['fail', 'names #3, which a later run on the same target, the closing words or a later request superseded']);
    const open = [attempt(3, { command: 'npm test' })];
    assert.deepEqual(seen('next-action-open', { failed_attempts: open, commands_run: [], next_action: 'Fix the cause and re-run `npm test`.', next_action_source: 'derived', next_action_origin: origin }), ['pass', 'names a failure still open']);
    const grep = { index: 7, command: 'grep -n x src/a.py', exit_code: 1, outcome: 'ok' as const, started_at: null, duration_ms: null, note: null, not_a_failure: 'search found nothing' };
    assert.deepEqual(seen('next-action-open', { failed_attempts: [], commands_run: [grep], next_action: 'Fix the cause and re-run `grep -n x src/a.py`.', next_action_source: 'derived', next_action_origin: origin }), ['fail', 'names #7, which is no failure (search found nothing)']);
  });

  it('next action (issue 33): fails on a failure before the last request, a read-only command, or a request the agent answered', () => {
    const origin = { kind: 'failure' as const, source: null };
    const src = (line: number) => ({ file: '/s.jsonl', line });
    const latest = [{ kind: 'latest-request' as const, text: 'deploy it', source: src(60) }];
    const old = [attempt(3, { command: 'git pull', source: src(40) })];
    assert.deepEqual(seen('next-action-open', { failed_attempts: old, commands_run: [], human_words: latest, next_action: 'Fix the cause and re-run `git pull`.', next_action_source: 'derived', next_action_origin: origin }), ['fail', 'names #3, which a later run on the same target, the closing words or a later request superseded']);
    const after = [attempt(3, { command: 'git pull', source: src(70) })];
    assert.deepEqual(seen('next-action-open', { failed_attempts: after, commands_run: [], human_words: latest, next_action: 'Fix the cause and re-run `git pull`.', next_action_source: 'derived', next_action_origin: origin }), ['pass', 'names a failure still open']);
    const sed = [attempt(4, { command: "sed -n '1,220p' src/a.ts", source: src(70) })];
    assert.deepEqual(seen('next-action-open', { failed_attempts: sed, commands_run: [], human_words: latest, next_action: "Inspect what `sed -n '1,220p' src/a.ts` may have changed.", next_action_source: 'derived', next_action_origin: origin }), ['fail', 'names #4, a read-only command: its exit code is an answer, nothing to fix or inspect']);
    const unanswered = { kind: 'unanswered-request' as const, source: src(60) };
    assert.deepEqual(seen('next-action-open', { human_words: latest, closing: { text: 'Deployed.', source: src(80) }, next_action: 'Answer the request: "deploy it"', next_action_source: 'derived', next_action_origin: unanswered }), ['fail', 'answers the request at line 60, which the agent answered (its closing words at line 80)']);
    assert.deepEqual(seen('next-action-open', { human_words: latest, closing: null, next_action: 'Answer the request: "deploy it"', next_action_source: 'derived', next_action_origin: unanswered }), ['pass', 'the last request got no real answer']);
  });

  it('next action from the task list with no failure in it says so, not that it names an open failure', () => {
    // claude-tools.jsonl: "Add tests for per-key limits" (task in progress) was reported as "names a failure still open".
    const open = [attempt(3, { command: 'npm run migrate' })];
    const origin = { kind: 'task' as const, source: null };
    assert.deepEqual(seen('next-action-open', { failed_attempts: open, commands_run: [], next_action: 'Add tests for per-key limits (burst + window reset)', next_action_source: 'derived', next_action_origin: origin }), ['pass', 'names no failure']);
    assert.deepEqual(seen('next-action-open', { failed_attempts: open, commands_run: [], next_action: 'Add tests: first make `npm run migrate` pass.', next_action_source: 'derived', next_action_origin: origin }), ['pass', 'names a failure still open']);
  });

  it('rejected approaches: a note on a failure a later run fixed asks for no rejected approach', () => {
    // codex-tools.jsonl: the note on a fixed `npm test` is its diagnosis, not an approach that was dropped.
    const fixed = [attempt(3, { command: 'npm test', note: 'The limiter keys on req.ip', resolved_by: 4 })];
    assert.deepEqual(seen('rejected-approaches', { failed_attempts: fixed, decisions: [] }), ['n/a', 'no failure carries a note']);
    const open = [attempt(3, { command: 'npm test', note: 'The limiter keys on req.ip' })];
    assert.deepEqual(seen('rejected-approaches', { failed_attempts: open, decisions: [] }), ['fail', '1 failure notes, no rejected approach recorded']);
  });

  it('files to read first: n/a when none are listed or nothing was checked', () => {
    assert.deepEqual(seen('read-first', { next_session_prereqs: [] }, { exists: () => false }), ['n/a', 'no files listed']);
    assert.deepEqual(seen('read-first', { next_session_prereqs: ['src/a.ts'] }), ['n/a', 'not checked']);
    assert.deepEqual(seen('read-first', { next_session_prereqs: ['src/a.ts', 'src/b.ts'] }, { exists: () => true }), ['pass', '2 of 2 exist']);
    assert.deepEqual(seen('read-first', { next_session_prereqs: ['src/a.ts', 'src/b.ts'] }, { exists: (f) => f === 'src/a.ts' }), ['fail', 'missing: src/b.ts']);
  });

  it('masked secrets: flagged only by a block risk that names the secret', () => {
    const masked = { summary: 'curl -H "Authorization: Bearer [REDACTED]"' };
    assert.deepEqual(seen('secrets', { open_risks: [] }), ['n/a', 'nothing was masked']);
    const secretRisk = (over: object) => ({ id: 'secret:1', severity: 'block' as const, detail: 'leaked in feedback_record.jsonl line 11', source: 'redaction', ...over });
    assert.deepEqual(seen('secrets', { ...masked, open_risks: [secretRisk({})] }), ['pass', 'a block risk names the leaked credential']);
    assert.deepEqual(seen('secrets', { ...masked, open_risks: [secretRisk({ detail: 'an API token in line 11', id: 'redaction:1' })] }), ['pass', 'a block risk names the leaked credential']);
    assert.deepEqual(seen('secrets', { ...masked, open_risks: [secretRisk({ severity: 'warn' })] }), ['fail', 'a credential was masked but no risk says where it leaked']);
    assert.deepEqual(seen('secrets', { ...masked, open_risks: [secretRisk({ id: 'leak:secret' })] }), ['fail', 'a credential was masked but no risk says where it leaked']);
  });

  it('freshness: n/a unless checked; stale with its reasons', () => {
    assert.deepEqual(seen('fresh'), ['n/a', 'not checked against the repository']);
    assert.deepEqual(seen('fresh', {}, { freshness: { stale: false, reasons: [] } }), ['pass', 'branch, HEAD and inputs match']);
    assert.deepEqual(seen('fresh', {}, { freshness: { stale: true, reasons: ['HEAD moved', 'branch changed'] } }), ['fail', 'HEAD moved; branch changed']);
    assert.deepEqual(seen('fresh', {}, { freshness: { stale: true, reasons: [] } }), ['fail', 'stale']);
  });

  it('the one-line summary names the failing probes, and none when all pass', () => {
    const good = buildTestPacket({ failed_attempts: [], open_risks: [], next_action: 'Run `npm test`' });
    assert.equal(auditLine(auditPacket(good)), 'completeness 2/2 probes pass');
    assert.equal(auditLine(auditPacket({ ...good, topic: 'default', next_action: 'Keep going' })), 'completeness 0/2 probes pass — failing: task, next-action');
  });
});
