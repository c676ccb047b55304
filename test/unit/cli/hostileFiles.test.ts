import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { claudeCall, claudeUser } from '../helpers/agentLines';
import { copyFixture, makeTempDir } from '../helpers/fixtures';
import { handoff, type CliResult } from '../helpers/workbenchRepo';

// Each hostile input must end in a located message and never hang: the CLI runs with a hard timeout
// (generous; speed is measured in `npm run bench`), and a hang shows up as a null exit code.
const LIMIT_MS = 60_000;

function cli(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  return handoff(args, { env: { ...process.env, CLAUDE_CONFIG_DIR: '/nonexistent-claude', CODEX_HOME: '/nonexistent-codex', ...env }, timeoutMs: LIMIT_MS });
}

/** The refund fixture as a committed git repository (feat/upi-refund, as its agent state expects). */
async function workbench(): Promise<string> {
  const dir = await copyFixture('workbench-refund');
  const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q', '-b', 'feat/upi-refund');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', 'add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'workbench');
  return dir;
}

/** Runs the five reading commands and checks that each finished; returns their results by name. */
function allCommands(dir: string, env: NodeJS.ProcessEnv = {}): Record<string, CliResult> {
  const out: Record<string, CliResult> = {};
  out['generate'] = cli(['generate', '--dir', dir, '--allow-dirty'], env);
  for (const c of ['check', 'status', 'show', 'prompt']) out[c] = cli([c, '--dir', dir], env);
  for (const [name, r] of Object.entries(out)) assert.notEqual(r.code, null, `${name} did not finish within ${LIMIT_MS} ms`);
  return out;
}

const SECRET_MARK = 'OUTSIDE-THE-WORKSPACE-7f3a';

describe('hostile files (handoff CLI)', function () {
  this.timeout(6 * LIMIT_MS);

  it('a FIFO in place of feedback_record.jsonl is refused with one located message; the packet is built from the rest', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await workbench();
    await fs.rm(path.join(dir, 'feedback_record.jsonl'));
    execFileSync('mkfifo', [path.join(dir, 'feedback_record.jsonl')]);
    const r = allCommands(dir);
    assert.equal(r['generate']!.code, 0, r['generate']!.stderr);
    const located = /feedback_record\.jsonl: is a named pipe \(FIFO\), not a regular file; not read/;
    assert.equal(r['generate']!.stderr.split('\n').filter((l) => located.test(l)).length, 1, r['generate']!.stderr);
    assert.match(r['check']!.stderr, located);
    assert.match(r['status']!.stdout, located);
    // Everything else still made it into the packet.
    const show = cli(['show', '--dir', dir, '--json']);
    const packet = JSON.parse(show.stdout) as { next_action: string; session_id: string; inputs: { file: string }[] };
    assert.equal(packet.session_id, 'refund-s3');
    assert.ok(packet.next_action.length > 0);
    assert.deepEqual(packet.inputs.map((i) => i.file).sort(), ['agent_state.json', 'feature_list.json', 'review_report.json', 'verification_report.json']);
    assert.equal(r['show']!.code, 0, r['show']!.stderr);
    assert.equal(r['prompt']!.code, 0, r['prompt']!.stderr);
  });

  it('a symlink leading outside the workspace is not followed, and nothing of its target is printed or written', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await workbench();
    const outside = path.join(await makeTempDir('outside-'), 'agent_state.json');
    await fs.writeFile(outside, JSON.stringify({ next_action: `leak ${SECRET_MARK}`, summary: SECRET_MARK }));
    await fs.rm(path.join(dir, 'agent_state.json'));
    await fs.symlink(outside, path.join(dir, 'agent_state.json'));
    const r = allCommands(dir);
    assert.equal(r['generate']!.code, 0, r['generate']!.stderr);
    assert.match(r['generate']!.stderr, /agent_state\.json: is a symbolic link that leads outside the workspace; not followed/);
    for (const [name, res] of Object.entries(r)) {
      assert.ok(!`${res.stdout}${res.stderr}`.includes(SECRET_MARK), `${name} printed the target's content`);
      assert.ok(!`${res.stdout}${res.stderr}`.includes(outside), `${name} printed the target's path`);
    }
    const written = await fs.readFile(path.join(dir, 'outputs/handoff/refund-s3/handoff.json'), 'utf8').catch(async () => {
      const ids = await fs.readdir(path.join(dir, 'outputs/handoff'));
      return Promise.all(ids.map((id) => fs.readFile(path.join(dir, 'outputs/handoff', id, 'handoff.json'), 'utf8').catch(() => ''))).then((t) => t.join());
    });
    assert.ok(written.length > 0 && !written.includes(SECRET_MARK));
  });

  it('a device behind an artifact (/dev/zero, /dev/urandom) ends in one located message, never a read', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await workbench();
    await fs.rm(path.join(dir, 'review_report.json'));
    await fs.symlink('/dev/zero', path.join(dir, 'review_report.json'));
    await fs.rm(path.join(dir, 'feedback_record.jsonl'));
    await fs.symlink('/dev/urandom', path.join(dir, 'feedback_record.jsonl'));
    const r = allCommands(dir);
    assert.equal(r['generate']!.code, 0, r['generate']!.stderr);
    assert.equal((r['generate']!.stderr.match(/^review_report\.json: .*not followed$/gm) ?? []).length, 1, r['generate']!.stderr);
    assert.equal((r['generate']!.stderr.match(/^feedback_record\.jsonl: .*not followed$/gm) ?? []).length, 1, r['generate']!.stderr);
  });

  it('a NUL or an escape sequence in an agent-written path never reaches the packet, markdown or prompt', async () => {
    const dir = await copyFixture('workbench-refund');
    const state = JSON.parse(await fs.readFile(path.join(dir, 'agent_state.json'), 'utf8')) as Record<string, unknown>;
    state['touched_files'] = ['payments/refund\u0000.py', 'payments/\u001b[31mred\u001b[0m.py', 'a\u202eyp.exe'];
    await fs.writeFile(path.join(dir, 'agent_state.json'), JSON.stringify(state));
    // Not a git repository: the changed files come from touched_files.
    const gen = cli(['generate', '--dir', dir, '--allow-dirty']);
    assert.equal(gen.code, 0, gen.stderr);
    const outputs = [cli(['show', '--dir', dir, '--json']).stdout, cli(['show', '--dir', dir]).stdout, cli(['prompt', '--dir', dir]).stdout];
    for (const text of outputs) assert.doesNotMatch(text.replace(/\\u[0-9a-f]{4}/gi, (m) => String.fromCharCode(parseInt(m.slice(2), 16))), /[\u0000\u001b\u202e]/);
    const packet = JSON.parse(outputs[0]!) as { changed_files: { path: string }[] };
    assert.deepEqual(packet.changed_files.map((f) => f.path), ['payments/refund.py', 'payments/[31mred[0m.py', 'ayp.exe']);
  });

  it('a transcript line over the line cap is skipped with one located message; the reading before it still counts', async () => {
    const dir = await workbench();
    const claude = await makeTempDir('claude-');
    const project = path.join(claude, 'projects', claudeProjectSlug(dir));
    await fs.mkdir(project, { recursive: true });
    const transcript = path.join(project, 'sess-big.jsonl');
    // 20 MiB in one line, over the 16 MiB cap, after the call that holds the reading.
    await fs.writeFile(transcript, claudeCall({ cwd: dir, sessionId: 'sess-big', input: 40_000 }) + claudeUser('y'.repeat(20 * 1024 * 1024)));
    const r = cli(['status', '--dir', dir, '--json'], { CLAUDE_CONFIG_DIR: claude });
    assert.equal(r.code, 0, r.stderr);
    const tooLong = r.stderr.split('\n').filter((l) => /line too long, skipped/.test(l));
    assert.equal(tooLong.length, 1, r.stderr);
    assert.ok(tooLong[0]!.startsWith(`${transcript}: line at byte `), tooLong[0]);
    const status = JSON.parse(r.stdout) as { context: { current: { known: boolean; usedTokens?: number } } };
    assert.equal(status.context.current.known, true);
    assert.equal(status.context.current.usedTokens, 40_000);
  });

  it('a workbench or output dir outside the workspace is refused, from flags and never written to', async () => {
    const dir = await workbench();
    const outside = path.join(path.dirname(dir), `escape-${path.basename(dir)}`);
    const r = cli(['generate', '--dir', dir, '--allow-dirty', '--output-dir', `../../${path.basename(outside)}`]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /outputDir "\.\.\/\.\.\/escape-[^"]+" leads outside the workspace folder/);
    await assert.rejects(fs.stat(outside));
    const w = cli(['status', '--dir', dir, '--workbench-dir', '..']);
    assert.equal(w.code, 2);
    assert.match(w.stderr, /workbenchDir "\.\." leads outside the workspace folder/);
  });

  it('an output dir that is a symlink out of the workspace is refused before anything is written', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await workbench();
    const elsewhere = await makeTempDir('elsewhere-');
    await fs.mkdir(path.join(dir, 'outputs'), { recursive: true });
    await fs.symlink(elsewhere, path.join(dir, 'outputs', 'handoff'));
    const r = cli(['generate', '--dir', dir, '--allow-dirty']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /leads outside the workspace folder/);
    assert.deepEqual(await fs.readdir(elsewhere), []);
  });
});
