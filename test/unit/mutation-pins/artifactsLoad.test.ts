import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { decodeText, lineAt, parseJsonLocated, readJsonArtifact, zodMessage } from '../../../src/core/artifacts/readJson';
import { makeTempDir } from '../helpers/fixtures';

async function workbench(files: Record<string, string | object>): Promise<string> {
  const dir = await makeTempDir('load-pins-');
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fs.writeFile(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const Shape = z.object({ name: z.string(), items: z.array(z.object({ n: z.number() })).default([]) });

describe('reading JSON artifacts', () => {
  it('lineAt counts lines up to an offset, not past the end', () => {
    assert.equal(lineAt('a\nb\nc', 0), 1);
    assert.equal(lineAt('a\nb\nc', 2), 2);
    assert.equal(lineAt('a\nb\nc', 1), 1);
    assert.equal(lineAt('a\n\n', 99), 3);
  });

  it('decodes UTF-8 without its BOM and refuses NULs and invalid bytes', () => {
    assert.deepEqual(decodeText(Buffer.from('\uFEFF{"a":1}')), { ok: true, text: '{"a":1}' });
    assert.deepEqual(decodeText(Buffer.from([0x7b, 0x00])), { ok: false, message: 'binary content (NUL bytes), not JSON text' });
    assert.deepEqual(decodeText(Buffer.from([0x7b, 0xff, 0xfe])), { ok: false, message: 'binary content (invalid UTF-8), not JSON text' });
  });

  it('locates a JSON syntax error on its line', () => {
    const r = parseJsonLocated('{\n  "a": 1,\n  oops\n}');
    assert.ok(!r.ok);
    assert.equal(r.line, 3);
    assert.match(r.message, /^invalid JSON: /);
    assert.ok(!/position|line \d+ column/.test(r.message), r.message);
    assert.deepEqual(parseJsonLocated('[1]'), { ok: true, value: [1] });
  });

  it('names the failing field as a path, counts further issues, and finds the key\'s line', () => {
    const text = '{\n  "name": "x",\n  "items": [\n    {"n": "one"}\n  ]\n}';
    const r = Shape.safeParse(JSON.parse(text));
    assert.ok(!r.success);
    assert.deepEqual(zodMessage(r.error, text), { line: 4, message: 'field `items[0].n`: Expected number, received string' });
    const two = Shape.safeParse({ items: 3 });
    assert.ok(!two.success);
    assert.equal(zodMessage(two.error).message, 'field `name`: Required (+1 more)');
    assert.equal(zodMessage(two.error).line, undefined);
    const root = Shape.safeParse(5);
    assert.ok(!root.success);
    assert.match(zodMessage(root.error, '5').message, /^field `\(root\)`: /);
    assert.equal(zodMessage(root.error, '5').line, undefined);
    assert.deepEqual(zodMessage(new z.ZodError([])), { message: 'does not match the expected shape' });
  });

  it('reads a valid artifact with its hash; says why a bad one was skipped', async () => {
    const dir = await workbench({ 'ok.json': '{"name": "x"}', 'empty.json': '  \n', 'bad.json': '{"name": 1}', 'sub/x.json': '{}' });
    const ok = await readJsonArtifact(path.join(dir, 'ok.json'), 'ok.json', Shape);
    assert.ok(ok.kind === 'ok');
    assert.deepEqual([ok.value, ok.source], [{ name: 'x', items: [] }, { file: 'ok.json', sha256: sha('{"name": "x"}') }]);
    const empty = await readJsonArtifact(path.join(dir, 'empty.json'), 'empty.json', Shape);
    assert.deepEqual(empty, { kind: 'bad', source: { file: 'empty.json', sha256: sha('  \n') }, diagnostic: { file: 'empty.json', line: 1, message: 'is empty' } });
    const bad = await readJsonArtifact(path.join(dir, 'bad.json'), 'bad.json', Shape);
    assert.ok(bad.kind === 'bad' && bad.diagnostic.line === 1 && /^field `name`/.test(bad.diagnostic.message));
    assert.deepEqual(await readJsonArtifact(path.join(dir, 'none.json'), 'none.json', Shape), { kind: 'missing' });
    assert.deepEqual(await readJsonArtifact(path.join(dir, 'sub'), 'sub', Shape), { kind: 'bad', diagnostic: { file: 'sub', message: 'is a folder, not a regular file; not read' } });
    const notDir = await readJsonArtifact(path.join(dir, 'ok.json', 'x.json'), 'x.json', Shape);
    assert.equal(notDir.kind, 'bad');
  });

  it('skips a JSON artifact over 5 MB, saying its size', async () => {
    const dir = await workbench({ 'big.json': `"${'x'.repeat(5 * 1024 * 1024 + 100_000)}"`, 'limit.json': `"${'x'.repeat(5 * 1024 * 1024 - 2)}"` });
    const big = await readJsonArtifact(path.join(dir, 'big.json'), 'big.json', z.string());
    assert.deepEqual(big, { kind: 'bad', diagnostic: { file: 'big.json', message: 'is 5.1 MB, over the 5 MB limit for JSON artifacts; skipped' } });
    assert.equal((await readJsonArtifact(path.join(dir, 'limit.json'), 'limit.json', z.string())).kind, 'ok');
  });
});

describe('loading a workbench', () => {
  it('takes task_board.json when there is no feature_list.json, and reports a broken first candidate instead of skipping it', async () => {
    const board = { active: 'F-1', features: [{ id: 'F-1', status: 'in_progress' }] };
    const alt = await loadWorkbench(await workbench({ 'task_board.json': board }), { feedbackK: 5, maxCommands: 30 });
    assert.equal(alt.featureList?.file, 'task_board.json');
    const broken = await loadWorkbench(await workbench({ 'feature_list.json': '{', 'task_board.json': board }), { feedbackK: 5, maxCommands: 30 });
    assert.equal(broken.featureList, null);
    assert.deepEqual(broken.diagnostics.map((d) => d.file), ['feature_list.json']);
    assert.deepEqual(broken.sources.map((s) => s.file), ['feature_list.json']);
  });

  it("finds the verdicts under outputs/ by the active task id, only for ids that are safe file names", async () => {
    const dir = await workbench({
      'agent_state.json': { active_task_id: 'T-7' },
      'feature_list.json': { active: 'F-2', features: [] },
      'outputs/verification/F-2.json': { passed: false },
      'outputs/review/T-7.json': { total: 8, verdict: 'pass' },
    });
    const s = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 30 });
    assert.equal(s.verification?.file, 'outputs/verification/F-2.json');
    assert.equal(s.review?.file, 'outputs/review/T-7.json');
    assert.deepEqual(s.sources.map((x) => x.file), ['agent_state.json', 'feature_list.json', 'outputs/review/T-7.json', 'outputs/verification/F-2.json']);
    for (const id of ['..', '.', '../x', 'a/b', '']) {
      const unsafe = await workbench({ 'agent_state.json': { active_task_id: id }, 'outputs/verification/...json': { passed: false }, 'outputs/verification/..json': { passed: false } });
      assert.equal((await loadWorkbench(unsafe, { feedbackK: 5, maxCommands: 30 })).verification, null, id);
    }
  });

  it('watches the done_when commands of the board, and the ones asked for', async () => {
    const dir = await workbench({
      'feature_list.json': { features: [{ id: 'F-1', status: 'done', done_when: 'make verify' }, { id: 'F-2', status: 'todo' }] },
      'feedback_record.jsonl': ['make verify', 'make lint', 'make other'].map((command) => JSON.stringify({ command, exit_code: 0 })).join('\n'),
    });
    const s = await loadWorkbench(dir, { feedbackK: 1, maxCommands: 30, watchCommands: ['make lint'] });
    assert.deepEqual(Object.keys(s.feedback!.lastRunOf).sort(), ['make lint', 'make verify']);
    assert.equal(s.feedback!.kept.length, 1);
    assert.equal(s.dir, path.resolve(dir));
  });

  it('has no feedback when the log is missing, and keeps the diagnostics of a bad one', async () => {
    const none = await loadWorkbench(await workbench({}), { feedbackK: 5, maxCommands: 30 });
    assert.equal(none.feedback, null);
    assert.deepEqual(none.sources, []);
    const bad = await loadWorkbench(await workbench({ 'feedback_record.jsonl': 'nope\n' }), { feedbackK: 5, maxCommands: 30 });
    assert.equal(bad.diagnostics.length, 1);
    assert.equal(bad.diagnostics[0]?.file, 'feedback_record.jsonl');
    assert.deepEqual(bad.sources.map((x) => x.file), ['feedback_record.jsonl']);
  });
});
