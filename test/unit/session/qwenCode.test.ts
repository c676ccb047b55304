import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { round1 } from '../../../src/core/context/claude';
import { sessionSearchOf } from '../../../src/core/context/discovery';
import { ContextMeter } from '../../../src/core/context/meter';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { sessionDisplayName } from '../../../src/core/session/model';
import { defaultQwenDir, qwenProjectName } from '../../../src/core/session/qwen';
import { SessionTracker } from '../../../src/core/session/tracker';
import { isTaskFile } from '../../../src/ui/state/watchPatterns';
import { fixturePath } from '../helpers/fixtures';
import { moreAgentsHome } from './moreAgentsFixture';

/** The shared Qwen Code store (@qwen-code/qwen-code 0.24.4, real files): what a correct reader gets, per its expected.json. */
interface Expected {
  session_id: string;
  cwd: string;
  cli_version: string;
  model: { id: string };
  context_window: { tokens: number };
  user_requests: string[];
  commands: { command: string; exit_code: number; call_id: string }[];
  files_touched: string[];
  todos: { content: string; status: string }[];
  closing_words: string;
  questions: string[];
  tokens: { context_used: number; context_percent: number };
}

const expected = JSON.parse(readFileSync(fixturePath('more-agents', 'qwen', 'expected.json'), 'utf8')) as Expected;
const SESSION = path.join('.qwen', 'projects', '-home-dev-src-slugkit', 'chats', `${expected.session_id}.jsonl`);
const TODOS = path.join('.qwen', 'todos', `${expected.session_id}.json`);

const none = (dir: string) => ({ claudeConfigDir: path.join(dir, 'none'), codexHome: path.join(dir, 'none'), globalStorageRoots: [] as string[], clineSessionsDir: path.join(dir, 'none'), kiloDb: path.join(dir, 'none', 'kilo.db'), opencodeDb: path.join(dir, 'none', 'opencode.db'), geminiDir: path.join(dir, 'none') });
const opts = (dir: string) => ({ ...none(dir), qwenDir: path.join(dir, '.qwen') });
const tracker = (dir: string, now?: () => Date) => new SessionTracker({ folder: expected.cwd, ...opts(dir), agents: ['qwen'], ...(now ? { now } : {}) });
const meter = (dir: string, o: { windowOverride?: number } = {}) => new ContextMeter({ folder: expected.cwd, ...opts(dir), sources: ['qwen'], ...o });

describe("Qwen Code's session log (the shared real store)", () => {
  it('finds the folder session by its project name and cwd, and reads it as Qwen Code: requests, commands with exit codes, edits, todos, closing words, the final exchange', async () => {
    const dir = await moreAgentsHome('qwen');
    // A folder whose name starts with this one's is another folder: its session is not this one's.
    const other = path.join(dir, '.qwen', 'projects', '-home-dev-src-slugkit-old', 'chats');
    await fs.mkdir(other, { recursive: true });
    await fs.writeFile(path.join(other, 'old.jsonl'), '{"uuid":"a","parentUuid":null,"sessionId":"old","timestamp":"2026-12-02T10:00:00.000Z","type":"user","cwd":"/home/dev/src/slugkit-old","message":{"role":"user","parts":[{"text":"hi"}]}}\n');
    const found = await new VscodeTaskDiscovery(expected.cwd, opts(dir)).find(['qwen']);
    assert.deepEqual(found.map((c) => [c.source, c.sessionId, c.cwd, c.file]), [['qwen', expected.session_id, expected.cwd, path.join(dir, SESSION)]]);
    const facts = await tracker(dir).read();
    assert.ok(facts);
    assert.equal(facts.agent, 'qwen');
    assert.equal(sessionDisplayName(facts), `Qwen Code session ${expected.session_id.slice(0, 8)}`);
    assert.deepEqual(facts.userRequests, expected.user_requests);
    // Exit 1 from a result with status "error"; both from resultDisplay.exitCode.
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.id]),
      expected.commands.map((c) => [c.command, c.exit_code, c.call_id]),
    );
    assert.match(facts.commands[0]?.stdout_tail ?? '', /AssertionError/);
    assert.deepEqual(facts.filesTouched, expected.files_touched.map((f) => path.join(expected.cwd, f)));
    assert.deepEqual(facts.edits?.map((e) => [e.file, e.beforeCommand]), [[path.join(expected.cwd, 'src/slug.js'), 1]]);
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected.todos.map((t) => ({ content: t.content, status: t.status })));
    assert.equal(facts.closing?.text, expected.closing_words);
    assert.equal(facts.endedOnClosing, true);
    assert.ok(expected.questions.every((q) => facts.closing?.text.includes(q)));
    assert.equal(facts.model, expected.model.id);
    assert.equal(facts.version, expected.cli_version);
    assert.deepEqual(facts.badLines, []);
    assert.equal(facts.unknownLines, undefined);
    const kinds = facts.exchange?.map((e) => e.kind) ?? [];
    assert.equal(kinds[0], 'human');
    assert.equal(kinds.filter((k) => k === 'result').length, 2);
  });

  it('the live todo list beside the log wins, and is read again when it changes', async () => {
    const dir = await moreAgentsHome('qwen');
    const t = tracker(dir);
    assert.equal((await t.read())?.todos?.filter((x) => x.status === 'completed').length, 3);
    const file = path.join(dir, TODOS);
    const live = JSON.parse(await fs.readFile(file, 'utf8')) as { todos: { status: string }[] };
    live.todos[3]!.status = 'completed';
    await fs.writeFile(file, JSON.stringify(live));
    assert.equal((await t.read())?.todos?.filter((x) => x.status === 'completed').length, 4);
  });

  it("the meter: the newest reply's promptTokenCount over the contextWindowSize it recorded; the setting wins; without either, unknown", async () => {
    const dir = await moreAgentsHome('qwen');
    const r = (await meter(dir).read()).current;
    assert.ok(r.known, JSON.stringify(r));
    assert.equal(r.source, 'qwen');
    assert.equal(r.sessionId, expected.session_id);
    assert.equal(r.usedTokens, expected.tokens.context_used);
    assert.equal(r.windowTokens, expected.context_window.tokens);
    assert.equal(r.percent, round1((expected.tokens.context_used / expected.context_window.tokens) * 100));
    assert.ok(Math.abs(r.percent - expected.tokens.context_percent) < 0.05);
    const set = (await meter(dir, { windowOverride: 128_000 }).read()).current;
    assert.ok(set.known);
    assert.equal(set.windowTokens, 128_000);
    const file = path.join(dir, SESSION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replaceAll(',"contextWindowSize":1000000', ''));
    const unknown = (await meter(dir).read()).current;
    assert.equal(unknown.known, false);
    assert.equal(unknown.known ? 0 : unknown.usedTokens, expected.tokens.context_used);
    assert.match(unknown.known ? '' : unknown.reason, /the model "qwen3-coder-plus" is not in Session Handoff's model table, and Qwen Code stores no window for it/);
  });

  it('a rewind: the records left on a dead branch are not read, only the parentUuid chain from the last record', async () => {
    const dir = await moreAgentsHome('qwen');
    const file = path.join(dir, SESSION);
    const text = await fs.readFile(file, 'utf8');
    const first = JSON.parse(text.split('\n')[0]!) as { uuid: string };
    await fs.writeFile(file, `${text}{"uuid":"r1","parentUuid":"${first.uuid}","sessionId":"${expected.session_id}","timestamp":"2026-12-01T21:54:00.000Z","type":"assistant","cwd":"${expected.cwd}","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"Starting over: which title should fail?"}]}}\n`);
    const facts = await tracker(dir).read();
    assert.deepEqual(facts?.commands, []);
    assert.equal(facts?.closing?.text, 'Starting over: which title should fail?');
  });

  it('a malformed line is located, a torn last line said, an unknown record kind counted and named', async () => {
    const dir = await moreAgentsHome('qwen');
    const file = path.join(dir, SESSION);
    const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
    const prev = JSON.parse(lines[lines.length - 1]!) as { uuid: string };
    lines.push(`{"uuid":"m1","parentUuid":"${prev.uuid}","sessionId":"${expected.session_id}","timestamp":"2026-12-01T21:53:07.000Z","type":"hologram","cwd":"${expected.cwd}"}`, 'not json');
    const n = lines.length;
    await fs.writeFile(file, `${lines.join('\n')}\n{"uuid":"m2","par`);
    const facts = await tracker(dir).read();
    assert.ok(facts);
    assert.deepEqual(facts.badLines, [n]);
    assert.deepEqual(facts.unknownLines, { count: 1, types: ['hologram'] });
    assert.deepEqual(facts.notRead, [{ file, message: `line ${n + 1} is not complete (the agent may be writing it); read up to line ${n}` }]);
    assert.deepEqual(facts.commands.map((c) => c.exit_code), [1, 0]);
  });

  it('a session file that is there but cannot be read is named, in the meter and in the search a refusal quotes', async () => {
    const dir = await moreAgentsHome('qwen');
    const file = path.join(dir, SESSION);
    await fs.writeFile(file, 'garbage\n');
    const r = (await meter(dir).read()).current;
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, new RegExp(`Qwen Code's ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} exists but could not be read: line 1 is not a Qwen Code record`));
    const search = await sessionSearchOf({ folder: expected.cwd, ...opts(dir) });
    assert.equal(search.problems?.length, 1);
  });

  it('a credential is found with its line, a session from three weeks ago is found, the watcher sees the log and the todo list', async () => {
    const dir = await moreAgentsHome('qwen');
    const file = path.join(dir, SESSION);
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}zZ9y8X`;
    const text = await fs.readFile(file, 'utf8');
    const last = JSON.parse(text.trimEnd().split('\n').pop()!) as { uuid: string };
    await fs.writeFile(file, `${text}{"uuid":"u9","parentUuid":"${last.uuid}","sessionId":"${expected.session_id}","timestamp":"2026-12-01T21:54:00.000Z","type":"user","cwd":"${expected.cwd}","message":{"role":"user","parts":[{"text":"the token is ${token}"}]}}\n`);
    const facts = await tracker(dir, () => new Date(Date.parse('2026-12-01T22:00:00Z') + 21 * 86_400_000)).read();
    assert.equal(facts?.sessionId, expected.session_id);
    assert.deepEqual(facts?.credentials?.map((c) => [c.lines, c.printedBy]), [[[text.split('\n').length], 'a user message']]);
    assert.deepEqual(await new VscodeTaskDiscovery(expected.cwd, opts(dir)).watchDirs(['qwen']), [path.join(dir, '.qwen', 'projects'), path.join(dir, '.qwen', 'todos')]);
    assert.ok(isTaskFile(path.join(dir, SESSION)));
    assert.ok(isTaskFile(path.join(dir, TODOS)));
  });

  it('where Qwen Code keeps its sessions, and its project folder name', () => {
    assert.equal(defaultQwenDir({}, '/home/u'), '/home/u/.qwen');
    assert.equal(defaultQwenDir({ QWEN_HOME: '/q' }, '/home/u'), '/q');
    assert.equal(defaultQwenDir({ QWEN_HOME: '/q', QWEN_RUNTIME_DIR: '/rt' }, '/home/u'), '/rt');
    assert.equal(qwenProjectName('/home/dev/src/slugkit', 'linux'), '-home-dev-src-slugkit');
    assert.equal(qwenProjectName('C:\\Users\\Dev\\app', 'win32'), 'c--users-dev-app');
  });
});
