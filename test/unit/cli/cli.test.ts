import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copyFixture, makeTempDir, repoRoot } from '../helpers/fixtures';

/** The CLI as a real process: the transpiled entry point that `esbuild --tests` leaves in out/. */
function handoff(args: string[], cwd?: string): { code: number | null; stdout: string; stderr: string } {
  const main = path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');
  const r = spawnSync(process.execPath, [main, ...args], { cwd: cwd ?? repoRoot(), encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('handoff CLI', () => {
  it('generate writes the packet (exit 0), then reports unchanged; show and prompt read it back', async () => {
    const dir = await copyFixture('workbench-refund');
    const first = handoff(['generate', '--dir', dir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /wrote .*refund-s3[/\\]handoff\.json/);
    const written = path.join(dir, 'outputs/handoff/refund-s3/handoff.json');
    const bytes = await fs.readFile(written, 'utf8');
    const { mtimeMs } = await fs.stat(written);
    const second = handoff(['generate', '--json'], dir);
    assert.equal(second.code, 0);
    const out = JSON.parse(second.stdout) as { kind: string; json: string };
    assert.equal(out.kind, 'unchanged');
    assert.equal(out.json, written);
    // Nothing was written again: same bytes, same modification time.
    assert.equal(await fs.readFile(written, 'utf8'), bytes);
    assert.equal((await fs.stat(written)).mtimeMs, mtimeMs);

    const show = handoff(['show', '--dir', dir, '--json']);
    assert.equal(show.code, 0);
    assert.equal(JSON.parse(show.stdout).session_id, 'refund-s3');
    const md = handoff(['show', '--dir', dir]);
    assert.match(md.stdout, /^# Handoff: T-004/);
    const prompt = handoff(['prompt', '--dir', dir]);
    assert.equal(prompt.code, 0);
    assert.match(prompt.stdout, /NEXT ACTION[^\n]*\n> Run pytest/);
    assert.ok(!prompt.stdout.includes('sk-live-4f9a'));

    // A risk acknowledged in the editor (sidecar next to the packet) is marked in the CLI's prompt too.
    assert.doesNotMatch(prompt.stdout, /acknowledged by/);
    const ack = { schema_version: 1, acks: [{ risk_id: 'verify:acceptance.failed', by: 'dana', at: '2026-11-21T10:00:00Z' }] };
    await fs.writeFile(path.join(dir, 'outputs/handoff/refund-s3/acks.json'), JSON.stringify(ack));
    const acked = handoff(['prompt', '--dir', dir]);
    assert.equal(acked.code, 0, acked.stderr);
    assert.match(acked.stdout, /acknowledged by dana/);
  });

  it('generate moves acknowledgements made before the packet existed into the packet', async () => {
    const dir = await copyFixture('workbench-refund');
    const waiting = { schema_version: 1, acks: [{ risk_id: 'blocker:1', by: 'dana', at: '2026-11-21T10:00:00Z' }] };
    await fs.mkdir(path.join(dir, 'outputs/handoff'), { recursive: true });
    await fs.writeFile(path.join(dir, 'outputs/handoff/acks.json'), JSON.stringify(waiting));
    const r = handoff(['generate', '--dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    const moved = JSON.parse(await fs.readFile(path.join(dir, 'outputs/handoff/refund-s3/acks.json'), 'utf8'));
    assert.deepEqual(moved.acks.map((a: { risk_id: string }) => a.risk_id), ['blocker:1']);
    await assert.rejects(fs.stat(path.join(dir, 'outputs/handoff/acks.json')));
    assert.match(handoff(['prompt', '--dir', dir]).stdout, /blocker:1: .*acknowledged by dana/);
  });

  it('generate reads the workbench from --workbench-dir', async () => {
    const dir = await makeTempDir();
    await fs.cp(path.join(await copyFixture('workbench-refund'), '.'), path.join(dir, 'wb'), { recursive: true });
    const r = handoff(['generate', '--dir', dir, '--workbench-dir', 'wb', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(await fs.readFile(JSON.parse(r.stdout).json, 'utf8')).session_id, 'refund-s3');
  });

  it('says a file error in one sentence, without repeating its code', async () => {
    const file = path.join(await makeTempDir(), 'plain-file');
    await fs.writeFile(file, 'x');
    const r = handoff(['archive', 'x', '--dir', path.dirname(file), '--output-dir', 'plain-file']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /(E[A-Z]+): \1/);
  });

  it('refuses with exit 1 and a reason when there is no next action and nothing to derive', async () => {
    const dir = await makeTempDir();
    await fs.writeFile(path.join(dir, 'agent_state.json'), JSON.stringify({ active_task_id: 'T-9', touched_files: [] }));
    await fs.writeFile(path.join(dir, 'feedback_record.jsonl'), `${JSON.stringify({ command: 'npm test', exit_code: 0 })}\n`);
    const r = handoff(['generate', '--dir', dir]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused: no next action: record one concrete step as "next_action" in agent_state\.json/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    await assert.rejects(fs.stat(path.join(dir, 'outputs')));
  });

  it('derives the next action from the newest failing command when none is recorded', async () => {
    const dir = await copyFixture('workbench-refund');
    await fs.writeFile(path.join(dir, 'agent_state.json'), JSON.stringify({ active_task_id: 'T-004', touched_files: [] }));
    const r = handoff(['generate', '--dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const packet = JSON.parse(await fs.readFile(JSON.parse(r.stdout).json, 'utf8'));
    assert.equal(packet.next_action_source, 'derived');
    assert.match(packet.next_action, /pytest tests\/test_refund\.py.*exit 1: 1 failed, 6 passed/);
  });

  it('prints diagnostics as file:line: message on stderr without changing the exit code', async () => {
    const dir = await copyFixture('workbench-refund');
    await fs.appendFile(path.join(dir, 'feedback_record.jsonl'), '{"command": "pyt');
    const r = handoff(['generate', '--dir', dir]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /^feedback_record\.jsonl:13: partial last line/m);
  });

  it('bad usage exits 2 with one line and no stack trace', async () => {
    for (const args of [['bogus'], ['generate', '--nope'], ['generate', '--k', 'x'], ['generate', '--dir', '/definitely/not/here'], ['generate', 'extra'], []]) {
      const r = handoff(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(!/\n\s+at /.test(r.stderr), 'no stack trace');
      if (args.length) assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.match(handoff(['bogus']).stderr, /unknown command "bogus"/);
  });

  it('help lists the commands; help <cmd> shows its flags; prompt without a packet exits 1', async () => {
    const help = handoff(['--help']);
    assert.equal(help.code, 0);
    for (const c of ['generate', 'prompt', 'show']) assert.match(help.stdout, new RegExp(`^  ${c}\\s`, 'm'));
    const g = handoff(['help', 'generate']);
    assert.match(g.stdout, /--dir DIR/);
    assert.match(g.stdout, /--json/);
    const none = handoff(['prompt', '--dir', await makeTempDir()]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /run `handoff generate` first/);
  });
});

describe('handoff CLI options', () => {
  it('--output-dir and --k change where the packet goes and how many records it keeps', async () => {
    const dir = await copyFixture('workbench-refund');
    const r = handoff(['generate', '--dir', dir, '--output-dir', 'handoffs', '--k', '2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { json: string };
    assert.equal(out.json, path.join(dir, 'handoffs', 'refund-s3', 'handoff.json'));
    const packet = JSON.parse(await fs.readFile(out.json, 'utf8')) as { commands_run: { index: number }[] };
    assert.deepEqual(packet.commands_run.map((c) => c.index), [1, 4, 5, 9, 10, 11]);
    const bad = handoff(['generate', '--dir', dir, '--k', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--k must be a whole number/);
  });
});
