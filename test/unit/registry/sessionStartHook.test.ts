import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { tempRepos } from '../helpers/gitRepo';
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

describe('handoff hook on SessionStart (real process, real git)', () => {
  const make = tempRepos(workbenchRepo);

  it('prints nothing when there is no packet', () => {
    const r = make();
    for (const source of ['startup', 'resume', 'clear', 'compact']) {
      const out = handoff(['hook'], { input: sessionStart(r.dir, source) });
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, '', source);
    }
  });

  it('hands the fresh packet\'s restart prompt, with the goal first, to startup, resume, clear and compact', async () => {
    const r = make();
    const gen = handoff(['generate', '--dir', r.dir, '--goal', 'Ship partial refunds behind the flag']);
    assert.equal(gen.code, 0, gen.stderr);
    const prompt = handoff(['prompt', '--dir', r.dir]).stdout;
    assert.match(prompt, /^GOAL FOR THIS SESSION: Ship partial refunds behind the flag\n/);
    const forClaude = handoff(['prompt', '--for', 'claude', '--dir', r.dir]).stdout;
    assert.ok(forClaude.includes(prompt), 'the same restart prompt, for Claude Code');
    for (const source of ['startup', 'resume', 'clear', 'compact']) {
      const out = handoff(['hook'], { input: sessionStart(r.dir, source) });
      assert.equal(out.code, 0, out.stderr);
      const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
      assert.equal(context, forClaude, source);
      assert.match(context, /^HANDOFF FROM A PREVIOUS SESSION \(session sess-a\) TO CLAUDE CODE\.\n/);
      assert.match(context, /\nGOAL FOR THIS SESSION: Ship partial refunds behind the flag\n/);
      assert.match(context, /Full packet: outputs\/handoff\/sess-a\/handoff\.md\n$/);
      assert.match(context, /NEXT ACTION[^\n]*\n> Handle partial refunds in src\/refund\.py/);
    }
  });

  it('after a compaction, hands over the packet PreCompact just wrote for the session', async () => {
    const r = make();
    const pre = handoff(['hook'], { env: { ...process.env, HANDOFF_HOOK_INLINE: '1' }, input: JSON.stringify({ session_id: 'c0ffee-1', cwd: r.dir, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }) });
    assert.equal(pre.code, 0, pre.stderr);
    const last = JSON.parse(await fs.readFile(path.join(r.dir, 'outputs/handoff/last-hook.json'), 'utf8')) as { event: string; session_id: string; packet_dir: string };
    assert.equal(last.event, 'PreCompact');
    assert.equal(last.session_id, 'c0ffee-1');
    const written = JSON.parse(await fs.readFile(path.join(last.packet_dir, 'handoff.json'), 'utf8')) as { packet_id: string; session_id: string };
    const out = handoff(['hook'], { input: sessionStart(r.dir, 'compact') });
    const context = parseHookOutput(out.stdout).hookSpecificOutput.additionalContext;
    assert.match(context, new RegExp(`previous session \\(${written.session_id}, topic T-1\\)`));
    assert.match(context, /NEXT ACTION[^\n]*\n> Handle partial refunds/);
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
