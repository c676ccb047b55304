import * as assert from 'node:assert/strict';
import { doorLine } from '../../../src/core/render/prompt';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { fixturePath, makeTempDir, repoRoot } from '../helpers/fixtures';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { placeSession } from '../session/sessionFixture';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';
import { waitFor } from '../helpers/waitFor';

const main = (): string => path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');

/** A hook payload from the shared fixtures, with its placeholders filled in. */
async function hookFixture(name: string, cwd: string, home: string, patch: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const raw = await fs.readFile(fixturePath('transcripts', 'hooks', name), 'utf8');
  const esc = (s: string) => JSON.stringify(s).slice(1, -1);
  const text = raw.split('__CWD_SLUG__').join(esc(claudeProjectSlug(cwd))).split('__CWD__').join(esc(cwd)).split('__HOME__').join(esc(home));
  return { ...(JSON.parse(text) as Record<string, unknown>), ...patch };
}

/** The environment of a hook run: agent homes and the wrap-up state in test folders only. */
async function hookEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  const home = await makeTempDir('agents-');
  return { ...process.env, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), HANDOFF_STATE_DIR: await makeTempDir('state-'), ...extra };
}

const INLINE = { HANDOFF_HOOK_INLINE: '1' };

const packetsOf = async (dir: string): Promise<string[]> =>
  (await fs.readdir(path.join(dir, 'outputs/handoff'), { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name);

/** What Codex accepts from a SessionStart hook: exactly this shape (its schema rejects unknown fields). */
function sessionStartContext(stdout: string): string {
  const parsed = JSON.parse(stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['hookSpecificOutput']);
  const out = parsed['hookSpecificOutput'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(out).sort(), ['additionalContext', 'hookEventName']);
  assert.equal(out['hookEventName'], 'SessionStart');
  const context = out['additionalContext'] as string;
  assert.ok(context.length < 10_000, `${context.length} characters`);
  return context;
}

/** A Claude Code transcript whose last main-thread call used `used` of a 200 000-token window. */
function claudeLine(used: number, n: number): string {
  return `${JSON.stringify({
    type: 'assistant', isSidechain: false, sessionId: 'wrap-1', uuid: `u${n}`, parentUuid: `u${n - 1}`, timestamp: `2026-11-20T09:00:${String(n).padStart(2, '0')}.000Z`,
    message: { model: 'claude-sonnet-4-5', id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: used, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 } },
  })}\n`;
}

/** A Codex rollout for `cwd` whose last reading is `percent` % of its window (as Codex shows it). */
async function codexRollout(file: string, cwd: string, percent: number): Promise<void> {
  const window = 258_400;
  // Codex shows (used - 12 000) / (window - 12 000).
  const used = Math.round(12_000 + (percent / 100) * (window - 12_000));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(
    file,
    [
      { timestamp: '2026-11-20T16:00:00.000Z', type: 'session_meta', payload: { id: '019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68', cwd, cli_version: '0.142.4', originator: 'codex-tui' } },
      { timestamp: '2026-11-20T16:00:05.000Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: { input_tokens: used, cached_input_tokens: 0, output_tokens: 100, reasoning_output_tokens: 0, total_tokens: used + 100 }, last_token_usage: { input_tokens: used, cached_input_tokens: 0, output_tokens: 100, reasoning_output_tokens: 0, total_tokens: used + 100 }, model_context_window: window } } },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n',
  );
}

describe('Codex hooks and handoffs across agents (real process, real git)', function () {
  // Real processes and git: room for a busy machine (the waits are for states, not for a speed).
  this.timeout(180_000);
  const make = tempRepos(workbenchRepo);

  it('Codex SessionStart: startup and clear get the fresh packet as Codex expects it, resume a short line, compact the next action; none → nothing', async () => {
    const r = make();
    const home = await makeTempDir('home-');
    const env = await hookEnv();
    const none = handoff(['hook'], { env, input: JSON.stringify(await hookFixture('codex-session-start.startup.json', r.dir, home)) });
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '', 'no packet: nothing');
    assert.equal(handoff(['generate', '--dir', r.dir], { env }).code, 0);
    const forCodex = handoff(['prompt', '--for', 'codex', '--dir', r.dir], { env }).stdout;
    for (const source of ['startup', 'clear']) {
      const out = handoff(['hook'], { env, input: JSON.stringify(await hookFixture(`codex-session-start.${source}.json`, r.dir, home)) });
      assert.equal(out.code, 0, out.stderr);
      const context = sessionStartContext(out.stdout);
      // The same prompt, saying in one line at its end that it came through the hook.
      assert.equal(context, forCodex.replace('\nFull packet: ', `\n${doorLine('hook')}\nFull packet: `), source);
      assert.match(context, /^HANDOFF FROM A PREVIOUS SESSION \(session sess-a\) TO CODEX\.\n/);
      assert.match(context, /apply_patch/);
      assert.match(context, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py/);
      assert.match(context, /Full packet: outputs\/handoff\/sess-a\/handoff\.md\n$/);
    }
    // resume: the rollout already holds the thread; the packet is named, never repeated.
    const resumed = sessionStartContext(handoff(['hook'], { env, input: JSON.stringify(await hookFixture('codex-session-start.resume.json', r.dir, home)) }).stdout);
    assert.match(resumed, /^Session Handoff: the handoff packet sess-a \(branch feat\/refund, topic T-1\) was written from session sess-a, not this one/);
    assert.match(resumed, /handoff show/);
    assert.doesNotMatch(resumed, /NEXT ACTION|Handle partial refunds|apply_patch/);
    // compact: the packet written again, its next action handed back in the same JSON shape.
    const compact = handoff(['hook'], { env: { ...env, ...INLINE }, input: JSON.stringify(await hookFixture('codex-session-start.compact.json', r.dir, home)) });
    assert.equal(compact.code, 0, compact.stderr);
    const brief = sessionStartContext(compact.stdout);
    assert.match(brief, /^Session Handoff: the conversation was just compacted/);
    assert.match(brief, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py\n/);
    assert.doesNotMatch(brief, /Summary:|right away/);
  });

  it('Codex PreCompact and Stop print nothing (Stop takes JSON only); PreCompact writes a packet afterwards, Stop only past the threshold', async () => {
    const r = make();
    const home = await makeTempDir('home-');
    const env = await hookEnv();
    const pre = await hookFixture('codex-pre-compact.auto.json', r.dir, home);
    const out = handoff(['hook'], { env, input: JSON.stringify(pre) });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, '');
    await waitFor('the packet of PreCompact', async () => (await packetsOf(r.dir)).includes('sess-a'));

    const s = make();
    const stop = await hookFixture('codex-stop.json', s.dir, home);
    await codexRollout(stop['transcript_path'] as string, s.dir, 30);
    const below = handoff(['hook'], { env, input: JSON.stringify(stop) });
    assert.equal(below.code, 0, below.stderr);
    assert.equal(below.stdout, '');
    await new Promise((res) => setTimeout(res, 1500));
    assert.deepEqual(await packetsOf(s.dir), [], 'below the threshold a turn writes nothing');
    await codexRollout(stop['transcript_path'] as string, s.dir, 65);
    const past = handoff(['hook'], { env, input: JSON.stringify(stop) });
    assert.equal(past.code, 0, past.stderr);
    assert.equal(past.stdout, '');
    await waitFor('the packet of Stop past the threshold', async () => (await packetsOf(s.dir)).length > 0);

    // PostCompact: optional (SessionStart with source compact injects); nothing printed, nothing written.
    const u = make();
    const post = handoff(['hook'], { env, input: JSON.stringify(await hookFixture('codex-post-compact.auto.json', u.dir, home)) });
    assert.equal(post.code, 0, post.stderr);
    assert.equal(post.stdout, '');
    assert.match(await fs.readFile(path.join(u.dir, 'outputs/handoff/hook.log'), 'utf8'), /ignored event PostCompact/);
    assert.deepEqual(await packetsOf(u.dir), []);
    // Codex's UserPromptSubmit at 30 %: below the threshold, nothing is added to the turn.
    const prompt = await hookFixture('codex-user-prompt-submit.json', s.dir, home);
    await codexRollout(prompt['transcript_path'] as string, s.dir, 30);
    const quiet = handoff(['hook'], { env, input: JSON.stringify(prompt) });
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, '');
    await codexRollout(prompt['transcript_path'] as string, s.dir, 65);
    const said = JSON.parse(handoff(['hook'], { env, input: JSON.stringify(prompt) }).stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(said.hookSpecificOutput.hookEventName, 'UserPromptSubmit');
    assert.match(said.hookSpecificOutput.additionalContext, /^Session Handoff: context at 65 ?% \(wrap-up from 50 %\)/);
  });

  it('a packet written from a Claude Code session is injected into a Codex SessionStart in the same folder, and the other way round', async () => {
    for (const [from, to, fromTitle, toTitle, startFixture] of [
      ['claude-tools', 'codex', 'CLAUDE CODE', 'CODEX', 'codex-session-start.startup.json'],
      ['codex-tools', 'claude', 'CODEX', 'CLAUDE CODE', 'claude-session-start.startup.json'],
    ] as const) {
      const repo = makeRepo({ branch: 'feat/rate-limit', files: { 'README.md': '# api\n' } });
      const home = await makeTempDir('home-');
      const { file } = await placeSession(from, repo.dir);
      const env = await hookEnv(INLINE);
      // The packet, as the agent's own PreCompact hook writes it from its transcript.
      const sessionId = from === 'claude-tools' ? '7f3e2a91-4c8b-4d2e-9a1f-3b5c6d7e8f90' : '019aa3f1-7c2e-7b40-9d1a-5e6f7a8b9c0d';
      const pre = { session_id: sessionId, transcript_path: file, cwd: repo.dir, hook_event_name: 'PreCompact', trigger: 'auto', ...(from === 'codex-tools' ? { turn_id: 't1', model: 'gpt-5.5' } : {}) };
      const wrote = handoff(['hook'], { env, input: JSON.stringify(pre) });
      assert.equal(wrote.code, 0, wrote.stderr);
      assert.ok((await packetsOf(repo.dir)).length === 1, `${from}: one packet`);
      const start = handoff(['hook'], { env, input: JSON.stringify(await hookFixture(startFixture, repo.dir, home)) });
      assert.equal(start.code, 0, start.stderr);
      const context = sessionStartContext(start.stdout);
      assert.ok(context.startsWith(`HANDOFF FROM ${fromTitle} (session ${sessionId}) TO ${toTitle}.\n`), `${from} → ${to}: ${context.slice(0, 200)}`);
      assert.match(context, new RegExp(`may use ${fromTitle === 'CODEX' ? 'Codex' : 'Claude Code'}'s tool names`));
      assert.match(context, to === 'codex' ? /exec_command.*write_stdin/s : /run_in_background/);
      assert.match(context, /NEXT ACTION/);
    }
  });
});

describe('the wrap-up inside the agent (UserPromptSubmit)', function () {
  // Real processes and git: room for a busy machine (the waits are for states, not for a speed).
  this.timeout(180_000);
  it('nothing below the threshold; crossing 50 % one line, nothing again until 75 %, then one urgent line (per session)', async () => {
    const dir = await makeTempDir('ws-');
    const transcript = path.join(dir, 'session.jsonl');
    const env = await hookEnv();
    const event = JSON.stringify({ session_id: 'wrap-1', transcript_path: transcript, cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    const said: string[] = [];
    let n = 1;
    for (const used of [60_000, 90_000, 110_000, 112_000, 140_000, 160_000, 170_000, 120_000]) {
      await fs.appendFile(transcript, claudeLine(used, n++));
      const r = handoff(['hook'], { env, input: event });
      assert.equal(r.code, 0, r.stderr);
      said.push(r.stdout);
    }
    const lines = said.map((s) => (s ? (JSON.parse(s) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput : null));
    assert.deepEqual(lines.map((l) => (l ? l.hookEventName : '')), ['', '', 'UserPromptSubmit', '', '', 'UserPromptSubmit', '', '']);
    assert.match(lines[2]!.additionalContext, /^Session Handoff: context at 55 ?% \(wrap-up from 50 %\)\. Finish the step you are on, then write the handoff: run `handoff generate`/);
    assert.match(lines[5]!.additionalContext, /^Session Handoff: context at 80 ?% \(urgent from 75 %/);
    assert.ok(!lines[5]!.additionalContext.includes('\n'), 'one line');

    // Another session in the same folder gets its own levels; --warn-at moves the threshold.
    const other = JSON.stringify({ session_id: 'wrap-2', transcript_path: path.join(dir, 'other.jsonl'), cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: 'x' });
    await fs.writeFile(path.join(dir, 'other.jsonl'), claudeLine(70_000, 1).replace(/wrap-1/g, 'wrap-2'));
    assert.equal(handoff(['hook'], { env, input: other }).stdout, '', '35 % is below the default 50 %');
    assert.match(handoff(['hook', '--warn-at', '0.3'], { env, input: other }).stdout, /context at 35 ?% \(wrap-up from 30 %\)/);
  });

  it('a snooze set in the editor holds the line back until it ends', async () => {
    const dir = await makeTempDir('ws-');
    const transcript = path.join(dir, 'session.jsonl');
    const env = await hookEnv();
    await fs.writeFile(transcript, claudeLine(110_000, 1));
    await fs.writeFile(path.join(env['HANDOFF_STATE_DIR']!, 'handoff-wrapup-snooze.json'), JSON.stringify({ until: Date.now() + 60_000 }));
    const event = JSON.stringify({ session_id: 'wrap-1', transcript_path: transcript, cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
    assert.equal(handoff(['hook'], { env, input: event }).stdout, '');
    await fs.writeFile(path.join(env['HANDOFF_STATE_DIR']!, 'handoff-wrapup-snooze.json'), JSON.stringify({ until: Date.now() - 1 }));
    assert.match(handoff(['hook'], { env, input: event }).stdout, /wrap-up from 50 %/);
  });
});

describe('SessionEnd finishes in the background (real processes)', function () {
  // Real processes and git: room for a busy machine (the waits are for states, not for a speed).
  this.timeout(180_000);
  const make = tempRepos(workbenchRepo);

  it('the hook returns before the packet exists, and the packet appears even when the parent is killed right after', async () => {
    const r = make();
    const env = await hookEnv();
    const eventFile = path.join(await makeTempDir('event-'), 'event.json');
    await fs.writeFile(eventFile, JSON.stringify({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 'sess-a', reason: 'exit' }));
    // The "agent": a shell in its own process group that runs the hook, then kills its whole group.
    const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(main())} hook < ${JSON.stringify(eventFile)}; test -e ${JSON.stringify(path.join(r.dir, 'outputs/handoff/sess-a/handoff.json'))} && echo early; kill -KILL 0`;
    const agent = spawn('/bin/sh', ['-c', script], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    agent.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((res) => agent.on('close', (_code, sig) => res(sig)));
    assert.equal(signal, 'SIGKILL', 'the agent and its process group were killed');
    assert.equal(out, '', 'the hook returned before the packet was written');
    const json = await waitFor('the packet', () => fs.readFile(path.join(r.dir, 'outputs/handoff/sess-a/handoff.json'), 'utf8'));
    assert.equal(JSON.parse(json).session_id, 'sess-a');
    // The completion's last step, after the packet: its line in the log.
    await waitFor('the completion in hook.log', async () => /hook SessionEnd: packet written to /.test(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8')));
  });

  it('20 SessionEnd hooks at once leave one intact packet and an empty queue', async () => {
    const r = make();
    const env = await hookEnv();
    const event = JSON.stringify({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 'sess-a', reason: 'exit' });
    const runs = Array.from({ length: 20 }, () =>
      new Promise<number | null>((res) => {
        const child = spawn(process.execPath, [main(), 'hook'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
        child.on('close', (code) => res(code));
        child.stdin.end(event);
      }),
    );
    assert.deepEqual(await Promise.all(runs), Array.from({ length: 20 }, () => 0));
    const logFile = path.join(r.dir, 'outputs/handoff/hook.log');
    // One worker takes the queued events; those of the same session fold into the newest.
    const queue = path.join(env['HANDOFF_STATE_DIR']!, 'hook-queue');
    const waiting = async () => (await fs.readdir(queue)).filter((n) => n.endsWith('.event') || n === 'worker.lock');
    await waitFor('the queue drained', async () => /hook SessionEnd: packet written to/.test(await fs.readFile(logFile, 'utf8')) && (await waiting()).length === 0, 90_000);
    assert.deepEqual(await packetsOf(r.dir), ['sess-a'], 'one packet');
    const packet = JSON.parse(await fs.readFile(path.join(r.dir, 'outputs/handoff/sess-a/handoff.json'), 'utf8')) as { session_id: string; next_action: string };
    assert.equal(packet.session_id, 'sess-a');
    assert.equal(packet.next_action, 'Handle partial refunds in src/refund.py');
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/sess-a/handoff.md'), 'utf8'), /Handle partial refunds/);
    const left = (await fs.readdir(path.join(r.dir, 'outputs/handoff/sess-a'))).filter((f) => f.endsWith('.tmp'));
    assert.deepEqual(left, [], 'no half-written file');
    assert.doesNotMatch(await fs.readFile(logFile, 'utf8'), /Another handoff run|could not/);
  });
});
