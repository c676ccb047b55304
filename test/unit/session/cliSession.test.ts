import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { shortSessionId } from '../../../src/core/packet/sources';
import type { Packet } from '../../../src/core/packet/schema';
import { repoRoot } from '../helpers/fixtures';
import { makeRepo } from '../helpers/gitRepo';
import type { TranscriptFixture } from './sessionFixture';
import { expectedFor, placeSession } from './sessionFixture';

/** The CLI as a real process, with the agent homes pointing at a test folder only. */
function handoff(args: string[], cwd: string, env: Record<string, string>, input?: string): { code: number | null; stdout: string; stderr: string } {
  const main = path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');
  const clean = { ...process.env, CLAUDE_CONFIG_DIR: path.join(cwd, '.no-claude'), CODEX_HOME: path.join(cwd, '.no-codex') };
  const r = spawnSync(process.execPath, [main, ...args], { cwd, encoding: 'utf8', env: { ...clean, ...env }, ...(input === undefined ? {} : { input }) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const CASES: { name: TranscriptFixture; envKey: 'CLAUDE_CONFIG_DIR' | 'CODEX_HOME'; source: string; uncertain: string; declined?: string }[] = [
  { name: 'claude-tools', envKey: 'CLAUDE_CONFIG_DIR', source: 'claude', uncertain: 'npm run migrate', declined: 'docker compose down -v && docker compose up -d db' },
  { name: 'codex-tools', envKey: 'CODEX_HOME', source: 'codex', uncertain: 'npm run migrate' },
];

describe('handoff CLI on a plain repository with only an agent session', () => {
  for (const c of CASES) {
    it(`${c.name}: generate, prompt and check take the facts from the session`, async () => {
      const repo = makeRepo({ branch: 'feat/rate-limit', files: { 'README.md': '# api\n' } });
      const agentHome = path.join(repo.dir, '..', `${path.basename(repo.dir)}-agent`);
      const { home } = await placeSession(c.name, repo.dir, agentHome);
      const env = { [c.envKey]: home };
      const expected = await expectedFor(c.name, repo.dir);
      const sessionId = expected['session_id'] as string;

      // Without the session the same repository has nothing to hand off.
      const without = handoff(['generate', '--allow-dirty'], repo.dir, {});
      assert.equal(without.code, 1, without.stdout);
      assert.match(without.stderr, /no next action/);

      const gen = handoff(['generate', '--allow-dirty', '--json'], repo.dir, env);
      assert.equal(gen.code, 0, gen.stderr);
      const out = JSON.parse(gen.stdout) as { json: string };
      const packet = JSON.parse(await fs.readFile(out.json, 'utf8')) as Packet;
      assert.equal(packet.session_id, sessionId);
      assert.equal(packet.next_action, expected['next_action']);
      assert.equal(packet.sources['next_action'], 'task list');
      assert.equal(packet.sources['commands'], `${c.source}:${sessionId}`);

      const expectedCommands = expected['commands'] as { command: string; exit_code: number | null; rejected: boolean }[];
      const failedExpected = expectedCommands.filter((x) => !x.rejected && x.exit_code !== 0);
      assert.deepEqual(packet.failed_attempts.map((f) => f.command), failedExpected.map((x) => x.command));
      const npmTest = packet.failed_attempts.find((f) => f.command === 'npm test');
      assert.equal(npmTest?.exit_code, 1);
      assert.equal(npmTest?.uncertain, false);
      const migrate = packet.failed_attempts.find((f) => f.command === c.uncertain);
      assert.equal(migrate?.uncertain, true, 'a timed-out or unfinished command is an uncertain outcome');
      assert.equal(migrate?.exit_code, null);
      if (c.declined) {
        const rejected = packet.decisions.filter((d) => d.status === 'rejected').map((d) => d.text);
        assert.equal(rejected.length, 1);
        assert.ok(rejected[0]?.startsWith(`declined by the user: \`${c.declined}\``), rejected[0]);
        assert.match(rejected[0] ?? '', /Don't drop the DB volumes/);
        assert.ok(!packet.commands_run.some((r) => r.command === c.declined), 'a declined command never ran');
      }
      const touched = (c.name === 'claude-tools' ? expected['files_touched_relative'] : expected['files_touched']) as string[];
      assert.deepEqual(packet.changed_files.map((f) => f.path), touched);
      assert.match(packet.summary, /Add per-key rate limiting to the API/);
      for (const secret of expected['secrets_must_not_appear'] as string[]) {
        assert.ok(!(await fs.readFile(out.json, 'utf8')).includes(secret));
        assert.ok(!(await fs.readFile(path.join(path.dirname(out.json), 'handoff.md'), 'utf8')).includes(secret));
      }

      const prompt = handoff(['prompt'], repo.dir, env);
      assert.equal(prompt.code, 0, prompt.stderr);
      assert.ok(prompt.stdout.includes(expected['next_action'] as string), prompt.stdout);
      assert.ok(prompt.stdout.includes(c.uncertain));
      assert.ok(prompt.stdout.includes('npm test'));
      if (c.declined) assert.ok(prompt.stdout.includes(c.declined), 'the declined command is in the prompt');

      const check = handoff(['check'], repo.dir, env);
      assert.match(check.stdout, /PASS {2}Tests: The latest test run passed: `npm test`/);
      assert.match(check.stdout, new RegExp(`${c.source === 'claude' ? 'Claude Code' : 'Codex'} session ${shortSessionId(sessionId)}, command #\\d+`));
      assert.match(check.stdout, /PASS {2}Feature board: The task list of the .* "Add tests for per-key limits \(burst \+ window reset\)" in progress/);
      const bare = handoff(['check'], repo.dir, {});
      assert.match(bare.stdout, /---- {2}Tests: Unknown: no test run is recorded/);
    });
  }

  it('hook: a Claude Code PreCompact event derives the packet from the transcript it names', async () => {
    const repo = makeRepo({ branch: 'feat/rate-limit', files: { 'README.md': '# api\n' } });
    // Not where discovery looks: only the event's transcript_path leads to it.
    const { file } = await placeSession('claude-tools', repo.dir, path.join(repo.dir, '..', `${path.basename(repo.dir)}-elsewhere`));
    const event = { hook_event_name: 'PreCompact', cwd: repo.dir, session_id: '7f3e2a91-4c8b-4d2e-9a1f-3b5c6d7e8f90', transcript_path: file };
    // Inline: the packet before the hook returns (as the detached completion writes it).
    const r = handoff(['hook'], repo.dir, { HANDOFF_HOOK_INLINE: '1' }, JSON.stringify(event));
    assert.equal(r.code, 0, r.stderr);
    const json = path.join(repo.dir, 'outputs', 'handoff', event.session_id, 'handoff.json');
    const packet = JSON.parse(await fs.readFile(json, 'utf8')) as Packet;
    assert.equal(packet.next_action, 'Add tests for per-key limits (burst + window reset)');
    assert.equal(packet.sources['commands'], `claude:${event.session_id}`);
  });
});
