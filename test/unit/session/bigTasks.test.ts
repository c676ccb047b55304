import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readArrayTail } from '../../../src/core/session/jsonTail';
import { elementLines, JsonDocFile, TAIL_FROM_BYTES } from '../../../src/core/session/taskJson';
import { VscodeTaskReader } from '../../../src/core/session/taskReader';
import { makeTempDir } from '../helpers/fixtures';
import { makeRepo } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';
import { placeTasks, taskDir } from './vscodeAgentFixture';

/** Messages whose text holds what a backwards scan could stumble on: quotes, backslashes, brackets, commas. */
function trickyMessages(n: number): unknown[] {
  const texts = ['plain', 'a "quoted" word', 'ends with a backslash \\', '\\"', '], {"not": [an element}', 'line\nbreak', 'ünïcödé ✓', '', ',,,'];
  return Array.from({ length: n }, (_, i) => ({ ts: 1764400000000 + i, type: 'say', say: i % 3 ? 'text' : 'command', text: `${texts[i % texts.length]} #${i}`, nested: { list: [i, [i, { k: texts[(i + 1) % texts.length] }]] } }));
}

async function tailOf(text: string, opts: { tailBytes: number; scanBytes?: number; headBytes?: number }) {
  const dir = await makeTempDir('handoff-tail-');
  const file = path.join(dir, 'ui_messages.json');
  await fs.writeFile(file, text);
  const handle = await fs.open(file, 'r');
  try {
    return await readArrayTail(handle, (await handle.stat()).size, { scanBytes: 1 << 30, headBytes: 0, ...opts });
  } finally {
    await handle.close();
  }
}

describe('a task file too big to parse whole is read from its end', () => {
  for (const [name, indent] of [['compact', undefined], ['pretty-printed', 2]] as const) {
    it(`gives the last elements exactly as a whole parse does, with their lines (${name})`, async () => {
      const all = trickyMessages(400);
      const text = JSON.stringify(all, null, indent);
      const whole = await tailOf(text, { tailBytes: text.length * 2 });
      assert.ok(whole);
      assert.deepEqual(whole.values, all);
      assert.deepEqual(whole.lines, elementLines(text));
      assert.equal(whole.notice, null);
      const tail = await tailOf(text, { tailBytes: 4000 });
      assert.ok(tail && tail.values.length > 5 && tail.values.length < 400);
      assert.deepEqual(tail.values, all.slice(400 - tail.values.length));
      assert.deepEqual(tail.lines, elementLines(text).slice(400 - tail.values.length));
      assert.match(tail.notice ?? '', new RegExp(`^only the last ${tail.values.length} messages \\(\\d+ KB( from line \\d+)?\\) of its \\d+ KB were read; the \\d+ KB before them were not$`));
    });
  }

  it('adds the first message (the task\'s request) when it is small', async () => {
    const all = trickyMessages(300);
    const text = JSON.stringify(all);
    const tail = await tailOf(text, { tailBytes: 3000, headBytes: 1024 });
    assert.ok(tail);
    assert.deepEqual(tail.values[0], all[0]);
    assert.deepEqual(tail.values.slice(1), all.slice(300 - (tail.values.length - 1)));
    assert.match(tail.notice ?? '', /^only the first message and the last \d+ messages .* the \d+ KB between them were not$/);
  });

  it('skips one message bigger than the whole tail and reads the ones before it, saying so', async () => {
    const all = trickyMessages(20);
    const huge = { ts: 1, type: 'say', say: 'text', text: `"${'x\\"y'.repeat(50_000)}` };
    const text = JSON.stringify([...all, huge]);
    const tail = await tailOf(text, { tailBytes: 64 * 1024 });
    assert.ok(tail);
    assert.deepEqual(tail.values, all);
    assert.match(tail.notice ?? '', /1 message over 64 KB each skipped/);
  });

  it('gives up (null) on what is not one array or was cut short', async () => {
    assert.equal(await tailOf('{"a": [1, 2, 3]}', { tailBytes: 4 }), null);
    assert.equal(await tailOf(JSON.stringify(trickyMessages(30)).slice(0, -40), { tailBytes: 400 }), null);
  });

  it('JsonDocFile reads a big array from its end and says what it left out; a small one whole', async () => {
    const dir = await makeTempDir('handoff-tail-');
    const file = path.join(dir, 'ui_messages.json');
    const all = trickyMessages(500);
    await fs.writeFile(file, JSON.stringify(all));
    const small = await new JsonDocFile(file, { arrayLines: true, tail: {} }).read();
    assert.deepEqual(small.value, all);
    assert.equal(small.partial ?? null, null);
    const big = await new JsonDocFile(file, { arrayLines: true, tail: { fromBytes: 1000, tailBytes: 5000 } }).read();
    assert.ok(Array.isArray(big.value) && big.value.length < 500);
    const got = big.value as unknown[];
    assert.deepEqual(got, [all[0], ...all.slice(500 - (got.length - 1))]);
    assert.match(big.partial ?? '', /^only the first message and the last \d+ messages/);
  });

  it(`a Cline task over ${TAIL_FROM_BYTES / 1048576} MB: facts from its last messages, and the packet's sources say what was not read`, async function () {
    this.timeout(60_000);
    const cwd = await makeTempDir('handoff-ws-');
    const root = await placeTasks('cline-xml', cwd);
    const dir = taskDir(root, 'cline-xml');
    const ui = JSON.parse(await fs.readFile(path.join(dir, 'ui_messages.json'), 'utf8')) as unknown[];
    // Padding in the middle: old chatter the reader may leave out.
    const pad = Array.from({ length: Math.ceil((TAIL_FROM_BYTES + 4 * 1048576) / 20_000) }, (_, i) => ({ ts: 1764400000500 + i, type: 'say', say: 'reasoning', text: 'r'.repeat(20_000) }));
    await fs.writeFile(path.join(dir, 'ui_messages.json'), JSON.stringify([ui[0], ...pad, ...ui.slice(1)]));
    const reader = new VscodeTaskReader(dir, 'cline', { cwd });
    const facts = await reader.facts();
    assert.ok(facts);
    assert.equal(facts.firstRequest?.text, 'Fix the flaky date test in utils');
    assert.ok(facts.commands.some((c) => c.command.includes('TZ=UTC npm test')));
    assert.equal(facts.notRead?.length, 1);
    assert.equal(facts.notRead?.[0]?.file, path.join(dir, 'ui_messages.json'));
    assert.match(facts.notRead?.[0]?.message ?? '', /^only the first message and the last \d+ messages \([\d.]+ MB from line 1\) of its [\d.]+ MB were read; the [\d.]+ MB between them were not$/);
    const reading = await reader.reading();
    assert.equal(reading.known, true);
    assert.ok(reading.warnings?.some((w) => w.startsWith(`${path.join(dir, 'ui_messages.json')} only the first message`)));
  });
});

describe('a Cline task with odd files, through the CLI', function () {
  // The time limit only ends a read that would hang (a FIFO): a busy machine gets all it needs.
  this.timeout(120_000);
  if (process.platform === 'win32') return;
  async function setup() {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const cwd = await fs.realpath(repo.dir);
    const home = await makeTempDir('handoff-cli-home-');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), HANDOFF_STATE_DIR: path.join(home, 'state') };
    const root = path.join(home, '.config', 'Code', 'User', 'globalStorage');
    await placeTasks('cline-xml', cwd, root);
    return { repo, cwd, env, dir: taskDir(root, 'cline-xml') };
  }

  it('a message time outside the date range does not stop `handoff status` ("Invalid time value")', async () => {
    const { repo, cwd, env, dir } = await setup();
    try {
      for (const name of ['ui_messages.json', 'api_conversation_history.json']) {
        const file = path.join(dir, name);
        const v = JSON.parse(await fs.readFile(file, 'utf8')) as { ts?: number }[];
        v.forEach((m, i) => (m.ts = i % 2 ? 1e20 : -1e19));
        await fs.writeFile(file, JSON.stringify(v));
      }
      const out = handoff(['status', '--dir', cwd], { env });
      assert.equal(out.code, 0, out.stderr);
      assert.doesNotMatch(out.stdout + out.stderr, /Invalid time value/);
      assert.match(out.stdout, /27\.2 % — 34,800 of 128,000 tokens · Cline/);
    } finally {
      repo.remove();
    }
  });

  /** Puts a FIFO or a folder where the task's ui_messages.json was; returns its path. */
  const replaceUiMessages = async (dir: string, kind: 'FIFO' | 'folder'): Promise<string> => {
    const ui = path.join(dir, 'ui_messages.json');
    await fs.rm(ui);
    if (kind === 'FIFO') execFileSync('mkfifo', [ui]);
    else await fs.mkdir(ui);
    return ui;
  };

  for (const kind of ['FIFO', 'folder'] as const) {
    it(`a ${kind} in place of ui_messages.json is named, located, instead of being skipped without a word`, async () => {
      const { repo, cwd, env, dir } = await setup();
      try {
        const ui = await replaceUiMessages(dir, kind);
        const out = handoff(['status', '--dir', cwd], { env, timeoutMs: 90_000 });
        assert.equal(out.code, 0, out.stderr);
        assert.ok(out.stdout.includes(`${ui} is ${kind === 'FIFO' ? 'a named pipe (FIFO)' : 'a folder'}, not a regular file; not read`), out.stdout);
      } finally {
        repo.remove();
      }
    });

    it(`a ${kind} in place of ui_messages.json: \`handoff generate\` names it, located, as \`handoff status\` does`, async () => {
      const { repo, cwd, env, dir } = await setup();
      try {
        const ui = await replaceUiMessages(dir, kind);
        const out = handoff(['generate', '--dir', cwd, '--allow-dirty'], { env, timeoutMs: 90_000 });
        // Nothing else to take a next step from: refused, and the reason the task was not read comes first.
        assert.equal(out.code, 1, out.stderr);
        const said = `${ui}: is ${kind === 'FIFO' ? 'a named pipe (FIFO)' : 'a folder'}, not a regular file; not read\n`;
        assert.equal(out.stderr.split(said).length - 1, 1, out.stderr);
        assert.ok(out.stderr.indexOf(said) < out.stderr.indexOf('handoff: refused: no next action'), out.stderr);
      } finally {
        repo.remove();
      }
    });
  }
});
