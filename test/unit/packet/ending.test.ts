import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isReadOnlyCommand, programFiles, programOf } from '../../../src/core/artifacts/readOnly';
import { isBareContinuation, openFailuresOf, purposeOf } from '../../../src/core/packet/ending';
import { keyParts } from '../../../src/core/packet/judgement';
import { collectReadFirst } from '../../../src/core/packet/readFirst';
import type { CommandRun, FailedAttempt } from '../../../src/core/packet/schema';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { closing, cmd, facts, packetFor } from '../helpers/sessionPacket';

/**
 * How the session ended decides the next action (issue 33): each ending on small synthetic sessions,
 * the continuation rule, informative exit codes, supersession, and what the packet carries.
 */

const fresh = { freshness: { stale: false, reasons: [] } };

describe('the ending decides the next action', () => {
  it('cut mid-step: the last call has no result → check what it produced, named by what it was for, never "a compound shell command"', async () => {
    const copy = cmd('cp out/TRANSCRIPT.md ./TRANSCRIPT.md && git check-ignore -v TRANSCRIPT.md', null, { unfinished: 'no-result', line: 50, description: 'Copy the transcript into the repo' });
    const p = await packetFor((d) => facts(d, {
      commands: [cmd('npm test', 1, { line: 20 }), copy],
      latestRequest: { text: 'export a transcript of this chat', line: 40 },
      closing: null, endedOnClosing: false,
    }));
    assert.equal(p.ending?.kind, 'cut-mid-step');
    assert.match(p.next_action, /^Check what the unfinished step produced before anything else: Copy the transcript into the repo — `cp out\/TRANSCRIPT\.md/);
    assert.match(p.next_action, /never returned a result/);
    assert.match(p.next_action, /request it served: "export a transcript of this chat"/);
    assert.ok(!/compound shell command|may have partly applied/.test(p.next_action), p.next_action);
    assert.ok(!/npm test/.test(p.next_action), 'the failure before the last request is history, not next');
    assert.deepEqual(p.next_action_origin?.source?.line, 50);
    const prompt = renderRestartPrompt(p, fresh);
    assert.match(prompt, /How the previous session ended: The session was cut mid-step: its last call has no result \(L50\)\.\n[\s\S]*NEXT ACTION/);
  });

  it('cut mid-step with parallel calls: the one that writes is the step; a read-only sibling is only redone', async () => {
    const p = await packetFor((d) => facts(d, {
      commands: [
        cmd('bash ~/.codex/skills/apply-grant/export-session.sh .', null, { unfinished: 'no-result', line: 28, intent: 'I\'ll export this session first, then collect the repo context.' }),
        cmd("rg --files -g 'README.md'", null, { unfinished: 'no-result', line: 29 }),
      ],
      latestRequest: { text: 'help me apply for the grant; the product is now Vela', line: 7 },
      closing: null, endedOnClosing: false,
    }));
    assert.match(p.next_action, /^Check what the unfinished step produced before anything else: I'll export this session first, then collect the repo context — `bash ~\/\.codex\/skills\/apply-grant\/export-session\.sh \.`/);
    assert.match(p.next_action, /One other call also got no result \(`rg --files/);
    assert.match(p.next_action, /Vela/);
    // An unfinished read-only command is no uncertain work: nothing to inspect.
    assert.ok(!p.failed_attempts.some((f) => f.command.startsWith('rg ')));
    // The export script is what the command ran, not what it may have changed.
    assert.ok(!(p.failed_attempts[0]?.may_have_changed ?? []).some((f) => f.endsWith('export-session.sh')));
  });

  it('waiting for the human: the closing asks → get those answers, naming them, and do only what they choose', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('FW-005 is committed.\n\nWant me to (a) mark Source Currency future-only, (b) add the demo mock too, or (c) something else?', 256),
      commands: [cmd('grep -E "packageManager" package.json', 1, { line: 166 }), cmd('pnpm build', 0, { line: 218 })],
      latestRequest: { text: 'Pick up FW-005 first, then help decide FW-007', line: 133 },
    }));
    assert.equal(p.ending?.kind, 'waiting-for-human');
    assert.match(p.next_action, /^Get the user's answer before doing anything else — the previous session ended asking: "Want me to \(a\) mark Source Currency future-only/);
    assert.match(p.next_action, /Do only what they choose\.$/);
    assert.equal(p.waiting_for_answers, true);
  });

  it('the human spoke last and got no real answer → answer it; a bare "continue" is resolved to what it continues', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('Build complete. Deploy with `npx hardhat run scripts/deploy.js`.', 341),
      endedOnClosing: false,
      humanMessages: [{ text: 'deploy the contract, my wallet has PAS now', line: 347 }, { text: 'continue', line: 361 }],
      latestRequest: { text: 'continue', line: 361 },
      unanswered: [{ text: 'deploy the contract, my wallet has PAS now', line: 347, why: 'api-error' }, { text: 'continue', line: 361, why: 'api-error' }],
    }));
    assert.equal(p.ending?.kind, 'human-unanswered');
    assert.equal(p.next_action, 'Answer the user\'s last message, which never got a real answer (only API errors followed) (asked 2 times without an answer): "continue", continuing "deploy the contract, my wallet has PAS now"');
  });

  it('the agent closed with a step it hands to the human → that step, saying who does it', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('Your wallet has no Token-2022 account for this mint.\n\nYou need to create and fund the token account with `spl-token create-account`, then retry Fund Treasury.', 753),
      latestRequest: { text: 'give me steps to do this', line: 725 },
    }));
    assert.equal(p.ending?.kind, 'agent-closed');
    assert.match(p.next_action, /^The user does this \(the previous session handed it over\): You need to create and fund the token account/);
    assert.match(p.next_action, /Ask whether it is done and how it went/);
  });

  it('a polite "please let me know …" is no step handed to the human', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('I moved the handler to src/api.\n\nPlease let me know if you want the old route kept.', 90),
      latestRequest: { text: 'move the handler to src/api', line: 60 },
    }));
    assert.ok(!/The user does this/.test(p.next_action), p.next_action);
  });

  it('the agent reported the request done → verify what it reported and ask what comes next, with the recap\'s step after the task', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('Done: SUBMISSION.md is final and pushed as c566cc2.', 1338),
      recap: { text: 'Goal: rank engineers. Next action: submit the dashboard URL and SUBMISSION.md to the team.', line: 1296 },
      latestRequest: { text: 'point me to the session file', line: 1335 },
    }));
    assert.match(p.next_action, /^The previous session reported the request done: "Done: SUBMISSION\.md is final/);
    assert.match(p.next_action, /recap \(L1296\) named what comes after the task: "submit the dashboard URL and SUBMISSION\.md to the team\."/);
  });

  it('the user asked for steps and got them → the user runs them; the next session asks how it went', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('That error means the wallet has no token account.\n\n1. Run `spl-token create-account MINT`\n2. Retry the deposit.', 753),
      latestRequest: { text: 'give me steps to do this: the wallet has no Token-2022 account', line: 725 },
    }));
    assert.match(p.next_action, /^The user runs the steps the previous session gave for "give me steps to do this/);
    assert.match(p.next_action, /Ask whether they worked/);
  });

  it('a closing that recommends → take the recommendation to the user before acting on it', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('**Findings**\n1. The plan breaks retrieval; this is implemented wrongly.\n\n**Recommended Shape**\nKeep content as text and add embedding_inputs.', 150),
      latestRequest: { text: 'Review this implementation plan', line: 8 },
    }));
    assert.equal(p.next_action, 'Take the previous session\'s recommendation to the user and get their decision before acting on it: "Keep content as text and add embedding_inputs." (the request was "Review this implementation plan").');
  });

  it('a question quoted inside a sentence is no question to the user', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('Tradeoff: judges asking "can I attach a receipt?" hear "planned" instead. Want me to do (a) or (b)?', 256),
      latestRequest: { text: 'help decide FW-007', line: 133 },
    }));
    assert.deepEqual(p.questions?.map((q) => q.text), ['Want me to do (a) or (b)?']);
  });

  it('an old failure never becomes next by recency: a later pass on the same target, or a failure before the last request', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('I moved the handler and the build is green again.', 90),
      latestRequest: { text: 'move the handler to src/api', line: 60 },
      commands: [
        cmd('git pull', 1, { line: 30, stderr_tail: 'fatal: not possible to fast-forward' }),
        cmd('npm run build', 2, { line: 70 }),
        cmd('cd web && npm run build', 0, { line: 80 }),
      ],
    }));
    assert.ok(!/git pull|npm run build/.test(p.next_action), p.next_action);
    // The agent answered the request and closed: its answer is where the next session starts, never "continue: <request>".
    assert.match(p.next_action, /^The previous session answered "move the handler to src\/api" and closed \(L90\); its answer ends: "I moved the handler and the build is green again\."/);
  });

  it('a failure that is the session\'s last word on its target after the last request is next', async () => {
    const p = await packetFor((d) => facts(d, {
      ...closing('I changed the parser; the suite still has one failure I could not explain.', 90),
      latestRequest: { text: 'make the parser stream', line: 60 },
      commands: [cmd('npm test', 1, { line: 70, stdout_tail: 'AssertionError: stream ended early' })],
    }));
    assert.equal(p.next_action, 'Fix the cause and re-run `npm test` (it failed with exit 1: AssertionError: stream ended early).');
  });
});

describe('the parts of the ending model', () => {
  it('a bare continuation says only "go on"; a message with content is a request', () => {
    for (const t of ['continue', 'Continue generating', 'yes', 'go ahead', 'ok, continue please', 'hellooooo', 'Yes please, go on.', '?']) assert.ok(isBareContinuation(t), t);
    for (const t of ['continue with phase 4', 'yes, but use campaign_id', 'deploy it', 'hello, the toggle still does not work']) assert.ok(!isBareContinuation(t), t);
  });

  it('names a step by its description, else the sentence that says what comes next — never backward commentary', () => {
    assert.equal(purposeOf({ description: 'Run the full export' }), 'Run the full export');
    assert.equal(purposeOf({ intent: 'Telemetry is configured, but the sandbox blocked it. I\'m exporting the current session transcript now.' }), 'I\'m exporting the current session transcript now');
    assert.equal(purposeOf({ intent: 'Telemetry is already configured and harmless.' }), null);
    assert.equal(purposeOf({}), null);
  });

  it('read-only commands: readers, git reads, `sed -n`, pipes of readers; not writers, `sed -i`, redirects, substitutions', () => {
    for (const c of ["sed -n '1,220p' src/a.ts", 'cat .env | grep KEY', 'cd web && git log --oneline -5', 'git diff --stat', 'ls -la build', 'rg -n x src', 'which pnpm', 'test -f a', 'node --version', 'find . -name "*.ts"', 'diff a b', 'cat a 2>/dev/null']) assert.ok(isReadOnlyCommand(c), c);
    for (const c of ["sed -i 's/a/b/' f", 'cat a > b', 'echo x | tee f', 'git commit -m x', 'npm test', 'find . -delete', 'echo $(rm -rf x)', 'git config user.name x', 'python3 -m http.server']) assert.ok(!isReadOnlyCommand(c), c);
  });

  it('the program a command runs is its script for an interpreter; programFiles lists scripts, never outputs', () => {
    assert.equal(programOf('cd x && python3 export_session.py --all'), 'export_session.py');
    assert.equal(programOf('npm run build'), 'npm');
    assert.deepEqual(programFiles('bash ~/skills/export.sh . && ./run.sh --out a.txt'), ['~/skills/export.sh', './run.sh']);
  });

  it('open failures: after the last request, not superseded on their target, not reported fixed', () => {
    const f = (index: number, command: string, line: number): FailedAttempt => ({ index, command, outcome: 'failed', exit_code: 1, note: null, excerpt: 'boom', uncertain: false, source: { file: 's.jsonl', line } });
    const run = (index: number, command: string, outcome: CommandRun['outcome']): CommandRun => ({ index, command, exit_code: outcome === 'ok' ? 0 : 1, outcome, started_at: null, duration_ms: null, note: null });
    const failed = [f(0, 'git pull', 10), f(1, 'npm run build', 30), f(2, 'pytest tests/test_a.py', 40), f(3, 'cargo check', 50)];
    const commands = [run(0, 'git pull', 'failed'), run(1, 'npm run build', 'failed'), run(2, 'pytest tests/test_a.py', 'failed'), run(3, 'cargo check', 'failed'), run(4, 'cd app && npm run build', 'ok')];
    const open = openFailuresOf(failed, commands, 20, 'cargo check passes now.');
    assert.deepEqual(open.map((x) => x.command), ['pytest tests/test_a.py']);
    assert.deepEqual(openFailuresOf(failed, commands, null, null).map((x) => x.command), ['cargo check', 'pytest tests/test_a.py', 'git pull']);
  });
});

describe('what the packet carries for the next step', () => {
  it('a closing longer than its excerpt keeps its recommendation and next steps past the cut', async () => {
    const findings = Array.from({ length: 12 }, (_, i) => `${i + 1}. Finding number ${i + 1} about the plan, with enough words to matter here and there.`).join('\n\n');
    const text = `**Findings**\n\n${findings}\n\n${'Detail. '.repeat(300)}\n\n**Recommended Shape**\nKeep content as text and add embedding_inputs.\n\nThanks.`;
    const p = await packetFor((d) => facts(d, { ...closing(text, 150), latestRequest: { text: 'review the plan', line: 8 } }));
    assert.ok(p.closing!.text.length < text.length);
    assert.match(p.closing!.text, /\n\n\[…\]\n\n\*\*Recommended Shape\*\*\nKeep content as text and add embedding_inputs\.$/);
    assert.ok(!/Thanks\./.test(p.closing!.text), 'an unlabelled paragraph past the cut stays out');
    assert.equal(keyParts('Some detail.\n\nNext steps:\n- a\n- b\n\nBye.'), 'Next steps:\n- a\n- b');
    assert.equal(keyParts('Only detail here.\n\nAnd more.'), '');
  });

  it('"read these first" starts with the files the next action names', () => {
    const changed = ['src/a.ts', 'src/b.ts', 'src/report/totals.py'].map((p) => ({ path: p, kind: 'modified' as const }));
    const snapshot = { diagnostics: [], sources: [] } as unknown as Parameters<typeof collectReadFirst>[0];
    const files = collectReadFirst(snapshot, changed, [], { tempGlobs: [], knownFiles: ['src/a.ts', 'src/b.ts', 'src/report/totals.py'] }, 'Check what the export wrote to src/report/totals.py before anything else.');
    assert.equal(files[0], 'src/report/totals.py');
  });

  it('a message typed mid-turn that the agent then answered is not "unanswered"', async () => {
    const dir = await makeTempDir('handoff-ending-');
    const file = path.join(dir, 's1.jsonl');
    const queued = `${JSON.stringify({ type: 'attachment', isSidechain: false, sessionId: 's1', cwd: '/w', attachment: { type: 'queued_command', prompt: 'also keep the totals in euros', commandMode: 'prompt' } })}\n`;
    await fs.writeFile(file, [user('Build the export page'), call('c1', 'Bash', { command: 'npm test' }), queued, result('c1', 'ok'), say('a1', 'Done; totals stay in euros.')].join(''));
    const f = await readSessionFile(file, 'claude-code');
    assert.ok(f);
    assert.deepEqual(f.unanswered, []);
    const p = await packetFor(() => ({ ...f, cwd: '/w' }));
    assert.equal(p.ending?.kind, 'agent-closed');
    assert.ok(!/never got a real answer/.test(p.next_action), p.next_action);
  });

  const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
  const user = (text: string) => line({ type: 'user', isSidechain: false, sessionId: 's1', cwd: '/w', message: { role: 'user', content: text } });
  const call = (id: string, name: string, input: unknown) => line({ type: 'assistant', isSidechain: false, sessionId: 's1', cwd: '/w', message: { id: `m-${id}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id, name, input }] } });
  const result = (id: string, content: string, isError = false) => line({ type: 'user', isSidechain: false, sessionId: 's1', cwd: '/w', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] } });
  const say = (id: string, text: string) => line({ type: 'assistant', isSidechain: false, sessionId: 's1', cwd: '/w', message: { id: `m-${id}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] } });

  it('every message the human typed, a declined edit with its reason, and the plan the user approved', async () => {
    const dir = await makeTempDir('handoff-ending-');
    const file = path.join(dir, 's1.jsonl');
    await fs.writeFile(file, [
      user('Build the export page'),
      call('p1', 'ExitPlanMode', { plan: '## Plan\n1. Add /export route\n2. Stream rows as CSV' }),
      result('p1', 'User has approved your plan. You can now start coding.'),
      call('e1', 'Edit', { file_path: '/w/app/export.rb', old_string: 'id', new_string: 'id' }),
      result('e1', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use campaign_id instead of id", true),
      say('a1', 'Switched to campaign_id.'),
      user('the totals must stay in euros: the website imports both functions'),
      say('a2', 'Understood, totals stay in euros.'),
      user('now add the README'),
      say('a3', 'README added.'),
    ].join(''));
    const facts = await readSessionFile(file, 'claude-code');
    assert.ok(facts);
    assert.deepEqual(facts.humanMessages?.map((m) => [m.text, m.line]), [['Build the export page', 1], ['the totals must stay in euros: the website imports both functions', 7], ['now add the README', 9]]);
    assert.deepEqual(facts.rejectedEdits, [{ target: '/w/app/export.rb', reason: 'use campaign_id instead of id', line: 5 }]);
    assert.deepEqual(facts.approvedPlan, { text: '## Plan\n1. Add /export route\n2. Stream rows as CSV', line: 2 });
    const p = await packetFor(() => ({ ...facts, cwd: '/w' }));
    const kinds = (p.human_words ?? []).map((w) => [w.kind, w.source?.line]);
    assert.deepEqual(kinds, [['first-request', 1], ['message', 7], ['latest-request', 9], ['approved-plan', 2], ['rejection-reason', 5]]);
    assert.ok(p.decisions.some((d) => d.status === 'rejected' && /campaign_id/.test(d.text)));
    const prompt = renderRestartPrompt(p, fresh);
    assert.match(prompt, /Other messages the human typed \(newest first\)[^\n]*\n> - \(s1\.jsonl:7\) the totals must stay in euros/);
    assert.match(prompt, /plan the human approved \(s1\.jsonl:2\): ## Plan 1\. Add \/export route/);
  });

  it('a Codex plan is approved by "Implement the plan." after it was proposed', async () => {
    const dir = await makeTempDir('handoff-ending-');
    const file = path.join(dir, 's1.jsonl');
    await fs.writeFile(file, [
      user('plan the CSV export'),
      say('a1', 'Here is the plan.\n<proposed_plan>\n1. Add the route\n2. Stream rows\n</proposed_plan>'),
      user('Implement the plan.'),
    ].join(''));
    const facts = await readSessionFile(file, 'claude-code');
    assert.deepEqual(facts?.approvedPlan, { text: '1. Add the route\n2. Stream rows', line: 2 });
  });
});
