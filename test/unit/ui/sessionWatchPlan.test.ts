import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { CODEX_DATE_FOLDERS, concernsFolder, sessionWatchPlan } from '../../../src/ui/state/sessionWatchPlan';
import { makeTempDir } from '../helpers/fixtures';

const isDir = (d: string): boolean => fs.existsSync(d) && fs.statSync(d).isDirectory();
const list = (d: string): string[] => (isDir(d) ? fs.readdirSync(d) : []);

describe('what is watched for a brand-new agent session of a folder', () => {
  it('Claude Code: the folder\'s project folder (every spelling) for transcripts, the projects folder one level deep; Codex: its sessions tree', async () => {
    const root = await makeTempDir('handoff-watch-plan-');
    const folder = path.join(root, 'work', 'café');
    const claude = path.join(root, 'claude');
    const codex = path.join(root, 'codex');
    const slug = claudeProjectSlug(folder);
    // The exact slug, a spelling with two dashes for the accented letter, and another project.
    for (const d of [slug, slug.replace(/-$/, '--'), `${slug}x-other`]) fs.mkdirSync(path.join(claude, 'projects', d), { recursive: true });
    fs.mkdirSync(path.join(codex, 'sessions'), { recursive: true });
    const plan = sessionWatchPlan({ folder, sources: ['claude', 'codex', 'generic'], claudeConfigDir: claude, codexHome: codex, isDir, list });
    assert.deepEqual(plan, [
      { base: path.join(claude, 'projects'), pattern: '*', kind: 'appears', prefix: slug.replace(/-+/g, '-') },
      { base: path.join(claude, 'projects', slug), pattern: '*.jsonl', kind: 'session' },
      { base: path.join(claude, 'projects', slug.replace(/-$/, '--')), pattern: '*.jsonl', kind: 'session' },
      { base: path.join(codex, 'sessions'), pattern: '**/rollout-*.{jsonl,jsonl.zst}', kind: 'session' },
      { base: path.join(codex, 'sessions'), pattern: CODEX_DATE_FOLDERS, kind: 'folders' },
    ]);
    // A new project folder of this folder (or of a folder inside it) concerns it; another project's does not.
    const projects = plan[0]!;
    assert.equal(concernsFolder(projects, slug), true);
    assert.equal(concernsFolder(projects, `${slug}-sub`), true);
    assert.equal(concernsFolder(projects, '-home-someone-else'), false);
  });

  it('a folder that does not exist yet is waited for in the one above; nothing when neither exists; only the sources in use', async () => {
    const root = await makeTempDir('handoff-watch-plan-');
    const claude = path.join(root, 'claude');
    const codex = path.join(root, 'codex');
    fs.mkdirSync(claude);
    fs.mkdirSync(codex);
    const folder = path.join(root, 'w');
    assert.deepEqual(sessionWatchPlan({ folder, sources: ['claude', 'codex'], claudeConfigDir: claude, codexHome: codex, isDir, list }), [
      { base: claude, pattern: 'projects', kind: 'appears' },
      { base: codex, pattern: 'sessions', kind: 'appears' },
    ]);
    assert.deepEqual(sessionWatchPlan({ folder, sources: ['claude', 'codex'], claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none2'), isDir, list }), []);
    assert.deepEqual(sessionWatchPlan({ folder, sources: ['generic'], claudeConfigDir: claude, codexHome: codex, isDir, list }), []);
  });

  it('empty settings mean the agent\'s defaults: CLAUDE_CONFIG_DIR and CODEX_HOME', async () => {
    const root = await makeTempDir('handoff-watch-plan-');
    fs.mkdirSync(path.join(root, 'c', 'projects'), { recursive: true });
    fs.mkdirSync(path.join(root, 'x', 'sessions'), { recursive: true });
    const plan = sessionWatchPlan({ folder: path.join(root, 'w'), sources: ['claude', 'codex'], claudeConfigDir: '', codexHome: '', isDir, list, env: { CLAUDE_CONFIG_DIR: path.join(root, 'c'), CODEX_HOME: path.join(root, 'x') } });
    assert.deepEqual(plan.map((w) => w.base), [path.join(root, 'c', 'projects'), path.join(root, 'x', 'sessions'), path.join(root, 'x', 'sessions')]);
  });
});
