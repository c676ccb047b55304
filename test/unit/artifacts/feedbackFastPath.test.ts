import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FeedbackTrim, readFeedback } from '../../../src/core/artifacts/feedback';
import { makeTempDir } from '../helpers/fixtures';
import { fake } from '../redact/corpus';

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

async function read(content: Buffer | string) {
  const dir = await makeTempDir('feedback-fast-');
  const abs = path.join(dir, 'feedback_record.jsonl');
  await fs.writeFile(abs, content);
  const r = await readFeedback(abs, 'feedback_record.jsonl', { feedbackK: 1000, maxCommands: 100_000 });
  assert.ok(r?.feedback);
  return { feedback: r.feedback, diagnostics: r.diagnostics };
}

/** `n` good records, `echo <i>`, each padded so that the log spans several 256 KiB reads. */
function goodLines(n: number, pad = 700): string[] {
  return Array.from({ length: n }, (_, i) => line({ command: `echo ${i}`, exit_code: 0, stdout_tail: 'x'.repeat(pad) }));
}

describe('feedback_record.jsonl: whole lines read a chunk at a time', () => {
  it('names a malformed line by its own number, before, inside and after a read boundary', async () => {
    const lines = goodLines(2000);
    // Line 300 lies well inside the first 256 KiB; 1200 and 1201 around the fourth boundary.
    const bytesBefore = (n: number) => lines.slice(0, n).reduce((a, l) => a + Buffer.byteLength(l), 0);
    const boundary = lines.findIndex((_, i) => bytesBefore(i + 1) > 4 * 256 * 1024);
    for (const at of [299, boundary, boundary + 1]) lines[at] = '{"command": "broken",\n';
    const r = await read(lines.join(''));
    assert.deepEqual(r.diagnostics.map((d) => d.line), [300, boundary + 1, boundary + 2]);
    assert.ok(r.diagnostics.every((d) => /invalid JSON/.test(d.message)), JSON.stringify(r.diagnostics));
    assert.equal(r.feedback.total, 1997);
    // Every good record keeps its own line index.
    assert.ok(r.feedback.kept.every((k) => k.record.command === `echo ${k.index}`));
  });

  it('a line of invalid UTF-8 or with a NUL byte costs only itself; its neighbours are read', async () => {
    const parts = goodLines(50, 10).map((l) => Buffer.from(l));
    parts[9] = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]);
    parts[19] = Buffer.from('{"command": "a\u0000b", "exit_code": 0}\n', 'latin1');
    const r = await read(Buffer.concat(parts));
    assert.deepEqual(r.diagnostics.map((d) => [d.line, d.message]), [
      [10, 'binary content (invalid UTF-8), not a JSON line'],
      [20, 'binary content (NUL bytes), not a JSON line'],
    ]);
    assert.equal(r.feedback.total, 48);
    assert.deepEqual(r.feedback.kept.map((k) => k.index).slice(8, 11), [8, 10, 11]);
  });

  it('reads text beyond ASCII at the right lines, and strips controls in plain ASCII lines as in others', async () => {
    const r = await read([
      line({ command: 'echo café', exit_code: 0, stdout_tail: 'naïve ✓' }),
      '\uFEFF' + line({ command: 'echo bom', exit_code: 0 }),
      '{"command": "oops"\n',
      line({ command: 'echo bell', exit_code: 0, stdout_tail: 'ding\u0007 done' }),
      `{"command":"echo del","exit_code":0,"stdout_tail":"a\u007fb"}\n`,
      line({ command: 'echo zw', exit_code: 0, stdout_tail: 'a\u200bb' }),
    ].join(''));
    assert.deepEqual(r.diagnostics.map((d) => d.line), [3]);
    const byIndex = Object.fromEntries(r.feedback.kept.map((k) => [k.index, k.record]));
    assert.equal(byIndex[0]?.command, 'echo café');
    assert.equal(byIndex[0]?.stdout_tail, 'naïve ✓');
    assert.equal(byIndex[1]?.command, 'echo bom');
    assert.equal(byIndex[3]?.stdout_tail, 'ding done');
    assert.equal(byIndex[4]?.stdout_tail, 'ab');
    assert.equal(byIndex[5]?.stdout_tail, 'ab');
  });

  it('strips a control escape in a log that is otherwise ASCII without backslashes', async () => {
    const r = await read([...goodLines(20, 10), line({ command: 'printf', exit_code: 0, stdout_tail: '\u001b[31mred\u001b[0m' })].join(''));
    assert.equal(r.feedback.kept.at(-1)?.record.stdout_tail?.includes('\u001b'), false);
  });

  it('a line carried over a read boundary keeps its number and its bytes', async () => {
    // The 257th KiB starts inside a line of multi-byte characters.
    const first = line({ command: 'echo pad', exit_code: 0, stdout_tail: 'p'.repeat(256 * 1024 - 100) });
    const split = line({ command: 'echo split', exit_code: 0, stdout_tail: 'é'.repeat(200) });
    const r = await read([first, split, '{"bad"\n', line({ command: 'echo end', exit_code: 0 })].join(''));
    assert.deepEqual(r.diagnostics.map((d) => d.line), [3]);
    assert.deepEqual(r.feedback.kept.map((k) => [k.index, k.record.command]), [[0, 'echo pad'], [1, 'echo split'], [3, 'echo end']]);
    assert.equal(r.feedback.kept[1]?.record.stdout_tail, 'é'.repeat(200));
  });
});

describe('feedback trim: a passing run looks up only its own failures', () => {
  it('a run of one target resolves that target\'s failures and leaves the other targets\' open', () => {
    const trim = new FeedbackTrim({ feedbackK: 0, maxCommands: 30 });
    const add = (index: number, command: string[], exit: number) => trim.add({ index, record: { command, exit_code: exit } });
    add(0, ['pytest', 'tests/test_a.py'], 1);
    add(1, ['pytest', 'tests/test_b.py'], 1);
    add(2, ['pytest', 'tests/test_a.py', '-q'], 1);
    add(3, ['pytest', 'tests/test_a.py'], 0);
    assert.deepEqual(trim.result().resolvedBy, { 0: 3, 2: 3 });
    add(4, ['pytest', 'tests/test_a.py'], 0);
    assert.deepEqual(trim.result().resolvedBy, { 0: 3, 2: 3 }, 'a failure is resolved by the first passing run only');
    add(5, ['pytest', 'tests/'], 0);
    assert.deepEqual(trim.result().resolvedBy, { 0: 3, 1: 5, 2: 3 });
  });

  it('failures still open when the lookup is filed anew are resolved after it, by their own runs only', () => {
    // A cap of 5 files the lookup anew after 26 failures: many resolved ones, then two open.
    const trim = new FeedbackTrim({ feedbackK: 0, maxCommands: 5 });
    let index = 0;
    const add = (command: string[], exit: number) => trim.add({ index: index++, record: { command, exit_code: exit } });
    for (let i = 0; i < 25; i++) {
      add(['make', `x${i}`], 1);
      add(['make', `x${i}`], 0);
    }
    add(['pytest', 'tests/a.py'], 1); // index 50
    add(['npx', 'eslint', 'src/b.ts'], 1); // index 51: the lookup is filed anew here
    add(['pytest', 'tests/c.py'], 1); // index 52
    add(['pytest', 'tests/a.py'], 0); // 53
    add(['npx', 'eslint', '--fix', 'src/b.ts'], 0); // 54
    const r = trim.result();
    assert.deepEqual(r.kept.map((k) => k.index), [46, 48, 50, 51, 52]);
    assert.deepEqual(r.resolvedBy, { 46: 47, 48: 49, 50: 53, 51: 54 });
  });
});

describe('feedback_record.jsonl: a password given in words, found at its own line wherever it stands in a read', () => {
  async function secretsOf(content: string) {
    const dir = await makeTempDir('feedback-words-');
    const abs = path.join(dir, 'feedback_record.jsonl');
    await fs.writeFile(abs, content);
    const r = await readFeedback(abs, 'feedback_record.jsonl', { feedbackK: 10, maxCommands: 100 });
    return (r?.secrets ?? []).map((s) => s.line);
  }

  it('in plain ASCII lines and in lines beyond ASCII, before, at and after a 256 KiB boundary', async () => {
    // A word of letters only: nothing but the words before it ("password is", "密码是") makes the line worth a look.
    const word = fake(22, 8, 'abcdefghijklmnop');
    for (const [note, other] of [[`the root password is ${word}`, 'done'], [`我的密码是 ${word}，请用它登录`, 'fertig ✓']] as const) {
      const lines = goodLines(1200).map((l, i) => (i % 2 ? l.replace('"exit_code"', `"agent_note":${JSON.stringify(other)},"exit_code"`) : l));
      const bytesBefore = (n: number) => lines.slice(0, n).reduce((a, l) => a + Buffer.byteLength(l), 0);
      const boundary = lines.findIndex((_, i) => bytesBefore(i + 1) > 256 * 1024);
      const at = [3, boundary, boundary + 1, 1199];
      for (const i of at) lines[i] = line({ command: `echo ${i}`, exit_code: 0, agent_note: note });
      assert.deepEqual(await secretsOf(lines.join('')), at.map((i) => i + 1), note);
    }
  });
});
