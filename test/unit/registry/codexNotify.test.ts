import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';

/** The argument Codex CLI passes its notify program after a turn. */
const turn = (cwd: string) =>
  JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 't-1', 'turn-id': '7', cwd, 'input-messages': ['go on'], 'last-assistant-message': 'done' });

describe('handoff notify (Codex CLI notify program, real process, real git)', () => {
  const make = tempRepos(workbenchRepo);

  it('regenerates the packet only past the wrap-up threshold, and always exits 0', async () => {
    const r = make();
    const agents = await makeTempDir('agents-');
    const env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(agents, 'claude'), CODEX_HOME: path.join(agents, 'codex') };
    const usage = (used: number) =>
      fs.writeFile(path.join(r.dir, 'context_usage.json'), JSON.stringify({ source: 'codex', session_id: 'c-1', used_tokens: used, context_window: 200_000, updated_at: new Date().toISOString() }));
    const out = path.join(r.dir, 'outputs/handoff');

    await usage(40_000); // 20 %
    const below = handoff(['notify', turn(r.dir)], { env });
    assert.equal(below.code, 0, below.stderr);
    assert.equal(await fs.stat(out).then(() => true, () => false), false, 'no packet below the threshold');

    await usage(130_000); // 65 %
    const past = handoff(['notify', turn(r.dir)], { env });
    assert.equal(past.code, 0, past.stderr);
    const ids = (await fs.readdir(out, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    assert.deepEqual(ids, ['sess-a']);

    const other = handoff(['notify', JSON.stringify({ type: 'something-else' })], { env, cwd: r.dir });
    assert.equal(other.code, 0);
    const bad = handoff(['notify', 'not json'], { env, cwd: r.dir });
    assert.equal(bad.code, 0);
    assert.equal(bad.stderr, '');
    assert.match(await fs.readFile(path.join(out, 'hook.log'), 'utf8'), /notify: the argument is not a Codex notification/);
  });
});
