import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readFeedback } from '../../../src/core/artifacts/feedback';
import type { FeedbackOptions } from '../../../src/core/artifacts/feedback';
import { makeTempDir } from '../helpers/fixtures';
import { fake } from '../redact/corpus';

const line = (v: unknown) => `${JSON.stringify(v)}\n`;
/** Records of uneven length, some failing, each command naming its own line (`c<index>`). */
function records(n: number, pad = 0): string[] {
  return Array.from({ length: n }, (_, i) => line({ command: ['make', `c${i}`], exit_code: i % 5 === 0 ? 1 : 0, stdout_tail: 'x'.repeat((i * 37) % 90 + pad) }));
}

async function write(text: string): Promise<string> {
  const dir = await makeTempDir('feedback-window-');
  const abs = path.join(dir, 'feedback_record.jsonl');
  await fs.writeFile(abs, text);
  return abs;
}

// Keep everything that is read, so what is kept says exactly which lines were read as records.
const all: FeedbackOptions = { feedbackK: 1e9, maxCommands: 1e9 };

/** The index of the first line that starts at or after the window's first byte. */
function firstWindowLine(lines: string[], windowBytes: number): number {
  const size = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
  const from = Math.max(0, size - windowBytes);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    if (at >= from) return i;
    at += Buffer.byteLength(lines[i]!);
  }
  return lines.length;
}

describe('feedback_record.jsonl bigger than the window: read from its end', () => {
  it('the records are exactly the lines that start in the last windowBytes, numbered as in the file, the rest counted', async () => {
    // Over several read chunks (256 KiB each), so the window's start falls inside a chunk, across one, and mid-line.
    const lines = records(9000, 20);
    const text = lines.join('');
    const abs = await write(text);
    const size = Buffer.byteLength(text);
    assert.ok(size > 3 * 256 * 1024, `${size}`);
    const sha256 = createHash('sha256').update(text).digest('hex');
    const lineStart = Buffer.byteLength(lines.slice(0, 4000).join(''));
    for (const windowBytes of [1, 150, 70_000, 256 * 1024, size - 262_144, size - 262_145, size - lineStart, size - lineStart + 1, size - lineStart - 1, size - 1]) {
      const r = await readFeedback(abs, 'feedback_record.jsonl', { ...all, windowBytes });
      assert.ok(r?.feedback && r.source);
      const first = firstWindowLine(lines, windowBytes);
      const kept = r.feedback.kept.map((k) => k.index);
      assert.deepEqual(kept, Array.from({ length: lines.length - first }, (_, i) => first + i), `windowBytes ${windowBytes}`);
      assert.deepEqual(r.feedback.kept.map((k) => (k.record.command as string[])[1]), kept.map((i) => `c${i}`));
      assert.equal(r.feedback.total, lines.length);
      assert.equal(r.feedback.omitted, first);
      assert.equal(r.source.sha256, sha256, 'the whole file is hashed');
      assert.deepEqual(r.diagnostics.map((d) => d.line), [first + 1]);
      assert.match(r.diagnostics[0]!.message, new RegExp(`^is \\d+ MB: its records are read from its last [\\d.]+ MB \\(line ${first + 1} on\\); the lines before are counted, not read nor scanned for credentials \\(handoff secrets scans them\\)$`));
    }
  });

  it('a log no bigger than the window is read whole, without a word', async () => {
    const lines = records(50);
    const text = lines.join('');
    const abs = await write(text);
    const r = await readFeedback(abs, 'feedback_record.jsonl', { ...all, windowBytes: Buffer.byteLength(text) });
    assert.equal(r?.feedback?.kept.length, 50);
    assert.deepEqual(r?.diagnostics, []);
    const bigger = await readFeedback(abs, 'feedback_record.jsonl', { ...all, windowBytes: Buffer.byteLength(text) - 1 });
    assert.equal(bigger?.feedback?.kept.length, 49);
  });

  it('the window decides what is kept and resolved as a whole read of the same lines would', async () => {
    // A failure before the window is not listed; one inside it is resolved by a later pass inside it.
    const head = [line({ command: 'npm test', exit_code: 1 }), ...records(200)];
    const tail = [line({ command: 'pytest tests/a.py', exit_code: 1 }), line({ command: 'pytest tests/', exit_code: 0 }), line({ command: 'npm run lint', exit_code: 1 })];
    const abs = await write([...head, ...tail].join(''));
    const windowBytes = Buffer.byteLength(tail.join(''));
    const r = await readFeedback(abs, 'feedback_record.jsonl', { feedbackK: 5, maxCommands: 30, windowBytes });
    const alone = await readFeedback(await write(tail.join('')), 'feedback_record.jsonl', { feedbackK: 5, maxCommands: 30 });
    assert.deepEqual(r?.feedback?.kept.map((k) => [k.index - head.length, k.record]), alone?.feedback?.kept.map((k) => [k.index, k.record]));
    assert.deepEqual(r?.feedback?.resolvedBy, { [head.length]: head.length + 1 });
    assert.equal(r?.feedback?.lastTestRun?.index, head.length + 1);
    assert.deepEqual(Object.keys(r?.feedback?.lastRunOf ?? {}), ['pytest tests/a.py', 'pytest tests/']);
  });

  it('a key before the window is found only when the whole log is scanned (handoff secrets), at its own line', async () => {
    const key = ['ghp', fake(991, 36)].join('_');
    const lines = records(400);
    lines[7] = line({ command: ['./deploy.sh'], exit_code: 1, stderr_tail: `denied for ${key}` });
    const abs = await write(lines.join(''));
    const windowBytes = Buffer.byteLength(lines.slice(300).join(''));
    const packet = await readFeedback(abs, 'feedback_record.jsonl', { ...all, windowBytes });
    assert.equal(packet?.secrets, undefined);
    const whole = await readFeedback(abs, 'feedback_record.jsonl', { ...all, windowBytes, scanWhole: true });
    assert.deepEqual(whole?.secrets?.map((s) => s.line), [8]);
    assert.match(whole!.secrets![0]!.label, /GitHub/);
    assert.ok(!JSON.stringify(whole).includes(key.slice(4, 16)), 'the value is never kept');
    // The records are the window's either way; the message says the lines before were scanned.
    assert.deepEqual(whole?.feedback?.kept.map((k) => k.index), packet?.feedback?.kept.map((k) => k.index));
    assert.equal(whole?.feedback?.kept[0]?.index, 300);
    assert.equal(whole?.feedback?.total, 400);
    assert.deepEqual(whole?.diagnostics.map((d) => d.line), [301]);
    assert.match(whole!.diagnostics[0]!.message, /\(line 301 on\); the lines before are scanned for credentials only$/);
    // A key inside the window is found in both.
    const inWindow = [...lines.slice(0, 7), records(1)[0]!, ...lines.slice(8, 350), lines[7]!, ...lines.slice(351)];
    const abs2 = await write(inWindow.join(''));
    const r2 = await readFeedback(abs2, 'feedback_record.jsonl', { ...all, windowBytes });
    assert.deepEqual(r2?.secrets?.map((s) => s.line), [351]);
  });
});
