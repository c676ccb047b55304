import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '../helpers/fixtures';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo, type CliResult } from '../helpers/workbenchRepo';

const exists = (p: string): Promise<boolean> => fs.lstat(p).then(() => true, () => false);

describe('hooks write only inside a repository or a workbench, never through a symlink', function () {
  // Many real processes a test: room for a busy machine.
  this.timeout(120_000);
  if (process.platform === 'win32') return;
  const make = tempRepos(workbenchRepo);
  let state: string;
  let home: string;
  beforeEach(async () => {
    state = await makeTempDir('handoff-state-');
    home = await makeTempDir('handoff-home-');
  });
  const hook = (event: Record<string, unknown>, cwd?: string): CliResult => {
    const out = handoff(['hook'], { input: JSON.stringify(event), env: { ...process.env, HOME: home, HANDOFF_STATE_DIR: state, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), HANDOFF_HOOK_INLINE: '1' }, ...(cwd ? { cwd } : {}) });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stderr, '');
    return out;
  };
  const stateLog = (): Promise<string> => fs.readFile(path.join(state, 'hook.log'), 'utf8').catch(() => '');

  it('a committed symlink in place of hook.log is never appended to; the refusal goes to the state folder', async () => {
    const r = make();
    const bashrc = path.join(home, '.bashrc');
    await fs.writeFile(bashrc, 'export PATH=$PATH\n');
    await fs.mkdir(path.join(r.dir, 'outputs/handoff'), { recursive: true });
    await fs.symlink(bashrc, path.join(r.dir, 'outputs/handoff/hook.log'));
    r.commit('a log that is a link');
    hook({ hook_event_name: 'Notification', cwd: r.dir });
    hook({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's1' });
    assert.equal(await fs.readFile(bashrc, 'utf8'), 'export PATH=$PATH\n');
    assert.ok((await fs.lstat(path.join(r.dir, 'outputs/handoff/hook.log'))).isSymbolicLink(), 'the link itself is left alone');
    assert.match(await stateLog(), /hook\.log is a symbolic link; not followed: hook: ignored event Notification/);
  });

  it('a symlinked output folder gets no log and no packet outside the repository', async () => {
    const r = make();
    const elsewhere = await makeTempDir('handoff-elsewhere-');
    await fs.symlink(elsewhere, path.join(r.dir, 'outputs'));
    hook({ hook_event_name: 'Notification', cwd: r.dir });
    hook({ hook_event_name: 'PreCompact', cwd: r.dir, session_id: 's1' });
    hook({ hook_event_name: 'SessionStart', cwd: r.dir, source: 'startup' });
    assert.deepEqual(await fs.readdir(elsewhere), []);
    assert.match(await stateLog(), /leads outside the workspace/);
  });

  it('a committed packet folder that is a symlink out of the output dir is never written through', async () => {
    const r = make();
    const elsewhere = await makeTempDir('handoff-elsewhere-');
    await fs.mkdir(path.join(r.dir, 'outputs/handoff'), { recursive: true });
    await fs.symlink(elsewhere, path.join(r.dir, 'outputs/handoff/sess-a'));
    r.commit('a packet folder that is a link');
    const gen = handoff(['generate', '--dir', r.dir, '--allow-dirty']);
    assert.equal(gen.code, 2, gen.stdout);
    assert.match(gen.stderr, /sess-a is a symbolic link that leads outside/);
    hook({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's1' });
    assert.deepEqual(await fs.readdir(elsewhere), []);
  });

  it('SessionEnd in the home folder or another non-repository writes nothing there', async () => {
    const plain = await makeTempDir('handoff-plain-');
    await fs.writeFile(path.join(plain, 'notes.txt'), 'hello\n');
    // A dotfiles repository rooted at home does not make home, or a folder below it, a project.
    const dotfiles = makeRepo({ files: { '.bashrc': 'x\n' } });
    after(() => dotfiles.remove());
    home = dotfiles.dir;
    await fs.mkdir(path.join(home, 'scratch'));
    for (const dir of [plain, home, path.join(home, 'scratch')]) {
      for (const event of ['SessionEnd', 'PreCompact', 'SessionStart']) {
        const out = hook({ hook_event_name: event, cwd: dir, session_id: 's1', ...(event === 'SessionStart' ? { source: 'startup' } : {}) });
        assert.equal(out.stdout, '');
      }
      assert.equal(await exists(path.join(dir, 'outputs')), false, dir);
    }
    assert.equal((await fs.readdir(plain)).join(), 'notes.txt');
    const log = await stateLog();
    assert.match(log, /hook SessionEnd \(session s1\): \S+handoff-plain-\S+ is not a git repository and holds no workbench files; nothing done/);
    assert.match(log, /hook SessionEnd \(session s1\): \S+scratch lies in the repository rooted at the home folder/);
    // Workbench files make a folder one to write into, repository or not.
    await fs.writeFile(path.join(plain, 'agent_state.json'), JSON.stringify({ next_action: 'Write the README' }));
    hook({ hook_event_name: 'SessionEnd', cwd: plain, session_id: 's1' });
    assert.equal(await exists(path.join(plain, 'outputs/handoff')), true);
  });

  it('SessionEnd of a session that never began (a missing or empty transcript, as `claude mcp list` sends) writes and logs nothing', async () => {
    const r = make();
    const empty = path.join(home, 'empty.jsonl');
    await fs.writeFile(empty, '');
    for (const transcript of [path.join(home, 'never-written.jsonl'), empty, '']) {
      const out = hook({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's-mcp-list', transcript_path: transcript, reason: 'other' });
      assert.equal(out.stdout, '');
    }
    assert.equal(await exists(path.join(r.dir, 'outputs')), false, 'no packet, no hook.log');
    assert.equal(await stateLog(), '');
    // One that names no transcript at all (a script, another agent) is handled as before: a packet.
    hook({ hook_event_name: 'SessionEnd', cwd: r.dir, session_id: 's1' });
    assert.equal(await exists(path.join(r.dir, 'outputs/handoff')), true);
  });
});
