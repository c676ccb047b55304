import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { decodeText, jsonErrorDetail, parseJsonLocated, zodMessage } from '../../../src/core/artifacts/readJson';
import { makeTempDir } from '../helpers/fixtures';

async function writeFiles(dir: string, files: Record<string, string | object>): Promise<string> {
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await fs.writeFile(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}
const workbench = async (files: Record<string, string | object>): Promise<string> => writeFiles(await makeTempDir('read-pins-'), files);
const opts = { feedbackK: 5, maxCommands: 30 };

/**
 * Runs `fn` with JSON.parse wording its errors as Node 22 and later do: a located message ends in
 * "at position N (line L column C)", lines counted at \n, \r\n and a lone \r.
 */
function withLineColumnWording<T>(fn: () => T): T {
  const parse = JSON.parse;
  JSON.parse = (text: string): unknown => {
    try {
      return parse(text);
    } catch (err) {
      const msg = (err as Error).message;
      const at = / at position (\d+)$/.exec(msg);
      if (!at) throw err;
      const lines = text.slice(0, Number(at[1])).split(/\r\n|\r|\n/);
      throw new SyntaxError(`${msg} (line ${lines.length} column ${lines[lines.length - 1]!.length + 1})`);
    }
  };
  try {
    return fn();
  } finally {
    JSON.parse = parse;
  }
}

const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e';

describe('decoding an artifact', () => {
  it('drops a leading byte-order mark, also one written twice, and keeps a U+FEFF inside the text', () => {
    assert.deepEqual(decodeText(Buffer.from('\uFEFF\uFEFF{"a":1}')), { ok: true, text: '{"a":1}' });
    assert.deepEqual(decodeText(Buffer.from('{"a":"x\uFEFFy"}')), { ok: true, text: '{"a":"x\uFEFFy"}' });
  });
});

describe('a JSON syntax error', () => {
  it('is named without its position, on the line of the position', () => {
    assert.deepEqual(parseJsonLocated('{\n  "a": 1,\n  oops\n}'), { ok: false, line: 3, message: 'invalid JSON: Expected double-quoted property name' });
    assert.deepEqual(parseJsonLocated(`{"a": 1}${'\n'.repeat(11)}x`), { ok: false, line: 12, message: 'invalid JSON: Unexpected non-whitespace character after JSON' });
    assert.deepEqual(parseJsonLocated('{\n"a": "x'), { ok: false, line: 2, message: 'invalid JSON: Unterminated string' });
  });

  it('leaves out the piece of the input the engine quotes, however it is cut', () => {
    const cases: Array<[string, string]> = [
      ['[1,]', "Unexpected token ']'"],
      ['nope nope', "Unexpected token 'o'"],
      [`API_TOKEN=${SECRET}`, "Unexpected token 'A'"],
      [`{"token": ${SECRET}}`, "Unexpected token 's'"],
      [`{"a": [1, 2, 3], "token": "${SECRET}", "b": tru}`, "Unexpected token '}'"],
    ];
    for (const [text, head] of cases) {
      assert.deepEqual(parseJsonLocated(text), { ok: false, line: undefined, message: `invalid JSON: ${head} (not valid JSON)` }, text);
    }
    // The engine's own short wording for the words String() gives non-strings quotes no user text.
    assert.deepEqual(parseJsonLocated('undefined'), { ok: false, line: undefined, message: 'invalid JSON: "undefined" is not valid JSON' });
    assert.deepEqual(parseJsonLocated(''), { ok: false, line: undefined, message: 'invalid JSON: Unexpected end of JSON input' });
  });

  it('is not located by words of the input that look like a position', () => {
    for (const [text, token] of [['line 99 column 1', 'l'], ['x at position 99', 'x'], ['\n\n\nx at position 1', 'x']] as const) {
      assert.deepEqual(parseJsonLocated(text), { ok: false, line: undefined, message: `invalid JSON: Unexpected token '${token}' (not valid JSON)` }, text);
    }
    assert.deepEqual(parseJsonLocated('\n\n\n[1 in JSON at position 0]x'), { ok: false, line: 4, message: "invalid JSON: Expected ',' or ']' after array element" });
  });

  it("takes the engine's line where it gives one (Node 22 and later) and still drops the location from the words", () => {
    withLineColumnWording(() => {
      assert.deepEqual(parseJsonLocated(`{\n${'\n'.repeat(10)}  "a": 1,     oops\n}`), { ok: false, line: 12, message: 'invalid JSON: Expected double-quoted property name' });
      // A lone CR ends a line for the engine (and for editors).
      assert.deepEqual(parseJsonLocated(`{${'\r'.repeat(12)}"a": 1}          x`), { ok: false, line: 13, message: 'invalid JSON: Unexpected non-whitespace character after JSON' });
      assert.deepEqual(parseJsonLocated('[1,]'), { ok: false, line: undefined, message: "invalid JSON: Unexpected token ']' (not valid JSON)" });
    });
  });
});

describe('a field that does not match its schema', () => {
  it('is named from the root even when the root is a list', () => {
    const r = z.array(z.object({ n: z.number() })).safeParse([{ n: 1 }, { n: 'two' }]);
    assert.ok(!r.success);
    assert.equal(zodMessage(r.error).message, 'field `[1].n`: Expected number, received string');
  });

  it("is located at the key of the list holding a bad element, and nowhere when the key is not in the text", () => {
    const Tags = z.object({ name: z.string(), tags: z.array(z.string()) });
    const text = '{\n  "name": "x",\n  "tags": [\n    "a",\n    2\n  ]\n}';
    const bad = Tags.safeParse(JSON.parse(text));
    assert.ok(!bad.success);
    assert.deepEqual(zodMessage(bad.error, text), { line: 3, message: 'field `tags[1]`: Expected string, received number' });
    const missingText = '{\n  "tags": []\n}';
    const missing = Tags.safeParse(JSON.parse(missingText));
    assert.ok(!missing.success);
    assert.deepEqual(zodMessage(missing.error, missingText), { line: undefined, message: 'field `name`: Required' });
  });
});

describe('loading a workbench: task ids and links', () => {
  it('finds the verdicts of a task id written with spaces around it', async () => {
    const dir = await workbench({
      'agent_state.json': { active_task_id: ' T-7 ' },
      'feature_list.json': { active: '\tF-2\n', features: [] },
      'outputs/verification/F-2.json': { passed: true },
      'outputs/review/T-7.json': { total: 8, verdict: 'pass' },
    });
    const s = await loadWorkbench(dir, opts);
    assert.equal(s.verification?.file, 'outputs/verification/F-2.json');
    assert.equal(s.review?.file, 'outputs/review/T-7.json');
  });

  it('does not read a verdict for a task id that is absent, nor for one that walks out of its folder', async () => {
    const absent = await workbench({
      'feature_list.json': { features: [] },
      'outputs/verification/null.json': { passed: true },
      'outputs/review/undefined.json': { total: 8, verdict: 'pass' },
    });
    const a = await loadWorkbench(absent, opts);
    assert.deepEqual([a.verification, a.review], [null, null]);
    for (const id of ['../secret', 'a/b', 'x/..', '/abs']) {
      const dir = await workbench({
        'agent_state.json': { active_task_id: id },
        'outputs/secret.json': { passed: true },
        'outputs/verification/a/b.json': { passed: true },
        'outputs/verification.json': { passed: true },
        'abs.json': { passed: true },
      });
      const s = await loadWorkbench(dir, opts);
      assert.equal(s.verification, null, id);
      assert.deepEqual(s.diagnostics, [], id);
    }
  });

  it('refuses an artifact that links outside the workbench, unless the given root holds its target', async () => {
    const top = await makeTempDir('read-pins-root-');
    const dir = path.join(top, 'workbench');
    await writeFiles(top, { 'elsewhere/agent_state.json': { active_task_id: 'T-1' }, 'workbench/feature_list.json': { features: [] } });
    await fs.symlink(path.join(top, 'elsewhere', 'agent_state.json'), path.join(dir, 'agent_state.json'));
    const contained = await loadWorkbench(dir, opts);
    assert.equal(contained.agentState, null);
    assert.deepEqual(contained.diagnostics, [{ file: 'agent_state.json', message: 'is a symbolic link that leads outside the workspace; not followed' }]);
    const wider = await loadWorkbench(dir, { ...opts, root: top });
    assert.equal(wider.agentState?.active_task_id, 'T-1');
    assert.deepEqual(wider.diagnostics, []);
  });

  it('watches the done_when commands of the board when no other command is asked for', async () => {
    const dir = await workbench({
      'feature_list.json': { features: [{ id: 'F-1', status: 'done', done_when: 'make verify' }] },
      'feedback_record.jsonl': ['make verify', 'make lint'].map((command) => JSON.stringify({ command, exit_code: 0 })).join('\n') + '\n',
    });
    const s = await loadWorkbench(dir, opts);
    assert.deepEqual(Object.keys(s.feedback!.lastRunOf), ['make verify']);
  });
});

describe('the words of a JSON error, for a message of the caller', () => {
  it('keeps the engine words, after the line where there is one', () => {
    const located = parseJsonLocated('{\n  "a": 1,\n}');
    assert.equal(located.ok, false);
    if (!located.ok) assert.equal(jsonErrorDetail(located), `line ${located.line}: ${located.message.slice('invalid JSON: '.length)}`);
    assert.equal(jsonErrorDetail({ message: "invalid JSON: Unexpected token '}'" }), "Unexpected token '}'");
    assert.equal(jsonErrorDetail({ line: 3, message: 'invalid JSON: Unexpected end of JSON input' }), 'line 3: Unexpected end of JSON input');
  });
});
