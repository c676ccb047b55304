import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { agentsRead } from '../../../src/core/session/model';
import { makeTempDir } from '../helpers/fixtures';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';
import { fixtureText } from '../session/sessionFixture';

describe('handoff generate with no agent session to take the next step from', () => {
  const make = tempRepos(() => makeRepo({ files: { 'README.md': '# app\n', '.gitignore': '.handoff/\n' } }));
  const run = (dir: string, claude: string, codex: string, extra: string[] = []) =>
    handoff(['generate', '--dir', dir, ...extra], { env: { ...process.env, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex } });

  it('tells a Claude Code user where it looked, never to write agent_state.json', async () => {
    const r = make();
    const claude = await makeTempDir('claude-home-');
    // Claude Code keeps sessions here, just none of this folder (one of another folder).
    const other = path.join(claude, 'projects', claudeProjectSlug('/home/dev/other'));
    await fs.mkdir(other, { recursive: true });
    await fs.writeFile(path.join(other, 's.jsonl'), await fixtureText('claude-tasks', '/home/dev/other'));
    const out = run(r.dir, claude, path.join(claude, 'no-codex'));
    assert.equal(out.code, 1, out.stderr);
    assert.ok(out.stderr.includes(`no ${agentsRead()} session was found for this folder`), out.stderr);
    assert.ok(out.stderr.includes(`looked in: Claude Code: ${path.join(claude, 'projects', claudeProjectSlug(r.dir))}`), out.stderr);
    assert.ok(out.stderr.includes('Codex CLI: '), out.stderr);
    assert.doesNotMatch(out.stderr, /agent_state/);
  });

  it('finds the session once it is there, and generates from it', async () => {
    const r = make();
    const claude = await makeTempDir('claude-home-');
    const dir = path.join(claude, 'projects', claudeProjectSlug(r.dir));
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'e539a78b-c8ef-4346-8b12-ae6ead581e57.jsonl'), await fixtureText('claude-tasks', r.dir));
    // The session's failing test run makes the workbench dirty: accepted here, as the point is the session.
    const out = run(r.dir, claude, path.join(claude, 'no-codex'), ['--allow-dirty']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /wrote .*handoff\.json/);
  });

  it('a user who keeps agent_state.json by hand is told what to record in it, agent folders or not', async () => {
    const r = make();
    r.write('agent_state.json', JSON.stringify({ active_task_id: 'T-1', touched_files: [] }));
    r.commit('workbench');
    const claude = await makeTempDir('claude-home-');
    await fs.mkdir(path.join(claude, 'projects'), { recursive: true });
    const out = run(r.dir, claude, path.join(claude, 'no-codex'));
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /record one concrete step as "next_action" in agent_state\.json/);
  });

  it('without any agent folders (a workbench-only user), the refusal still names agent_state.json', async () => {
    const r = make();
    const none = await makeTempDir('no-agents-');
    const out = run(r.dir, path.join(none, 'claude'), path.join(none, 'codex'));
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /agent_state\.json/);
  });
});
