import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { agentOfEvent } from '../../../src/cli/commands/hookEvent';
import { repoRoot } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';

describe('the SessionStart hook for Gemini CLI and Qwen Code, as each agent reads its answer', function () {
  this.timeout(120_000);
  const make = tempRepos(workbenchRepo);

  it('tells the agents apart by the session log the event names', () => {
    assert.equal(agentOfEvent({ transcript_path: '/home/dev/.gemini/tmp/slugkit/chats/session-2026-12-01T21-52-73004524.jsonl' }), 'gemini');
    assert.equal(agentOfEvent({ transcript_path: '/home/dev/.qwen/projects/-home-dev-src-slugkit/chats/651e68fc-fced-4fcf-bc21-752e912c607a.jsonl' }), 'qwen');
    assert.equal(agentOfEvent({ transcript_path: '/home/dev/.claude/projects/-home-dev-src-slugkit/0b1c.jsonl' }), 'claude');
    assert.equal(agentOfEvent({ transcript_path: '/home/dev/.codex/sessions/2026/12/01/rollout-2026-12-01T21-52-00-0b1c.jsonl' }), 'codex');
  });

  it('prints hookSpecificOutput.additionalContext: the handoff addressed to the agent, in its own tool names (the bundled entry too)', () => {
    const r = make();
    const gen = handoff(['generate', '--dir', r.dir, '--goal', 'Ship partial refunds behind the flag']);
    assert.equal(gen.code, 0, gen.stderr);
    const cases = [
      // Gemini CLI's SessionStart stdin (docs/hooks/reference.md) names its session-*.jsonl.
      { agent: 'gemini', title: 'GEMINI CLI', tool: 'run_shell_command', input: { session_id: '73004524-c1e8', transcript_path: path.join(r.dir, '.gemini/tmp/refund/chats/session-2026-12-01T21-52-73004524.jsonl'), cwd: r.dir, hook_event_name: 'SessionStart', timestamp: '2026-12-01T21:52:00.000Z', source: 'startup' } },
      // Qwen Code's (Claude-Code-style fields) names its chats/<id>.jsonl.
      { agent: 'qwen', title: 'QWEN CODE', tool: 'todo_write', input: { session_id: '651e68fc-fced', transcript_path: path.join(r.dir, '.qwen/projects/-refund/chats/651e68fc-fced.jsonl'), cwd: r.dir, hook_event_name: 'SessionStart', permission_mode: 'yolo', source: 'startup' } },
    ];
    for (const c of cases) {
      const out = handoff(['hook'], { input: JSON.stringify(c.input) });
      assert.equal(out.code, 0, out.stderr);
      // Both agents parse stdout as one JSON object and add hookSpecificOutput.additionalContext to the context.
      const parsed = JSON.parse(out.stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: unknown } };
      assert.equal(parsed.hookSpecificOutput?.hookEventName, 'SessionStart');
      const context = parsed.hookSpecificOutput?.additionalContext;
      assert.equal(typeof context, 'string');
      assert.match(context as string, new RegExp(`^HANDOFF FROM [A-Z ]+ \\(session [^)]*\\) TO ${c.title}\\.\\n`));
      assert.ok((context as string).includes(c.tool), `${c.agent}: its own tool names`);
      assert.ok(!(context as string).includes('TodoWrite'), `${c.agent}: not Claude Code's`);
      assert.match(context as string, /Ship partial refunds behind the flag/);
      // The command the agents run (the bundle's small hook entry) answers the same.
      const bundled = spawnSync(process.execPath, [path.join(repoRoot(), 'dist', 'cli.js'), 'hook'], { input: JSON.stringify(c.input), encoding: 'utf8', timeout: 60_000 });
      assert.equal(bundled.status, 0, bundled.stderr);
      assert.equal(bundled.stdout, out.stdout, `${c.agent}: the bundled hook`);
    }
    // --agent names the agent when the event does not (no transcript path).
    const { transcript_path: _t, ...bare } = cases[0]!.input;
    const named = handoff(['hook', '--agent', 'gemini'], { input: JSON.stringify(bare) });
    assert.match((JSON.parse(named.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /TO GEMINI CLI\./);
    const plain = handoff(['hook'], { input: JSON.stringify(bare) });
    assert.match((JSON.parse(plain.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /TO CLAUDE CODE\./);
    // What the MCP server's handoff_prompt gives Copilot CLI (for: "copilot"), as the command line prints it.
    const forCopilot = handoff(['prompt', '--for', 'copilot', '--dir', r.dir]);
    assert.equal(forCopilot.code, 0, forCopilot.stderr);
    assert.match(forCopilot.stdout, /^HANDOFF FROM [A-Z ]+ \(session [^)]*\) TO COPILOT CLI\.\n/);
    assert.match(forCopilot.stdout, /read_bash/);
  });
});
