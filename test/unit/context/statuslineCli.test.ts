import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseGenericUsage } from '../../../src/core/context/generic';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { claudeCall } from '../helpers/agentLines';
import { copyFixture, makeTempDir, repoRoot } from '../helpers/fixtures';

/** Runs the bundled CLI like Claude Code does: JSON on stdin, one line expected on stdout. */
function cli(args: string[], stdin: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [path.join(repoRoot(), 'dist', 'cli.js'), ...args], {
    input: stdin,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 15_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function input(cwd: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: 'sess-42',
    transcript_path: path.join(cwd, 'missing.jsonl'),
    cwd,
    workspace: { current_dir: cwd, project_dir: cwd },
    model: { id: 'claude-sonnet-4-5-20250929', display_name: 'Sonnet 4.5' },
    context_window: {
      context_window_size: 200_000,
      used_percentage: 49.6,
      current_usage: { input_tokens: 12, cache_creation_input_tokens: 1200, cache_read_input_tokens: 98_000, output_tokens: 310 },
    },
    ...overrides,
  });
}

describe('handoff statusline / status (bundled CLI)', function () {
  this.timeout(60_000);

  before(function () {
    // `npm test` built the bundle already; a direct mocha run builds it here.
    if (process.env['HANDOFF_BUILT'] === '1') return;
    this.timeout(120_000);
    const b = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot(), encoding: 'utf8' });
    assert.equal(b.status, 0, `bundle failed: ${b.stderr}`);
  });

  /** A folder whose output dir exists (the statusLine writes only into an existing one). */
  async function withOutputDir(): Promise<string> {
    const dir = await makeTempDir('ctx-cli-');
    await fs.mkdir(path.join(dir, 'outputs', 'handoff'), { recursive: true });
    return dir;
  }
  const usageFile = (dir: string) => path.join(dir, 'outputs', 'handoff', 'context_usage.json');

  it('writes a valid context_usage.json into the output dir, not the repository root, and prints one line', async () => {
    const dir = await withOutputDir();
    const r = cli(['statusline'], input(dir));
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.out);
    // 49.6 % is shown as 50 % and judged as shown: the wrap-up threshold (50 %) is reached.
    assert.equal(lines[0], 'ctx 50% · wrap up: run handoff generate');
    const file = usageFile(dir);
    const reading = parseGenericUsage(await fs.readFile(file, 'utf8'), file);
    assert.ok(reading.known, reading.known ? '' : reading.reason);
    assert.equal(reading.usedTokens, 99_212);
    assert.equal(reading.windowTokens, 200_000);
    assert.equal(reading.sessionId, 'sess-42');
    assert.deepEqual((await fs.readdir(dir)).sort(), ['outputs'], 'nothing in the repository root');
  });

  it('writes nothing and creates no folder where there is no output dir yet, and never through a link out', async () => {
    const bare = await makeTempDir('ctx-cli-');
    const r = cli(['statusline'], input(bare));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ctx 50%/);
    assert.deepEqual(await fs.readdir(bare), []);

    const linked = await makeTempDir('ctx-cli-');
    const elsewhere = await makeTempDir('ctx-cli-out-');
    await fs.mkdir(path.join(linked, 'outputs'));
    await fs.symlink(elsewhere, path.join(linked, 'outputs', 'handoff'));
    assert.equal(cli(['statusline'], input(linked)).code, 0);
    assert.deepEqual(await fs.readdir(elsewhere), [], 'written through the output dir link');
  });

  it('masks a credential only the upstream rules know, loaded on demand outside its bundle', async () => {
    // A Groq key: secretlint's preset finds it, the product's own rules do not.
    const key = `${'gsk_'}${'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'.repeat(2).slice(0, 52)}`;
    const dir = await withOutputDir();
    const r = cli(['statusline'], input(dir, { session_id: `sess ${key}` }));
    assert.equal(r.code, 0, r.err);
    const written = await fs.readFile(usageFile(dir), 'utf8');
    assert.ok(!written.includes(key), written);
    assert.match(written, /"session_id": "sess \[REDACTED\]"/);
    // The preset stays out of the statusline's own bundle (its start-up after every message).
    const bundle = await fs.readFile(path.join(repoRoot(), 'dist', 'statusline.js'), 'utf8');
    assert.ok(!bundle.includes('secretlint-rule-groq'), 'the secretlint preset is bundled into dist/statusline.js');
    assert.match(bundle, /require\("\.\/redactLibrary\.js"\)/);
  });

  it('keeps V8\'s code cache beside its bundle, and replaces one V8 rejects', async () => {
    const cache = path.join(repoRoot(), 'dist', '.statusline.js.v8cache');
    await fs.rm(cache, { force: true });
    const dir = await makeTempDir('ctx-cli-');
    const first = cli(['statusline'], input(dir));
    assert.equal(first.code, 0, first.err);
    assert.ok((await fs.stat(cache)).size > 1000, 'no code cache written');
    // A cache from another bundle or another Node is rejected by V8: the run still answers, and rewrites it.
    await fs.writeFile(cache, Buffer.alloc(4096, 7));
    const second = cli(['statusline'], input(dir));
    assert.equal(second.code, 0, second.err);
    assert.equal(second.out, first.out);
    assert.notDeepEqual(await fs.readFile(cache), Buffer.alloc(4096, 7));
    const third = cli(['statusline'], input(dir));
    assert.equal(third.out, first.out);
    // An hour-old cache is written again (it holds only what its run compiled); a fresh one is kept.
    const kept = await fs.stat(cache);
    cli(['statusline'], input(dir));
    assert.equal((await fs.stat(cache)).mtimeMs, kept.mtimeMs);
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    await fs.utimes(cache, hourAgo, hourAgo);
    cli(['statusline'], input(dir));
    assert.ok((await fs.stat(cache)).mtimeMs > hourAgo.getTime() + 60_000, 'an hour-old cache was not written again');
    // The benchmark and real runs start from a cache of their own.
    await fs.rm(cache, { force: true });
  });

  it('adds the clean state and the packet from the workbench when ok', async () => {
    const dir = await makeTempDir('ctx-cli-repo-');
    await fs.writeFile(path.join(dir, 'feedback_record.jsonl'), '{"command":"npm test","exit_code":0,"started_at":"2026-11-20T09:00:00Z"}\n');
    await fs.writeFile(path.join(dir, 'agent_state.json'), JSON.stringify({ schema_version: 1, active_task_id: null, touched_files: [], assumptions: [], blockers: [], next_action: 'Ship it' }));
    const git = (...a: string[]) => assert.equal(spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...a], { cwd: dir }).status, 0);
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'init');
    const low = { context_window: { context_window_size: 200_000, current_usage: { input_tokens: 80_000 } } };
    assert.equal(cli(['statusline'], input(dir, low)).out, 'ctx 40% · clean · no handoff\n');
    assert.equal(cli(['generate', '--dir', dir], '').code, 0);
    assert.equal(cli(['statusline'], input(dir, low)).out, 'ctx 40% · clean · handoff fresh\n');
    const notGit = await makeTempDir('ctx-cli-');
    assert.equal(cli(['statusline'], input(notGit, low)).out, 'ctx 40% · no git · no handoff\n');
  });

  it('names handoff generate at wrap-up', async () => {
    const dir = await makeTempDir('ctx-cli-');
    const r = cli(['statusline'], input(dir, { context_window: { context_window_size: 200_000, current_usage: { input_tokens: 124_000 } } }));
    assert.equal(r.out, 'ctx 62% · wrap up: run handoff generate\n');
  });

  it('prints the chained command\'s first line first, fed the same stdin', async () => {
    const dir = await makeTempDir('ctx-cli-');
    const r = cli(['statusline', '--chain', 'grep -o sess-42; echo second'], input(dir));
    assert.equal(r.code, 0);
    const lines = r.out.trimEnd().split('\n');
    assert.equal(lines[0], 'sess-42');
    assert.match(lines[1] ?? '', /^ctx 50%/);
    assert.equal(lines.length, 2);
  });

  it('still answers when the chained command hangs', async () => {
    const dir = await makeTempDir('ctx-cli-');
    // Not cut off, the command would print "late" (and outlast the test's timeout).
    const r = cli(['statusline', '--chain', 'echo early; sleep 30; echo late'], input(dir));
    assert.equal(r.code, 0);
    assert.match(r.out, /^early\nctx 50%/);
    assert.doesNotMatch(r.out, /late/);
  });

  it('reads the transcript when the input carries no usage', async () => {
    const dir = await withOutputDir();
    const transcript = path.join(dir, 't.jsonl');
    await fs.writeFile(transcript, claudeCall({ input: 30_000, sessionId: 'sess-42' }));
    const r = cli(['statusline'], input(dir, { transcript_path: transcript, context_window: null }));
    assert.match(r.out, /^ctx 15%/);
    assert.equal(r.out.trimEnd().split('\n').length, 1);
    assert.match(await fs.readFile(usageFile(dir), 'utf8'), /"used_tokens": 30000/);
  });

  it('answers bad stdin with one short line and exit 0', () => {
    for (const stdin of ['', 'not json', '{"cwd": 42}']) {
      const r = cli(['statusline'], stdin);
      assert.equal(r.code, 0);
      assert.equal(r.out.trimEnd().split('\n').length, 1);
      assert.ok(r.out.length < 80, r.out);
      assert.match(r.out, /^ctx —/);
      assert.equal(r.err, '');
    }
  });

  it('status --json shows the reading of the newest session for the folder', async () => {
    const home = await makeTempDir('ctx-cli-home-');
    const work = await copyFixture('workbench-refund');
    const transcript = path.join(home, 'projects', claudeProjectSlug(work), 's.jsonl');
    await fs.mkdir(path.dirname(transcript), { recursive: true });
    await fs.writeFile(transcript, claudeCall({ cwd: work, sessionId: 'live', input: 120_000 }));
    const r = cli(['status', '--dir', work, '--json'], '', { CLAUDE_CONFIG_DIR: home, CODEX_HOME: path.join(home, 'nocodex') });
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as { context: { current: { percent: number; sessionId: string } }; level: string };
    assert.equal(out.context.current.sessionId, 'live');
    assert.equal(out.context.current.percent, 60);
    assert.equal(out.level, 'wrap-up');
    const text = cli(['status', '--dir', work], '', { CLAUDE_CONFIG_DIR: home, CODEX_HOME: path.join(home, 'nocodex') });
    assert.match(text.out, /Context {2}60\.0 % — 120,000 of 200,000 tokens · Claude Code/);
    assert.match(text.out, /Level {4}wrap-up/);
  });
});
