import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeProjectDirName, claudeProjectSlug, SessionDiscovery } from '../../../src/core/context/discovery';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { findSecrets } from '../../../src/core/workflow/secrets';
import { sessionWatchPlan } from '../../../src/ui/state/sessionWatchPlan';
import { claudeCall } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function put(file: string, text: string, mtimeSec?: number): Promise<string> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await fs.promises.writeFile(file, text);
  if (mtimeSec !== undefined) await fs.promises.utimes(file, mtimeSec, mtimeSec);
  return file;
}

/** A folder whose slug is `length` characters long, under a fresh temporary root. */
async function folderOfSlugLength(length: number) {
  const root = await makeTempDir('claude-dirs-');
  const base = path.resolve(root);
  const folder = path.join(base, 'deep', 'q'.repeat(length - base.length - 6));
  assert.equal(claudeProjectSlug(folder).length, length);
  return { root, folder, claudeDir: path.join(root, 'claude'), projects: path.join(root, 'claude', 'projects') };
}

describe('Claude Code transcript folder names (FORMATS L1.1)', () => {
  it('a slug up to 200 characters is the folder name; a longer one is cut at 200 and gets "-" + the base-36 hash of the path', function () {
    if (process.platform === 'win32') this.skip();
    assert.equal(claudeProjectDirName('/home/dev/my.app'), '-home-dev-my-app');
    // A 250-character path (non-ASCII letters count as one UTF-16 unit): the reference value of the
    // 31-multiplier 32-bit string hash over its UTF-16 code units, computed outside the product.
    const long = `/srv/${[0, 1, 2, 3, 4, 5].map((i) => `projekt-é-${i}-with-a-long-descriptive-name`).join('/')}`;
    assert.equal(long.length, 250);
    const name = claudeProjectDirName(long);
    assert.equal(name, `${claudeProjectSlug(long).slice(0, 200)}-a8efej`);
    // Exactly 200 characters: kept whole, no hash.
    const edge = `/${'a'.repeat(199)}`;
    assert.equal(claudeProjectDirName(edge), claudeProjectSlug(edge));
  });

  it('a long folder: the transcript in its hashed folder is found; a newer one of another long folder sharing the first 200 characters is not', async () => {
    const { folder, claudeDir, projects } = await folderOfSlugLength(240);
    const own = await put(path.join(projects, claudeProjectDirName(folder), 'own.jsonl'), claudeCall({ cwd: folder, sessionId: 'own' }), 1000);
    // Another project whose path differs only past character 200: same prefix, other hash, other cwd.
    const other = `${folder}-other`;
    assert.equal(claudeProjectSlug(other).slice(0, 200), claudeProjectSlug(folder).slice(0, 200));
    assert.notEqual(claudeProjectDirName(other), claudeProjectDirName(folder));
    await put(path.join(projects, claudeProjectDirName(other), 'other.jsonl'), claudeCall({ cwd: other, sessionId: 'other' }), 2000);
    // And an unrelated project, newest of all, that names the folder nowhere.
    await put(path.join(projects, '-elsewhere', 'x.jsonl'), claudeCall({ cwd: '/elsewhere', sessionId: 'x' }), 3000);
    const found = await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] }).find();
    assert.deepEqual(found.map((c) => [c.file, c.sessionId]), [[own, 'own']]);
    assert.ok(new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] }).places()[0]?.includes(claudeProjectDirName(folder)));
  });

  it('a session that started in a long folder above the workspace and cd\'d in is found in that folder\'s hashed name', async () => {
    const { folder: parent, claudeDir, projects } = await folderOfSlugLength(230);
    const folder = path.join(parent, 'api');
    const t = await put(path.join(projects, claudeProjectDirName(parent), 's.jsonl'), claudeCall({ cwd: parent, sessionId: 's' }) + claudeCall({ cwd: folder, sessionId: 's' }));
    const found = await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] }).find();
    assert.deepEqual(found.map((c) => c.file), [t]);
  });

  it('CLAUDE_CODE_PROJECT_DIR_NAME: the host\'s folder is looked in too, and its transcripts still have to name the workspace', async () => {
    const root = await makeTempDir('claude-dirs-');
    const folder = path.join(root, 'w', 'api');
    const claudeDir = path.join(root, 'claude');
    const t = await put(path.join(claudeDir, 'projects', 'sess-box', 'a.jsonl'), claudeCall({ cwd: folder, sessionId: 'hosted' }));
    const without = await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, claudeProjectDirName: '', sources: ['claude'] }).find();
    assert.deepEqual(without, []);
    const discovery = new SessionDiscovery({ folder, claudeConfigDir: claudeDir, claudeProjectDirName: 'sess-box', sources: ['claude'] });
    assert.deepEqual((await discovery.find()).map((c) => [c.file, c.sessionId]), [[t, 'hosted']]);
    assert.match(discovery.places()[0] ?? '', /sess-box \(CLAUDE_CODE_PROJECT_DIR_NAME\)/);
    // From the environment (the CLI's and the hook's way).
    const before = process.env['CLAUDE_CODE_PROJECT_DIR_NAME'];
    process.env['CLAUDE_CODE_PROJECT_DIR_NAME'] = 'sess-box';
    try {
      assert.equal((await new SessionDiscovery({ folder, claudeConfigDir: claudeDir, sources: ['claude'] }).find())[0]?.file, t);
    } finally {
      if (before === undefined) delete process.env['CLAUDE_CODE_PROJECT_DIR_NAME'];
      else process.env['CLAUDE_CODE_PROJECT_DIR_NAME'] = before;
    }
    // A transcript of another folder in the host's folder is not this folder's session.
    const other = path.join(root, 'other');
    const alone = await new SessionDiscovery({ folder: other, claudeConfigDir: claudeDir, claudeProjectDirName: 'sess-box', sources: ['claude'] }).find();
    assert.deepEqual(alone, []);
  });

  it('the editor watches the hashed folder of a long workspace and the host\'s folder', async () => {
    const { folder, claudeDir, projects } = await folderOfSlugLength(230);
    for (const d of [claudeProjectDirName(folder), 'box']) fs.mkdirSync(path.join(projects, d), { recursive: true });
    const isDir = (d: string): boolean => fs.existsSync(d) && fs.statSync(d).isDirectory();
    const plan = sessionWatchPlan({ folder, sources: ['claude'], claudeConfigDir: claudeDir, isDir, list: (d) => fs.readdirSync(d), env: { CLAUDE_CODE_PROJECT_DIR_NAME: 'box' } });
    assert.deepEqual(
      plan.filter((w) => w.kind === 'session').map((w) => w.base),
      [path.join(projects, claudeProjectDirName(folder)), path.join(projects, 'box')],
    );
    assert.equal(plan[0]?.prefix, claudeProjectSlug(folder).slice(0, 200).replace(/-+/g, '-'));
    // A value that is a path, not a folder name, is never watched (it would lead out of the projects folder).
    fs.mkdirSync(path.join(claudeDir, 'outside'), { recursive: true });
    const escaped = sessionWatchPlan({ folder, sources: ['claude'], claudeConfigDir: claudeDir, isDir, list: (d) => fs.readdirSync(d), env: { CLAUDE_CODE_PROJECT_DIR_NAME: '../outside' } });
    assert.ok(escaped.every((w) => !w.base.includes('outside')), JSON.stringify(escaped));
  });

  it('handoff secrets reads the transcripts of a long folder\'s hashed name and of the host\'s folder', async () => {
    const { root, folder, claudeDir, projects } = await folderOfSlugLength(230);
    const hashed = await put(path.join(projects, claudeProjectDirName(folder), 'a.jsonl'), claudeCall({ cwd: folder, sessionId: 'a' }));
    const hosted = await put(path.join(projects, 'box', 'b.jsonl'), claudeCall({ cwd: folder, sessionId: 'b' }));
    const none = path.join(root, 'none');
    const tasks = { globalStorageRoots: [none], clineSessionsDir: none };
    const before = process.env['CLAUDE_CODE_PROJECT_DIR_NAME'];
    process.env['CLAUDE_CODE_PROJECT_DIR_NAME'] = 'box';
    try {
      const report = await findSecrets({ workspaceDir: folder, options: DEFAULT_OPTIONS, claudeConfigDir: claudeDir, codexHome: none, tasks, git: null });
      assert.deepEqual(report.sessions.filter((s) => s.agent === 'claude-code').map((s) => s.file).sort(), [hashed, hosted].sort());
    } finally {
      if (before === undefined) delete process.env['CLAUDE_CODE_PROJECT_DIR_NAME'];
      else process.env['CLAUDE_CODE_PROJECT_DIR_NAME'] = before;
    }
  });
});
