import * as assert from 'node:assert/strict';
import { doorLine } from '../../../src/core/render/prompt';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { tempRepos } from '../helpers/gitRepo';
import { folderLockDir } from '../../../src/cli/commands/hookDetached';
import { makeTempDir } from '../helpers/fixtures';
import { commitSource, handoff, workbenchRepo } from '../helpers/workbenchRepo';

/** The stdin Claude Code gives a SessionStart hook (source: startup, resume, clear or compact). */
const sessionStart = (cwd: string, source: string, sessionId = 'c0ffee-1') =>
  JSON.stringify({ session_id: sessionId, transcript_path: path.join(cwd, '.claude-transcript.jsonl'), cwd, hook_event_name: 'SessionStart', source });

interface HookJson {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}

function parseHookOutput(stdout: string): HookJson {
  const parsed = JSON.parse(stdout) as HookJson;
  assert.equal(parsed.hookSpecificOutput.hookEventName, 'SessionStart');
  assert.equal(typeof parsed.hookSpecificOutput.additionalContext, 'string');
  return parsed;
}

describe('handoff hook on SessionStart (real process, real git)', function () {
  // Many real processes a test: room for a busy machine (the waits are for answers, not for a speed).
  this.timeout(120_000);
  const make = tempRepos(workbenchRepo);

  it('prints nothing when there is no packet; after a compaction the packet is written from the session and its next action handed back', async () => {
    const r = make();
    for (const source of ['startup', 'resume', 'clear', 'fork']) {
      const out = handoff(['hook'], { input: sessionStart(r.dir, source) });
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, '', source);
    }
    await assert.rejects(fs.stat(path.join(r.dir, 'outputs/handoff/sess-a')), 'nothing written on startup, resume, clear or fork');
    // compact is the reliable post-compaction point (PreCompact may not have fired): the packet is written now.
    const out = handoff(['hook'], { env: { ...process.env, HANDOFF_HOOK_INLINE: '1' }, input: sessionStart(r.dir, 'compact') });
    assert.equal(out.code, 0, out.stderr);
    const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
    assert.match(context, /^Session Handoff: the conversation was just compacted; the handoff packet sess-a \(branch feat\/refund, topic T-1\) was rewritten from this session's transcript/);
    assert.match(context, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py\n/);
    assert.ok((await fs.stat(path.join(r.dir, 'outputs/handoff/sess-a/handoff.json'))).isFile());
  });

  it('startup and clear get the fresh packet\'s restart prompt; resume and fork one short line; compact only the next action and open questions', async () => {
    const r = make();
    const gen = handoff(['generate', '--dir', r.dir, '--goal', 'Ship partial refunds behind the flag']);
    assert.equal(gen.code, 0, gen.stderr);
    const prompt = handoff(['prompt', '--dir', r.dir]).stdout;
    assert.match(prompt, /^GOAL FOR THIS SESSION: Ship partial refunds behind the flag\n/);
    const forClaude = handoff(['prompt', '--for', 'claude', '--dir', r.dir]).stdout;
    assert.ok(forClaude.includes(prompt), 'the same restart prompt, for Claude Code');
    for (const source of ['startup', 'clear']) {
      const out = handoff(['hook'], { input: sessionStart(r.dir, source) });
      assert.equal(out.code, 0, out.stderr);
      const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
      // The same prompt, saying in one line at its end that it came through the hook.
      assert.equal(context, forClaude.replace('\nFull packet: ', `\n${doorLine('hook')}\nFull packet: `), source);
      assert.match(context, /^HANDOFF FROM A PREVIOUS SESSION \(session sess-a\) TO CLAUDE CODE\.\n/);
      assert.match(context, /\nGOAL FOR THIS SESSION: Ship partial refunds behind the flag\n/);
      assert.match(context, /Full packet: outputs\/handoff\/sess-a\/handoff\.md\n$/);
      assert.match(context, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py/);
    }
    // The resumed transcript already holds the history: nothing of the packet is repeated.
    for (const [source, id] of [['resume', 'sess-a'], ['fork', 'f0rk-2']] as const) {
      const out = handoff(['hook'], { input: sessionStart(r.dir, source, id) });
      assert.equal(out.code, 0, out.stderr);
      const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
      assert.equal(
        context,
        'Session Handoff: the handoff packet sess-a (branch feat/refund, topic T-1) still matches the current branch and HEAD; your transcript already holds this history, so it is not repeated here.\n' +
          'Review it with `handoff show` (outputs/handoff/sess-a/handoff.md).',
        source,
      );
    }
    // Resumed in another session than the packet's: that is named, still without its content.
    const other = parseHookOutput(handoff(['hook'], { input: sessionStart(r.dir, 'resume', 'c0ffee-9') }).stdout).hookSpecificOutput.additionalContext;
    assert.match(other, /written from session sess-a, not this one/);
    assert.doesNotMatch(other, /NEXT ACTION|Handle partial refunds|GOAL/);
    const compact = handoff(['hook'], { env: { ...process.env, HANDOFF_HOOK_INLINE: '1' }, input: sessionStart(r.dir, 'compact') });
    const brief = parseHookOutput(compact.stdout).hookSpecificOutput.additionalContext;
    assert.match(brief, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py\n/);
    assert.doesNotMatch(brief, /GOAL FOR THIS SESSION|Summary:|Read these first|right away/);
    assert.ok(brief.length < 1500, `${brief.length} characters`);
  });

  it('resume after the workspace moved on names only what changed since the packet', () => {
    const r = make();
    assert.equal(handoff(['generate', '--dir', r.dir]).code, 0);
    commitSource(r, 'src/refund.py', 'def refund(amount):\n    return max(0, amount)\n', 'later work');
    const out = handoff(['hook'], { input: sessionStart(r.dir, 'resume', 'sess-a') });
    const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
    assert.match(context, /^Session Handoff: since the handoff packet sess-a \(branch feat\/refund, topic T-1\) was written: HEAD moved 1 commit since the packet/);
    assert.match(context, /handoff show/);
    assert.doesNotMatch(context, /NEXT ACTION|Handle partial refunds/);
    assert.equal(context.split('\n').length, 3);
  });

  it('after a compaction the packet is written again from what the session left (an input changed): its new next action is handed back', async () => {
    const r = make();
    assert.equal(handoff(['generate', '--dir', r.dir]).code, 0);
    const state = JSON.parse(await fs.readFile(path.join(r.dir, 'agent_state.json'), 'utf8')) as Record<string, unknown>;
    await fs.writeFile(path.join(r.dir, 'agent_state.json'), JSON.stringify({ ...state, next_action: 'Add the refund ledger entry', questions_for_human: ['Round half up or half even?'] }));
    const out = handoff(['hook'], { env: { ...process.env, HANDOFF_HOOK_INLINE: '1' }, input: sessionStart(r.dir, 'compact', 'sess-a') });
    assert.equal(out.code, 0, out.stderr);
    const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
    assert.match(context, /NEXT ACTION[^\n]*\n> Add the refund ledger entry\n/);
    assert.match(context, /Open questions[^\n]*\n> - Round half up or half even\?/);
    assert.doesNotMatch(context, /stale|Handle partial refunds/);
    const last = JSON.parse(await fs.readFile(path.join(r.dir, 'outputs/handoff/last-hook.json'), 'utf8')) as { event: string; packet_dir: string };
    assert.equal(last.event, 'SessionStart');
    assert.equal((JSON.parse(await fs.readFile(path.join(last.packet_dir, 'handoff.json'), 'utf8')) as { next_action: string }).next_action, 'Add the refund ledger entry');
    // The same input again: the same packet, no second one.
    const again = handoff(['hook'], { env: { ...process.env, HANDOFF_HOOK_INLINE: '1' }, input: sessionStart(r.dir, 'compact', 'sess-a') });
    assert.equal(parseHookOutput(again.stdout).hookSpecificOutput.additionalContext, context);
    const dirs = (await fs.readdir(path.join(r.dir, 'outputs/handoff'), { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
    const active = await Promise.all(dirs.map(async (d) => (JSON.parse(await fs.readFile(path.join(r.dir, 'outputs/handoff', d.name, 'handoff.json'), 'utf8')) as { status: string }).status));
    assert.equal(active.filter((s) => s === 'active').length, 1);
  });

  it('after a compaction, a regeneration that cannot finish in the budget answers from the existing fresh packet and completes in the background', async () => {
    const r = make();
    // One user throughout: the packet is vouched for with the same state folder's key the hook reads.
    const env = { ...process.env, HANDOFF_STATE_DIR: await makeTempDir('state-') };
    assert.equal(handoff(['generate', '--dir', r.dir], { env }).code, 0);
    // Another completion for this folder holds its lock: the regeneration has to wait its turn.
    const queue = await folderLockDir(path.join(r.dir, 'outputs/handoff'), env);
    await fs.mkdir(queue, { recursive: true });
    await fs.writeFile(path.join(queue, '.lock'), JSON.stringify({ pid: process.pid, at: Date.now(), nonce: 'held-by-test' }));
    try {
      // Held for good, the lock would keep a hook without a budget waiting past the test's timeout.
      const out = handoff(['hook'], { env, input: sessionStart(r.dir, 'compact', 'sess-a') });
      assert.equal(out.code, 0, out.stderr);
      const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
      assert.match(context, /^Session Handoff: the conversation was just compacted; the handoff packet sess-a \(branch feat\/refund, topic T-1\) matches/);
      assert.match(context, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py\n/);
      assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8'), /finished in the background; answered from the existing packet/);
    } finally {
      await fs.rm(path.join(queue, '.lock'), { force: true });
    }
    // Its turn came: the detached process wrote the packet again and recorded it.
    const until = Date.now() + 30_000;
    let last: { event?: string } | null = null;
    while (Date.now() < until && last?.event !== 'SessionStart') {
      last = JSON.parse((await fs.readFile(path.join(r.dir, 'outputs/handoff/last-hook.json'), 'utf8').catch(() => 'null')) || 'null') as { event?: string } | null;
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.equal(last?.event, 'SessionStart');
  });

  it('a stale packet gets a short notice, not its instructions', async () => {
    const r = make();
    assert.equal(handoff(['generate', '--dir', r.dir]).code, 0);
    commitSource(r, 'src/refund.py', 'def refund(amount):\n    return max(0, amount)\n', 'later work');
    for (const source of ['startup', 'clear']) {
      const out = handoff(['hook'], { input: sessionStart(r.dir, source) });
      assert.equal(out.code, 0, out.stderr);
      const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
      assert.match(context, /^Session Handoff: a handoff packet exists for this folder \(sess-a, branch feat\/refund, topic T-1\), but it is stale: HEAD moved/);
      assert.match(context, /handoff show/);
      assert.doesNotMatch(context, /NEXT ACTION|Handle partial refunds/);
    }
  });

  it('never fails the session: an unreadable packet folder is logged, the hook exits 0 with nothing on stdout', async () => {
    const r = make();
    await fs.mkdir(path.join(r.dir, 'outputs/handoff/broken'), { recursive: true });
    await fs.writeFile(path.join(r.dir, 'outputs/handoff/broken/handoff.json'), '{"schema_version": 1,');
    const out = handoff(['hook'], { input: sessionStart(r.dir, 'startup') });
    assert.equal(out.code, 0);
    assert.equal(out.stdout, '');
    assert.equal(out.stderr, '');
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8'), /hook SessionStart: .*broken[/\\]handoff\.json:1: invalid JSON/);
  });
});
