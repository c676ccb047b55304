import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Packet } from '../../../src/core/packet/schema';
import { listSessionRequests, readSessionFile } from '../../../src/core/session/reader';
import { repoRoot } from '../helpers/fixtures';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { placeSession } from './sessionFixture';

function handoff(args: string[], cwd: string, env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const main = path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');
  const r = spawnSync(process.execPath, [main, ...args], { cwd, encoding: 'utf8', env: { ...process.env, CODEX_HOME: path.join(cwd, '.no-codex'), CLAUDE_CONFIG_DIR: path.join(cwd, '.no-claude'), ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a packet from an earlier point of the session (--as-of, --before-request, --list-requests)', () => {
  const make = tempRepos(() => makeRepo({ branch: 'feat/rate-limit', files: { 'README.md': '# api\n' } }));

  it('the reader stops at the cut: before a request line, or at the first line past a time', async () => {
    const repo = make();
    const { file } = await placeSession('claude-tools', repo.dir, `${repo.dir}-agent-r`);
    const { requests, commands } = await listSessionRequests(file, 'claude-code');
    assert.deepEqual(requests.map((r) => [r.n, r.line, r.at, r.commandsBefore]), [
      [1, 2, '2026-11-20T09:00:00.000Z', 0],
      [2, 35, requests[1]?.at, 6],
    ]);
    assert.match(requests[1]?.text ?? '', /^Don't drop the DB volumes/);
    assert.equal(commands, 7);
    const whole = await readSessionFile(file, 'claude-code');
    const before2 = await readSessionFile(file, 'claude-code', { cut: { beforeLine: 35 } });
    assert.equal(whole?.latestRequest?.line, 35);
    assert.equal(before2?.latestRequest?.line, 2, 'request 2 and after are not read');
    assert.equal(before2?.commandCount, 6);
    const early = await readSessionFile(file, 'claude-code', { cut: { untilMs: Date.parse('2026-11-20T09:00:30Z') } });
    assert.ok((early?.commandCount ?? 99) < 6, `${early?.commandCount} commands by 09:00:30`);
  });

  for (const [fixture, latestNext] of [['claude-tools', 'Add tests for per-key limits (burst + window reset)'], ['claude-tasks', 'change NightlyJob.run to persist the cursor before each retry']] as const) {
    it(`${fixture}: --list-requests names the requests; --before-request 2 and --as-of give the earlier next action`, async () => {
      const repo = make();
      const { home } = await placeSession(fixture, repo.dir, `${repo.dir}-agent`);
      const env = { CLAUDE_CONFIG_DIR: home };
      const list = handoff(['generate', '--list-requests', '--json'], repo.dir, env);
      assert.equal(list.code, 0, list.stderr);
      const listed = JSON.parse(list.stdout) as { requests: { n: number; line: number; at: string | null }[] };
      assert.ok(listed.requests.length >= 2, list.stdout);
      const text = handoff(['generate', '--list-requests'], repo.dir, env).stdout;
      assert.match(text, /^Requests of Claude Code session .*, \d+ commands in all:\n {4}1 {2}2026-11-20 \d\d:00 UTC {2}line 2 {2}6 commands in its turn {2}"/);
      await assert.rejects(fs.stat(path.join(repo.dir, 'outputs')), '--list-requests writes nothing');

      const now = JSON.parse(handoff(['generate', '--allow-dirty', '--json'], repo.dir, env).stdout) as { json: string };
      const latest = JSON.parse(await fs.readFile(now.json, 'utf8')) as Packet;
      const back = handoff(['generate', '--allow-dirty', '--json', '--before-request', '2'], repo.dir, env);
      assert.equal(back.code, 0, back.stderr);
      const earlier = JSON.parse(await fs.readFile((JSON.parse(back.stdout) as { json: string }).json, 'utf8')) as Packet;
      assert.notEqual(earlier.next_action, latest.next_action, 'an earlier point gives an earlier next action');
      assert.ok(latest.next_action.includes(latestNext), latest.next_action);
      assert.ok(!earlier.next_action.includes(latestNext), earlier.next_action);
      assert.ok(earlier.generated_at < latest.generated_at, `${earlier.generated_at} before ${latest.generated_at}`);
      assert.equal(earlier.context?.known, false);
      assert.match(earlier.context?.known === false ? earlier.context.reason : '', /as of just before request 2/);

      const at = listed.requests[1]!.at!;
      const asOf = handoff(['generate', '--allow-dirty', '--json', '--as-of', new Date(Date.parse(at) - 1).toISOString()], repo.dir, env);
      assert.equal(asOf.code, 0, asOf.stderr);
      const sameMoment = JSON.parse(await fs.readFile((JSON.parse(asOf.stdout) as { json: string }).json, 'utf8')) as Packet;
      assert.equal(sameMoment.next_action, earlier.next_action, 'just before request 2 in time is the same point');
    });
  }

  it('bad choices are refused with the reason', async () => {
    const repo = make();
    const { home } = await placeSession('claude-tools', repo.dir, `${repo.dir}-agent`);
    const env = { CLAUDE_CONFIG_DIR: home };
    const tooFar = handoff(['generate', '--before-request', '9'], repo.dir, env);
    assert.equal(tooFar.code, 2);
    assert.match(tooFar.stderr, /--before-request 9: the session has 2 requests \(see --list-requests\)/);
    const badTime = handoff(['generate', '--as-of', 'yesterday-ish'], repo.dir, env);
    assert.equal(badTime.code, 2);
    assert.match(badTime.stderr, /--as-of needs a time such as 2026-11-20T09:30:00Z, got "yesterday-ish"/);
    const both = handoff(['generate', '--as-of', '2026-11-20T09:00:00Z', '--before-request', '1'], repo.dir, env);
    assert.match(both.stderr, /go one at a time/);
    const none = handoff(['generate', '--list-requests'], repo.dir, {});
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no Claude Code or Codex session of this folder was found/);
  });
});
