import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FeedbackRecordSchema } from '../../../src/core/artifacts/schemas';
import { makeTempDir, repoRoot } from '../helpers/fixtures';
import { handoff, handoffAsync } from '../helpers/workbenchRepo';

const node = process.execPath;

async function records(dir: string): Promise<Record<string, unknown>[]> {
  const text = await fs.readFile(path.join(dir, 'feedback_record.jsonl'), 'utf8');
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** True when no live process has this pid (a zombie left to a non-reaping init counts as gone). */
function gone(pid: number): boolean {
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat === '' || stat.startsWith('Z');
  } catch {
    return true;
  }
}

describe('handoff record', function () {
  this.timeout(120_000);

  it('passes exit code 0 through and appends one record with argv, start, duration and note', async () => {
    const dir = await makeTempDir('record-');
    const r = handoff(['record', '--note', 'smoke run', '--', node, '-e', 'console.log("all good")'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'all good\n');
    const [rec, ...more] = await records(dir);
    assert.equal(more.length, 0);
    assert.ok(FeedbackRecordSchema.safeParse(rec).success);
    assert.deepEqual(rec!['command'], [node, '-e', 'console.log("all good")']);
    assert.equal(rec!['exit_code'], 0);
    assert.equal(rec!['agent_note'], 'smoke run');
    assert.equal(rec!['stdout_tail'], 'all good');
    assert.ok(!Number.isNaN(Date.parse(String(rec!['started_at']))));
    assert.equal(typeof rec!['duration_ms'], 'number');
  });

  it('passes exit code 1 through; the output tails are redacted before they are cut', async () => {
    const dir = await makeTempDir('record-');
    const script = 'console.error("DB_PASSWORD=hunter2-very-secret"); console.error("x".repeat(5000)); console.error("tail line ghp_abcdefghijklmnopqrstuvwxyz0123456789"); process.exit(1)';
    const r = handoff(['record', '--', node, '-e', script], { cwd: dir });
    assert.equal(r.code, 1);
    // The live output is the command's own, unchanged.
    assert.match(r.stderr, /hunter2-very-secret/);
    const [rec] = await records(dir);
    assert.equal(rec!['exit_code'], 1);
    const tail = String(rec!['stderr_tail']);
    assert.match(tail, /tail line/);
    assert.ok(!tail.includes('abcdefghijklmnopqrstuvwxyz0123456789') && !tail.includes('hunter2'), tail);
    assert.ok(Buffer.byteLength(`${JSON.stringify(rec)}\n`) <= 4096, 'one record fits one atomic append');
  });

  it('exits 128 + signal (137 after SIGKILL) and records exit code null', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await makeTempDir('record-');
    const r = handoff(['record', '--', node, '-e', 'process.kill(process.pid, "SIGKILL")'], { cwd: dir });
    assert.equal(r.code, 137);
    const [rec] = await records(dir);
    assert.equal(rec!['exit_code'], null);
    assert.equal(rec!['error'], 'killed by SIGKILL');
  });

  it('--timeout kills the whole process group and records null with the reason', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = await makeTempDir('record-');
    // A shell that starts a helper in the background and waits: both must go.
    const r = handoff(['record', '--timeout', '1', '--', 'sh', '-c', 'sleep 300 & echo $! > helper.pid; wait'], { cwd: dir });
    assert.equal(r.code, 124, r.stderr);
    const [rec] = await records(dir);
    assert.equal(rec!['exit_code'], null);
    assert.equal(rec!['error'], 'timeout after 1 s');
    const helper = Number(await fs.readFile(path.join(dir, 'helper.pid'), 'utf8'));
    assert.ok(helper > 0 && gone(helper), `background helper ${helper} still runs`);
  });

  it('20 concurrent runs give 20 intact lines', async () => {
    const dir = await makeTempDir('record-');
    // Large outputs make each record close to the atomic-append size.
    const runs = Array.from({ length: 20 }, (_, i) =>
      handoffAsync(['record', '--note', `run ${i}`, '--', node, '-e', `process.stdout.write("${i} ".repeat(3000)); process.exit(${i % 3})`], dir),
    );
    const results = await Promise.all(runs);
    assert.deepEqual(results.map((r) => r.code), Array.from({ length: 20 }, (_, i) => i % 3));
    const lines = (await fs.readFile(path.join(dir, 'feedback_record.jsonl'), 'utf8')).split('\n').filter(Boolean);
    assert.equal(lines.length, 20);
    const notes = lines.map((l) => {
      const rec = JSON.parse(l) as { agent_note: string; exit_code: number };
      assert.ok(FeedbackRecordSchema.safeParse(rec).success);
      return rec.agent_note;
    });
    assert.deepEqual(notes.sort(), Array.from({ length: 20 }, (_, i) => `run ${i}`).sort());
  });

  it('passes output through live: a line is seen before the command ends', async () => {
    const dir = await makeTempDir('record-');
    const release = path.join(dir, 'release');
    // The command prints, then waits until the test has seen that line and creates the release file.
    const script = `console.log("first line"); const t = setInterval(() => { if (require("fs").existsSync(${JSON.stringify(release)})) { clearInterval(t); console.log("done"); } }, 20);`;
    const child = spawn(node, [path.join(repoRoot(), 'out', 'src', 'cli', 'main.js'), 'record', '--', node, '-e', script], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let exited = false;
    child.on('exit', () => (exited = true));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no live output; got ${JSON.stringify(out)}`)), 60_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('first line\n')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    assert.equal(exited, false, 'the command had already ended');
    assert.ok(!existsSync(path.join(dir, 'feedback_record.jsonl')), 'recorded before the command ended');
    await fs.writeFile(release, '');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    assert.equal(out, 'first line\ndone\n');
  });

  it('does not glue a record to a torn last line, and says so when the command cannot run', async () => {
    const dir = await makeTempDir('record-');
    await fs.writeFile(path.join(dir, 'feedback_record.jsonl'), '{"command":"half');
    const r = handoff(['record', '--', 'no-such-command-xyz'], { cwd: dir });
    assert.equal(r.code, 127);
    assert.match(r.stderr, /cannot run no-such-command-xyz: command not found/);
    const lines = (await fs.readFile(path.join(dir, 'feedback_record.jsonl'), 'utf8')).split('\n');
    assert.equal(lines[0], '{"command":"half');
    assert.equal(JSON.parse(lines[1]!).exit_code, 127);
  });

  it('leaves the words after -- to the command (its own --help is not ours)', async () => {
    const dir = await makeTempDir('record-');
    const r = handoff(['record', '--', 'sh', '-c', 'echo "$1"', 'sh', '--help'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '--help\n');
  });
});
