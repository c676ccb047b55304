import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { cutAtParagraph, labelledNext, questionsIn, reportsDone, wholeWords } from '../../../src/core/packet/judgement';
import type { Packet } from '../../../src/core/packet/schema';
import { renderMarkdown } from '../../../src/core/render/markdown';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import type { SessionCommand } from '../../../src/core/session/model';
import { fixturePath } from '../helpers/fixtures';
import { closing, cmd, facts, packetFor } from '../helpers/sessionPacket';

/**
 * The session's own judgement in the packet (issue 20): closing words, questions, the human's words and
 * the next-action precedence, on session facts built here (the readers have their own tests).
 */

describe('the text rules of the closing words', () => {
  it('finds questions: sentences ending in "?", text under a question label, "Should I …", never in code', () => {
    const text = [
      'Status: the parser is done. Tests pass (12 passed).',
      '',
      'Question for you: should the cache be flushed on deploy? I left it on.',
      '',
      'Decision needed:',
      '- keep the v1 endpoint or drop it.',
      '',
      'Should I open the PR now',
      '',
      '```',
      'why does this print? echo "a?"',
      '```',
      'Run `curl "x?y"` to see it.',
    ].join('\n');
    assert.deepEqual(questionsIn(text), ['should the cache be flushed on deploy?', 'keep the v1 endpoint or drop it.', 'Should I open the PR now']);
    assert.deepEqual(questionsIn('All done. Nothing is open.'), []);
    assert.deepEqual(questionsIn('Is it A? Is it A?'), ['Is it A?'], 'a question asked twice is kept once');
  });

  it('finds the labelled next step on its line, or the list under it; the recap\'s "Next action:" sentence', () => {
    assert.equal(labelledNext('Done: x.\n\n**Next:** wire the CLI, then run `npm test`.\n\nQuestion: ok?'), 'wire the CLI, then run `npm test`.');
    assert.equal(labelledNext('Status: half.\nNext steps:\n- migrate db\n- run `make check`\n\nThanks'), 'migrate db; run `make check`');
    assert.equal(labelledNext('Remaining: the docs page'), 'the docs page');
    assert.equal(labelledNext("## What's next\n1. add docs\n2. ship"), 'add docs; ship');
    assert.equal(labelledNext('Remaining work: the docs page'), 'the docs page');
    // cline-native: without it the rejection reason typed last ("Do not run migrations here") became "continue: …".
    assert.equal(labelledNext('Rate limiting is in place for /login and the tests pass.\n\nStill open: tests for burst and window reset.'), 'tests for burst and window reset.');
    assert.equal(labelledNext('The issue is still open: nobody replied.'), null);
    assert.equal(labelledNext('Goal: ship it. Next action: submit the dashboard URL to the team.'), 'submit the dashboard URL to the team.');
    assert.equal(labelledNext('Next, I looked at the parser and fixed it.'), null);
  });

  it('keeps the closing words whole up to the limit, else cuts at a paragraph boundary and counts the rest', () => {
    const para = (c: string) => `${c.repeat(900)}.`;
    const text = [para('a'), para('b'), para('c'), para('d')].join('\n\n');
    assert.deepEqual(cutAtParagraph('short'), { text: 'short', omitted: 0 });
    const cut = cutAtParagraph(text);
    assert.equal(cut.text, [para('a'), para('b'), para('c')].join('\n\n'));
    assert.equal(cut.omitted, text.length - cut.text.length);
  });

  it('keeps the human\'s words whole up to about 2 000 characters, never cut inside a word', () => {
    const words = 'negative counts in there are backorders and must stay negative '.repeat(40);
    const w = wholeWords(words);
    assert.ok(w.text.length <= 2000 && w.omitted > 0);
    assert.ok(words.startsWith(w.text) && words[w.text.length] === ' ', 'cut at a space');
    assert.deepEqual(wholeWords('must stay negative'), { text: 'must stay negative', omitted: 0 });
  });

  it('reads "done" only when nothing is left open', () => {
    assert.equal(reportsDone('Both commits landed. The branch is pushed.'), true);
    assert.equal(reportsDone('Committed the parser. The full suite still fails in test_x.'), false);
    assert.equal(reportsDone('Done. Should I also update the docs?'), false);
  });

  it('reads a closing that opens with "Fixed:" as done, unless something still fails', () => {
    // claude-bigline.jsonl ends this way; reading it as not done made the finished request the next action.
    assert.equal(reportsDone('Fixed: invoice_total now sums Decimals and quantizes once. tests/test_export.py passes (8 passed).'), true);
    assert.equal(reportsDone('Fixed the parser, but test_x still fails.'), false);
  });
});

describe('the next action, in the order of issue 20', () => {
  const openTask = [{ content: 'Wire the parser into the CLI', status: 'in_progress' as const, since: 0, line: 40 }];

  it('1. the agent\'s next_action wins over everything the session wrote', async () => {
    const p = await packetFor((d) => facts(d, closing('Next: do the session thing.')), { 'agent_state.json': { next_action: 'Do the recorded thing' } });
    assert.equal(p.next_action, 'Do the recorded thing');
    assert.deepEqual(p.next_action_origin, { kind: 'agent_state', source: { file: 'agent_state.json', line: null, what: 'next_action' } });
  });

  it('2a. a labelled "Next:" line of the closing words, with the closing message as its source', async () => {
    const p = await packetFor((d) => facts(d, { ...closing('Status: parser done.\n\nNext: wire it into the CLI and run `npm test`.', 93), todos: openTask, recap: { text: 'Next action: something else.', line: 95 } }));
    assert.equal(p.next_action, 'wire it into the CLI and run `npm test`.');
    assert.equal(p.next_action_origin?.kind, 'closing-next');
    assert.equal(p.next_action_origin?.source?.line, 93);
    assert.equal(p.sources['next_action'], 'closing words');
  });

  it('2b. else the recap\'s "Next action:", with the recap\'s line', async () => {
    const p = await packetFor((d) => facts(d, { ...closing('Stopped for now.'), todos: openTask, recap: { text: 'Goal: ship. Next action: submit the dashboard URL to the team.', line: 95 } }));
    // A step handed to the human says who does it (issue 33).
    assert.equal(p.next_action, 'The user does this (the previous session handed it over): submit the dashboard URL to the team. Ask whether it is done and how it went before changing anything.');
    assert.deepEqual(p.next_action_origin, { kind: 'recap', source: { file: p.closing!.source.file, line: 95, what: 'recap' } });
  });

  it('3. else a human request that never got a real answer, before the task in progress', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('API Error: 529 overloaded'),
      todos: openTask,
      unanswered: [{ text: 'also export the report as CSV', line: 70, why: 'api-error' }, { text: 'and add a --since flag to the export', line: 80, why: 'api-error' }],
      latestRequest: { text: 'and add a --since flag to the export', line: 80 },
    }));
    assert.equal(p.next_action, 'Answer the user\'s last message, which never got a real answer (only API errors followed): "and add a --since flag to the export"');
    assert.equal(p.ending?.kind, 'human-unanswered');
    assert.equal(p.next_action_origin?.kind, 'unanswered-request');
    assert.equal(p.next_action_origin?.source?.line, 80);
  });

  it('4. else the task in progress, made concrete with the open failure that bears on it', async () => {
    const p = await packetFor((d) => facts(d, { todos: openTask, commands: [cmd('npm test', 1, { stdout_tail: 'AssertionError: parse("x") threw' })] }));
    assert.match(p.next_action, /^Wire the parser into the CLI: first make `npm test` pass \(it failed with exit 1: AssertionError: parse\("x"\) threw\)\.$/);
    assert.equal(p.next_action_origin?.kind, 'task');
    assert.equal(p.next_action_origin?.source?.line, 40);
  });

  it('5. else an open failure: test failures first; resolved failures, searches with no match and probes never', async () => {
    const cmds = [
      cmd('python -m pytest tests/test_provider.py -q', 1, { stdout_tail: 'FAILED tests/test_provider.py::test_retries_on_429' }),
      cmd('python -m pytest -q', 0, { stdout_tail: '12 passed in 0.4s' }),
      cmd('npm run lint', 1, { stdout_tail: 'error: no-unused-vars' }),
      cmd('node scripts/seed.js', 1, { stdout_tail: 'Error: ECONNREFUSED' }),
      cmd('grep -n "backoff" src/provider.py', 1, { stdout_tail: '', interpretation: 'No matches found' }),
      cmd('test -f .env.local', 1, { stdout_tail: '' }),
    ];
    const p = await packetFor((d) => facts(d, { commands: cmds }));
    assert.equal(p.next_action, 'Fix the cause and re-run `npm run lint` (it failed with exit 1: error: no-unused-vars).');
    assert.deepEqual(p.next_action_origin, { kind: 'failure', source: { file: p.failed_attempts[0]!.source!.file, line: cmds[2]!.line!, what: 'command' } });
    const failed = p.failed_attempts.map((f) => f.command);
    assert.deepEqual(failed, ['python -m pytest tests/test_provider.py -q', 'npm run lint', 'node scripts/seed.js']);
    assert.equal(p.failed_attempts[0]!.resolved_by, cmds[1]!.ordinal, 'the whole suite passed later: resolved');
    const grep = p.commands_run.find((c) => c.command.startsWith('grep'));
    assert.equal(grep?.not_a_failure, 'search found nothing');
    assert.match(p.commands_run.find((c) => c.command.startsWith('test -f'))?.not_a_failure ?? '', /probe/);
    assert.match(p.summary, /3 failures among those kept/, 'the summary counts neither the search nor the probe');
  });

  it('6. else, when the agent answered the latest request and closed, where its answer left the work — never "continue: <the request>"', async () => {
    const p = await packetFor((d) => facts(d, { ...closing('I looked at the parser.'), latestRequest: { text: 'now make the parser stream', line: 60 }, latestUserRequest: 'now make the parser stream' }));
    assert.equal(p.next_action, 'The previous session answered "now make the parser stream" and closed (L90); its answer ends: "I looked at the parser.". Start from that state: confirm it, then ask the user what comes next before starting new work.');
    assert.equal(p.next_action_origin?.kind, 'closing-next');
    assert.deepEqual(p.next_action_origin?.source?.line, 90);
  });

  it('6c. with no closing after the latest request (nothing answered it), the latest request is continued', async () => {
    const p = await packetFor((d) => facts(d, { ...closing('I looked at the parser.', 50), latestRequest: { text: 'now make the parser stream', line: 60 }, latestUserRequest: 'now make the parser stream' }));
    assert.match(p.next_action, /now make the parser stream/);
    assert.doesNotMatch(p.next_action, /I looked at the parser/);
  });

  it('6b. the session ended on its questions and wrote no step: their answers first, then the latest request — never just "continue: init"', async () => {
    const text = 'I read the repo.\n\n1. Should the CLI be named `ledger`?\n2. Which Node version do you target?\n3. Do you want ESM or CommonJS?';
    const p = await packetFor((d) => facts(d, { ...closing(text, 40), agent: 'codex', latestUserRequest: 'init', latestRequest: { text: 'init', line: 7 } }));
    assert.equal(p.next_action, 'Get the user\'s answer before doing anything else — the previous session ended asking: "Should the CLI be named `ledger`?"; "Which Node version do you target?"; "Do you want ESM or CommonJS?". Do only what they choose.');
    assert.deepEqual(p.next_action_origin, { kind: 'waiting', source: { file: p.closing!.source.file, line: 40, what: 'closing message' } });
    assert.equal(p.questions?.length, 3);
    assert.ok(!/right away/.test(renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } })));
  });

  it('7. work done: the session\'s own words, verify with the last test command, ask what comes next', async () => {
    const cmds = [cmd('npm test', 1), cmd('npm test', 0, { stdout_tail: '69 passing (2s)' }), cmd('git push', 0)];
    const p = await packetFor((d) => facts(d, { ...closing('Both commits landed and the branch is pushed.', 77), commands: cmds }));
    assert.equal(p.next_action, 'The previous session reported the request done: "Both commits landed and the branch is pushed.". Verify it (`npm test`) and ask the user what comes next.');
    assert.deepEqual(p.next_action_origin?.kind, 'done');
    assert.equal(p.next_action_origin?.source?.line, 77);
  });

  it('waiting for answers: the session ended on questions, so the prompt asks them first and never says to act right away', async () => {
    const p = await packetFor((d) => facts(d, { ...closing('Parser done.\n\nShould the cache be flushed on deploy, or kept?', 88), latestUserRequest: 'go' }));
    assert.equal(p.waiting_for_answers, true);
    assert.equal(p.next_action, 'Get the user\'s answer before doing anything else — the previous session ended asking: "Should the cache be flushed on deploy, or kept?". Do only what they choose.');
    assert.deepEqual(p.questions, [{ text: 'Should the cache be flushed on deploy, or kept?', from: 'closing', source: { file: p.closing!.source.file, line: 88, what: 'closing message' } }]);
    const prompt = renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } });
    assert.match(prompt, /was waiting for the answers: ask them first; with nobody to ask, make the most reasonable choice and state it/);
    assert.ok(!/right away/.test(prompt), 'never "act right away"');
    assert.match(prompt, /ask the open questions above before changing anything/);
    // A human message after the questions: they were seen, not waited on.
    const later = await packetFor((d) => facts(d, { ...closing('Should the cache be flushed?', 88), endedOnClosing: false }));
    assert.equal(later.waiting_for_answers, false);
    assert.equal(later.next_action, 'continue: Build the thing');
    assert.match(renderRestartPrompt(later, { freshness: { stale: false, reasons: [] } }), /right away/);
  });
});

interface ExpectedCommand {
  command: string; exit_code: number | null; rejected: boolean; outcome: string; line: number; result_line?: number; output_line?: number;
  tool_use_id?: string; call_id?: string; tool?: string; rejection_reason?: string; failing_tests?: string[]; rolled_back_turn?: boolean;
}
interface ExpectedQuestion { text: string; source: string; line: number; options?: string[] }
/** The parts of a fixture's .expected.json these tests read. */
interface Expected {
  session_id: string;
  first_user_request: string;
  user_requests: (string | { text: string; line: number })[];
  commands: ExpectedCommand[];
  todos: { content: string; status: 'pending' | 'in_progress' | 'completed' }[];
  closing_message: { line: number; status: string; next: string; question: string; text: string };
  open_questions: ExpectedQuestion[];
  away_summary: { line: number; goal: string; next_action: string };
  rejected_approaches: { reason?: string }[];
  rolled_back_requests: { text: string }[];
}

describe('an uncertain session command: what it may have changed', () => {
  it('the files it names and the files edited after it before the next command, never every file the session edited', async () => {
    const migrate = cmd('python scripts/migrate.py --to 8', null, { unfinished: 'timeout', error: 'Command timed out after 2m', stdout_tail: 'applying 0008' });
    const next = cmd('git status', 0);
    const p = await packetFor((d) => facts(d, {
      commands: [migrate, next],
      filesTouched: ['early.py', 'scripts/migrate.py', 'db/schema.sql', 'late.py'].map((f) => path.join(d, f)),
      edits: [
        { file: path.join(d, 'early.py'), line: 3, beforeCommand: migrate.ordinal },
        { file: path.join(d, 'db/schema.sql'), line: 30, beforeCommand: migrate.ordinal + 1 },
        { file: path.join(d, 'late.py'), line: 40, beforeCommand: next.ordinal + 1 },
      ],
    }));
    const f = p.failed_attempts.find((x) => x.uncertain);
    // Edited after it; early.py (before it), late.py (after the next command) and the script it ran (issue 33) are not.
    assert.deepEqual(f?.may_have_changed, ['db/schema.sql']);
  });
});

/** What an expected.json says, for building the facts a correct reader gives. */
async function expected(name: string): Promise<Expected> {
  return JSON.parse(await fs.readFile(fixturePath('transcripts', `${name}.expected.json`), 'utf8')) as Expected;
}
const requestAt = (e: Expected, i: number): { text: string; line: number } => {
  const r = e.user_requests[i];
  if (!r || typeof r === 'string') throw new Error(`request ${i} has no line`);
  return r;
};

describe('claude-tasks: the facts its expected.json gives', () => {
  let p: Packet;
  let e: Expected;
  before(async () => {
    e = await expected('claude-tasks');
    const c = e.closing_message;
    const closingText = `Status: ${c.status}\n\nNext: ${c.next}\n\nQuestion for you: ${c.question}`;
    const commands: SessionCommand[] = e.commands.map((x, i) => ({
      ordinal: i, id: x.tool_use_id ?? String(i), command: x.command, exit_code: x.exit_code, timed_out: false,
      unfinished: x.outcome === 'stopped' ? 'stopped' : x.outcome === 'completed' ? 'completed' : null,
      rejected: x.rejected, started_at: null, duration_ms: null,
      stdout_tail: x.outcome === 'failed' ? (x.failing_tests ?? []).map((t) => `FAILED ${t} - AssertionError: cursor not persisted before retry`).join('\n') : x.outcome === 'no_match' ? '' : 'ok',
      stderr_tail: null, error: null, agent_note: null, user_reply: null, line: x.line, result_line: x.result_line, tool: x.tool,
      rejection_reason: x.rejection_reason ?? null, interpretation: x.outcome === 'no_match' ? 'No matches found' : null,
    }));
    const tool = e.open_questions.find((q) => q.source === 'AskUserQuestion')!;
    p = await packetFor((d) => facts(d, {
      file: path.join(d, `${e.session_id}.jsonl`), sessionId: e.session_id,
      firstUserRequest: e.first_user_request, firstRequest: { text: e.first_user_request, line: 2 },
      latestUserRequest: requestAt(e, 1).text, latestRequest: { text: requestAt(e, 1).text, line: 53 },
      commands: commands.filter((x) => !x.rejected), commandCount: commands.length, rejected: commands.filter((x) => x.rejected), rejectedCount: 1,
      todos: e.todos.map((t) => ({ ...t, since: 0 })),
      closing: { text: closingText, line: e.closing_message.line }, endedOnClosing: true, lastAssistantMessage: closingText,
      openQuestions: [{ text: tool.text, source: 'question-tool', line: tool.line, options: tool.options }],
      recap: { text: `Goal: ${e.away_summary.goal} Next action: ${e.away_summary.next_action}`, line: e.away_summary.line },
    }), {}, 30);
  });

  it('keeps the closing words whole with their line', () => {
    assert.equal(p.closing?.source.line, 93);
    assert.ok(p.closing?.text.includes(e.closing_message.status));
    assert.ok(p.closing?.text.includes(e.closing_message.question));
    assert.equal(p.closing?.omitted_chars, undefined);
  });

  it('has the questions of the closing message and of the unanswered question tool, with their lines', () => {
    const want = e.open_questions.map((q) => [q.text, q.line]).sort();
    assert.deepEqual(p.questions?.map((q) => [q.text, q.source?.line]).sort(), want);
    assert.deepEqual(p.questions?.find((q) => q.from === 'question-tool')?.options, ['Persist before each retry (Recommended)', 'Keep saving after success']);
    assert.equal(p.waiting_for_answers, true);
  });

  it('takes the next action from the closing "Next:" line, with its source', () => {
    // It ends on the cursor question and names its step: the answer first, then the step (issue 33).
    assert.ok(p.next_action.startsWith("Get the user's answer before doing anything else"), p.next_action);
    assert.ok(p.next_action.endsWith(`Then: ${e.closing_message.next}`), p.next_action);
    assert.equal(p.next_action_origin?.kind, 'waiting');
    assert.equal(p.ending?.kind, 'waiting-for-human');
  });

  it('carries the rejection reason whole, with the line of the declined call', () => {
    const reason = e.rejected_approaches[0]!.reason!;
    assert.ok(p.decisions.some((d) => d.status === 'rejected' && d.text.includes(reason) && d.source?.line === 44));
    assert.deepEqual(p.human_words?.find((w) => w.kind === 'rejection-reason'), { kind: 'rejection-reason', text: reason, source: { file: p.closing!.source.file, line: 44, what: 'rejection reason' }, about: 'pip install tenacity==9.0.0' });
  });

  it('does not count the grep with no match, the stopped server or the ended Monitor as failures', () => {
    const notFailures = e.commands.filter((x) => x.outcome === 'no_match' || x.outcome === 'stopped' || x.outcome === 'completed').map((x) => x.command);
    assert.equal(notFailures.length, 3);
    for (const c of notFailures) assert.ok(!p.failed_attempts.some((f) => f.command === c), c);
    assert.equal(p.commands_run.find((c) => c.command.startsWith('grep'))?.not_a_failure, 'search found nothing');
    assert.deepEqual(p.failed_attempts.map((f) => f.source?.line), [41, 61]);
    assert.match(p.summary, /2 failures among those kept/);
  });

  it('prompt: the reason the human gave for declining is in the prompt itself, whole, before the other words — even in its tightest form', () => {
    const reason = e.rejected_approaches[0]!.reason!;
    const prompt = renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } });
    assert.ok(prompt.replace(/\s*\n>\s*/g, ' ').includes(reason), prompt);
    assert.ok(prompt.indexOf('reason given for declining') < prompt.indexOf('first request'), 'the reason comes first');
    assert.doesNotMatch(prompt, /human's words \(first and latest request, reasons, answers\) are in handoff\.md/);
    // A packet too long for the full form: the reason still reaches the session.
    const long = { ...p, summary: 'x '.repeat(4000), closing: p.closing ? { ...p.closing, text: `${p.closing.text}\n\n${'Detail line of the closing words. '.repeat(120)}` } : p.closing };
    const tight = renderRestartPrompt(long, { freshness: { stale: false, reasons: [] } });
    assert.ok(tight.length <= 10000, `${tight.length}`);
    assert.match(tight, /reason given for declining/);
  });

  it('prompt: next action, then the closing words, then the questions; waiting for answers; under the budget', () => {
    const prompt = renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } });
    const at = (s: string) => prompt.indexOf(s);
    assert.ok(at('NEXT ACTION') < at("closing words (verbatim") && at("closing words (verbatim") < at('Open questions'));
    assert.ok(prompt.includes(`> Question for you: ${e.closing_message.question}`));
    assert.match(prompt, /was waiting for the answers/);
    assert.ok(!/right away/.test(prompt));
    assert.ok(prompt.includes(`(${e.session_id}.jsonl:88)`), 'a question names its line');
    assert.ok(prompt.length <= 10000 && prompt.length / 4 < 2000, `${prompt.length} chars`);
    const md = renderMarkdown(p);
    assert.match(md, /## Closing words of the previous session/);
    assert.match(md, /source: .*\.jsonl:41/, 'a failed attempt shows its source');
    assert.match(md, /_Next action from: the answer the session ended waiting for — source: .*\.jsonl:\d+ \((closing message|question tool)\)_/);
    assert.match(md, /_How the session ended: The agent answered and ended waiting for the human's answer \(L93\)\._/);
    assert.match(md, /- should the cursor be written before each retry[^\n]*_\(source: .*\.jsonl:93 \(closing message\)\)_/);
    assert.match(md, /options: Persist before each retry \(Recommended\) \/ Keep saving after success/);
    assert.match(md, /\*\*Reason given for declining\*\* \(pip install tenacity==9\.0\.0\) _\(source: .*\.jsonl:44 \(rejection reason\)\)_/);
  });
});

describe('codex-2026: the facts its expected.json gives', () => {
  let p: Packet;
  let e: Expected;
  before(async () => {
    e = await expected('codex-2026');
    const commands: SessionCommand[] = e.commands.map((x, i) => ({
      ordinal: i, id: x.call_id ?? String(i), command: x.command, exit_code: x.exit_code, timed_out: false,
      unfinished: x.outcome === 'aborted' ? 'interrupted' : null, rejected: false, started_at: null, duration_ms: null,
      stdout_tail: x.outcome === 'failed' ? 'AssertionError: expected [Function] to throw an error' : x.outcome === 'aborted' ? 'added 1 package' : 'ok',
      stderr_tail: null, error: x.outcome === 'aborted' ? 'aborted by user after 14.2s' : null, agent_note: null, user_reply: null,
      line: x.line, result_line: x.output_line, tool: 'exec_command', rolled_back: x.rolled_back_turn === true,
    }));
    p = await packetFor((d) => facts(d, {
      agent: 'codex', file: path.join(d, 'rollout.jsonl'), sessionId: e.session_id,
      firstUserRequest: e.first_user_request, firstRequest: { text: e.first_user_request, line: 26 },
      latestUserRequest: e.first_user_request, latestRequest: { text: e.first_user_request, line: 26 },
      commands, commandCount: commands.length, todos: e.todos.map((t) => ({ ...t, since: 0 })),
      closing: { text: e.closing_message.text, line: e.closing_message.line }, endedOnClosing: true, lastAssistantMessage: e.closing_message.text,
      rolledBackRequests: [{ text: e.rolled_back_requests[0]!.text, line: 7 }],
    }));
  });

  it('has both questions of task_complete.last_agent_message, with its line, and waits for their answers', () => {
    assert.deepEqual(p.questions?.map((q) => [q.text, q.source?.line]), e.open_questions.map((q) => [q.text, q.line]));
    assert.equal(p.waiting_for_answers, true);
  });

  it('takes the next action from the interrupted install that may have partly applied, never "continue:"', () => {
    // The closing words still ask about the interrupted install: inspecting it comes first, then the questions.
    assert.match(p.next_action, /^Inspect what `npm install moment@3\.0\.0` may have changed before anything else.* Then get the user's answer — the previous session ended asking: .*remove moment/);
    assert.deepEqual(p.next_action_origin?.kind, 'waiting');
    assert.equal(p.next_action_origin?.source?.line, 15);
    assert.ok(!p.failed_attempts.some((f) => f.command === 'npm test -- src/dates' && f.resolved_by === undefined), 'the fixed test run is resolved');
  });

  it('keeps the first request whole and never says to act right away', () => {
    assert.deepEqual(p.human_words?.[0], { kind: 'first-request', text: e.first_user_request, source: { file: p.closing!.source.file, line: 26, what: 'first request' } });
    const prompt = renderRestartPrompt(p, { freshness: { stale: false, reasons: [] } });
    assert.ok(prompt.includes(e.first_user_request));
    assert.ok(!/right away/.test(prompt));
    for (const q of e.open_questions) assert.ok(prompt.replace(/\s+/g, ' ').includes(q.text), q.text);
  });
});
