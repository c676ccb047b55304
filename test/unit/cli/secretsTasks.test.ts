import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { MAX_ELEMENT_BYTES } from '../../../src/core/session/jsonElements';
import { TAIL_FROM_BYTES } from '../../../src/core/session/taskJson';
import { scrubTaskFile } from '../../../src/core/workflow/secrets';
import { makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';
import { TASK_IDS } from '../session/vscodeAgentFixture';
import { githubToken, taskWithCatEnv } from '../session/taskSecrets';

const ID = TASK_IDS['cline-native'];

/** A home of its own, so no real editor's global storage is read. */
async function isolatedEnv(): Promise<NodeJS.ProcessEnv> {
  const home = await makeTempDir('handoff-home-');
  return { ...process.env, HOME: home, XDG_CONFIG_HOME: '', APPDATA: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), CLINE_SESSION_DATA_DIR: path.join(home, 'cline-sessions') };
}

describe('handoff secrets with a Cline task', () => {
  const make = tempRepos(workbenchRepo);

  async function setup(ageMs = 3_600_000) {
    const r = make();
    const dir = await fs.realpath(r.dir);
    const task = await taskWithCatEnv('cline-native', dir, ageMs);
    const files = ['ui_messages.json', 'api_conversation_history.json'].map((f) => path.join(task.dir, f));
    for (const f of files) await fs.chmod(f, 0o600);
    const t = new Date(Date.now() - ageMs);
    for (const f of files) await fs.utimes(f, t, t);
    const args = ['--dir', dir, '--cline-dir', path.join(task.root, 'saoudrizwan.claude-dev')];
    return { repo: dir, ...task, files, args, env: await isolatedEnv() };
  }

  it("lists the task's credential with the command, the task and both files, as text and as JSON", async () => {
    const s = await setup();
    const text = handoff(['secrets', ...s.args], { env: s.env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 credential found for /);
    assert.match(text.stdout, new RegExp(`1\\. \`cat \\.env\` printed a Stripe live key \\(STRIPE_SECRET_KEY\\) into Cline task ${ID}, whose files now hold a copy\\. Fix: .* Seen in .*${ID}/: ui_messages\\.json message index 6; api_conversation_history\\.json message index 4 \\(line \\d+\\)\\.`));
    assert.match(text.stdout, new RegExp(`Sessions read: Cline task ${ID}: .*ui_messages\\.json \\(1\\), Cline task ${ID}: .*api_conversation_history\\.json \\(1\\)`));
    assert.match(text.stdout, /Close the task in Cline first: the agent rewrites a task's files whole on its next save/);
    assert.ok(!text.stdout.includes(s.key.slice(8)), 'the listing never shows the value');
    const out = JSON.parse(handoff(['secrets', ...s.args, '--json'], { env: s.env }).stdout) as { credentials: unknown[]; places: { kind: string; file: string; printedBy: string; lines: number[] }[]; sessions: { task?: string }[] };
    assert.equal(out.credentials.length, 1);
    assert.deepEqual(
      out.places.map((p) => [p.kind, path.basename(p.file), p.printedBy]),
      [
        ['a Stripe live key (STRIPE_SECRET_KEY)', 'ui_messages.json', '`cat .env`'],
        ['a Stripe live key (STRIPE_SECRET_KEY)', 'api_conversation_history.json', '`cat .env`'],
      ],
    );
    assert.ok(out.sessions.every((x) => x.task === `Cline task ${ID}`));
  });

  it('--scrub masks it in both task files in place: valid JSON, only the credential changed, same file and mode, no copy left, and says to keep the task closed', async () => {
    const s = await setup();
    const before = await Promise.all(s.files.map((f) => fs.readFile(f, 'utf8')));
    const inodes = await Promise.all(s.files.map(async (f) => (await fs.stat(f)).ino));
    const res = handoff(['secrets', ...s.args, '--scrub'], { env: s.env });
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, new RegExp(`masked 1 credential in Cline task ${ID}: .*ui_messages\\.json \\(message index 6\\); Cline must not be running this task: it rewrites the file whole on its next save`));
    assert.match(res.stdout, /masked 1 credential in Cline task .*api_conversation_history\.json \(message index 4\)/);
    for (const [i, f] of s.files.entries()) {
      const after = await fs.readFile(f, 'utf8');
      assert.ok(before[i]!.includes(s.key) && !after.includes(s.key));
      assert.doesNotThrow(() => JSON.parse(after));
      // Byte for byte the same outside the masked span.
      assert.equal(after, before[i]!.split(s.key).join('*'.repeat(s.key.length)));
      assert.equal((await fs.stat(f)).mode & 0o777, 0o600);
      assert.equal((await fs.stat(f)).ino, inodes[i], 'the same file, not a copy renamed over it');
    }
    assert.deepEqual((await fs.readdir(s.dir)).filter((f) => f.startsWith('.')), [], 'no temp or backup copy beside the task files');
    assert.match(handoff(['secrets', ...s.args], { env: s.env }).stdout, /^No credentials found/);
  });

  it('--scrub refuses a task file written 5 s ago (the agent may be running the task), unless --force', async () => {
    const s = await setup(5_000);
    const before = await Promise.all(s.files.map((f) => fs.readFile(f, 'utf8')));
    const res = handoff(['secrets', ...s.args, '--scrub'], { env: s.env });
    assert.equal(res.code, 1);
    assert.match(res.stdout, /not scrubbed: .*ui_messages\.json: written to \d+ s ago: Cline may be running the task \(close the task, or pass --force\)/);
    assert.deepEqual(await Promise.all(s.files.map((f) => fs.readFile(f, 'utf8'))), before, 'untouched');
    const forced = handoff(['secrets', ...s.args, '--scrub', '--force'], { env: s.env });
    assert.equal(forced.code, 0, forced.stdout);
    assert.ok(!(await fs.readFile(s.files[0]!, 'utf8')).includes(s.key));
  });

  it('a task file caught half-written is left as it was', async () => {
    const dir = await makeTempDir('handoff-task-');
    const file = path.join(dir, 'ui_messages.json');
    const torn = '[{"ts":1,"type":"say","say":"text","text":"STRIPE_SECRET_KEY=' + ['sk', 'live', 'x'.repeat(4)].join('_');
    await fs.writeFile(file, torn);
    const r = await scrubTaskFile(file, { force: true, task: 'Roo Code task t1' });
    assert.equal(r.kind, 'refused');
    assert.match(r.kind === 'refused' ? r.reason : '', /not valid JSON right now \(Roo Code may be writing it\)/);
    assert.equal(await fs.readFile(file, 'utf8'), torn);
  });

  it('handoff generate: the packet holds one block risk naming the task, and masks the value', async () => {
    const s = await setup();
    const gen = handoff(['generate', '--allow-dirty', ...s.args], { env: s.env });
    assert.equal(gen.code, 0, gen.stderr);
    const written = /^wrote (.+handoff\.json)$/m.exec(gen.stdout)?.[1];
    assert.ok(written?.startsWith(s.repo), gen.stdout);
    const json = await fs.readFile(written!, 'utf8');
    assert.ok(!json.includes(s.key.slice(8)));
    const packet = JSON.parse(json) as { open_risks: { id: string; severity: string; detail: string }[] };
    const leaks = packet.open_risks.filter((r) => r.id.startsWith('leak:'));
    assert.equal(leaks.length, 1, JSON.stringify(packet.open_risks));
    assert.equal(leaks[0]!.severity, 'block');
    assert.match(leaks[0]!.detail, new RegExp(`^\`cat \\.env\` printed a Stripe live key \\(STRIPE_SECRET_KEY\\) into Cline task ${ID}, whose files now hold a copy`));
    // The restart prompt keeps the fix whole.
    const prompt = handoff(['prompt', '--dir', s.repo], { env: s.env });
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.match(prompt.stdout, /printed a Stripe live key \(STRIPE_SECRET_KEY\) into Cline task .* delete the task in Cline or scrub it/);
  });
});

describe('handoff secrets over many Cline tasks', () => {
  const make = tempRepos(workbenchRepo);

  it('reads every task, lists the ones holding a credential and counts the clean ones past twenty', async function () {
    this.timeout(60_000);
    const dir = await fs.realpath(make().dir);
    const storage = path.join(await makeTempDir('handoff-storage-'), 'saoudrizwan.claude-dev');
    const history: unknown[] = [];
    for (let i = 0; i < 60; i++) {
      const id = String(1764400000000 + i);
      const task = path.join(storage, 'tasks', id);
      await fs.mkdir(task, { recursive: true });
      // The oldest task holds the key: it must still be found, and named, whatever its place.
      const text = i === 0 ? `export GITHUB_TOKEN=${githubToken()}` : `step ${i}`;
      await fs.writeFile(path.join(task, 'ui_messages.json'), JSON.stringify([{ ts: 1764400000000 + i, type: 'say', say: 'task', text: `task ${i}` }, { ts: 1764400000001 + i, type: 'say', say: 'text', text }]));
      history.push({ id, ts: 1764400000000 + i, task: `task ${i}`, cwdOnTaskInitialization: dir });
    }
    await fs.mkdir(path.join(storage, 'state'));
    await fs.writeFile(path.join(storage, 'state', 'taskHistory.json'), JSON.stringify(history));
    const out = handoff(['secrets', '--dir', dir, '--cline-dir', storage], { env: await isolatedEnv() });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^1 credential found/m);
    assert.match(out.stdout, /Sessions read: Cline task 1764400000000: \S+ui_messages\.json \(1\), /);
    assert.match(out.stdout, /, and 40 more without credentials\.\n/);
    assert.equal((out.stdout.match(/Cline task \d+: /g) ?? []).length, 20);
    const json = JSON.parse(handoff(['secrets', '--dir', dir, '--cline-dir', storage, '--json'], { env: await isolatedEnv() }).stdout) as { sessions: unknown[] };
    assert.equal(json.sessions.length, 60, 'the JSON keeps every session');
  });
});

describe('handoff secrets with a Cline task too big to read whole', () => {
  const make = tempRepos(workbenchRepo);

  async function setup() {
    const r = make();
    const dir = await fs.realpath(r.dir);
    const task = await taskWithCatEnv('cline-native', dir);
    const files = ['ui_messages.json', 'api_conversation_history.json'].map((f) => path.join(task.dir, f));
    return { ...task, files, args: ['--dir', dir, '--cline-dir', path.join(task.root, 'saoudrizwan.claude-dev')], env: await isolatedEnv() };
  }

  /** The credential only in ui_messages.json, near its start, and padding after it past the size the packet reads whole. */
  async function bigTask(extra: unknown[] = []) {
    const s = await setup();
    const [ui, api] = s.files as [string, string];
    await fs.writeFile(api, (await fs.readFile(api, 'utf8')).split(`STRIPE_SECRET_KEY=${s.key}`).join('HOST=localhost'));
    const messages = JSON.parse(await fs.readFile(ui, 'utf8')) as unknown[];
    const filler = 'lorem ipsum '.repeat(10_000);
    for (let i = 0; i < 300; i++) messages.push({ ts: 1764580010000 + i, type: 'say', say: 'text', text: filler });
    messages.push(...extra);
    await fs.writeFile(ui, JSON.stringify(messages, null, 2));
    assert.ok((await fs.stat(ui)).size > TAIL_FROM_BYTES);
    const t = new Date(Date.now() - 3_600_000);
    for (const f of s.files) await fs.utimes(f, t, t);
    return { ...s, ui };
  }

  it('a task file past the size the packet reads whole is scanned whole: the credential near its start is listed, and --scrub masks it in place', async function () {
    this.timeout(180_000);
    const s = await bigTask();
    const text = handoff(['secrets', ...s.args], { env: s.env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 credential found for /);
    assert.match(text.stdout, new RegExp(`\\\`cat \\.env\\\` printed a Stripe live key \\(STRIPE_SECRET_KEY\\) into Cline task ${ID}.* Seen in .*ui_messages\\.json message index 6 \\(line \\d+\\)`));
    assert.doesNotMatch(text.stdout, /NOT fully scanned|Not fully scanned/);
    assert.ok(!text.stdout.includes(s.key.slice(8)), 'the listing never shows the value');
    const before = await fs.readFile(s.ui, 'utf8');
    const ino = (await fs.stat(s.ui)).ino;
    const res = handoff(['secrets', ...s.args, '--scrub'], { env: s.env });
    assert.equal(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, new RegExp(`masked 1 credential in Cline task ${ID}: .*ui_messages\\.json \\(message index 6\\)`));
    const after = await fs.readFile(s.ui, 'utf8');
    assert.equal(after, before.split(s.key).join('*'.repeat(s.key.length)), 'only the credential changed');
    assert.ok(before.includes(s.key) && !after.includes(s.key));
    assert.equal((await fs.stat(s.ui)).ino, ino, 'the same file, not a copy renamed over it');
    assert.match(handoff(['secrets', ...s.args], { env: s.env }).stdout, /^No credentials found for /);
  });

  it('a message too big to scan is named: never "no credentials" for its file, and the scrub says it was not scanned', async function () {
    this.timeout(180_000);
    const s = await bigTask([{ ts: 1764580099999, type: 'say', say: 'text', text: 'y'.repeat(MAX_ELEMENT_BYTES + 1024) }]);
    const text = handoff(['secrets', ...s.args], { env: s.env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 credential found for /, 'the credential before it is found');
    assert.match(text.stdout, /Not fully scanned: .*ui_messages\.json: one message over 16 MB \(line \d+\) not scanned for credentials; a credential in the part not read is neither found nor masked/);
    const json = JSON.parse(handoff(['secrets', ...s.args, '--json'], { env: s.env }).stdout) as { notScanned: { file: string }[] };
    assert.deepEqual(json.notScanned.map((n) => path.basename(n.file)), ['ui_messages.json']);
    const res = handoff(['secrets', ...s.args, '--scrub'], { env: s.env });
    assert.equal(res.code, 1, 'not all of it could be scrubbed');
    assert.match(res.stdout, /masked 1 credential in Cline task .*ui_messages\.json \(message index 6\); 1 not masked: one message over 16 MB not scanned/);
    assert.ok(!(await fs.readFile(s.ui, 'utf8')).includes(s.key));
  });
});
