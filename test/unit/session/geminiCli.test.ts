import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { round1 } from '../../../src/core/context/claude';
import { sessionSearchOf } from '../../../src/core/context/discovery';
import { ContextMeter } from '../../../src/core/context/meter';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { defaultGeminiDir, geminiShellResult } from '../../../src/core/session/gemini';
import { sessionDisplayName } from '../../../src/core/session/model';
import { SessionTracker } from '../../../src/core/session/tracker';
import { isTaskFile } from '../../../src/ui/state/watchPatterns';
import { fixturePath } from '../helpers/fixtures';
import { moreAgentsHome } from './moreAgentsFixture';

/** The shared Gemini CLI store (@google/gemini-cli 0.61.0, real files): what a correct reader gets, per its expected.json. */
interface Expected {
  session_id: string;
  cwd: string;
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

const FIXTURE = fixturePath('more-agents', 'gemini');
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as Expected;
const SESSION = path.join('.gemini', 'tmp', 'slugkit', 'chats', 'session-2026-12-01T21-52-73004524.jsonl');

/** The fixture's HOME copied into a temporary one, writable (the fixture's files are read-only). */
const home = (): Promise<string> => moreAgentsHome('gemini');

const none = (dir: string) => ({ claudeConfigDir: path.join(dir, 'none'), codexHome: path.join(dir, 'none'), globalStorageRoots: [] as string[], clineSessionsDir: path.join(dir, 'none'), kiloDb: path.join(dir, 'none', 'kilo.db'), opencodeDb: path.join(dir, 'none', 'opencode.db') });
const tracker = (dir: string, now?: () => Date) => new SessionTracker({ folder: expected.cwd, ...none(dir), geminiDir: path.join(dir, '.gemini'), agents: ['gemini'], ...(now ? { now } : {}) });
const meter = (dir: string, o: { windowOverride?: number; now?: () => Date } = {}) => new ContextMeter({ folder: expected.cwd, ...none(dir), geminiDir: path.join(dir, '.gemini'), sources: ['gemini'], ...o });

describe("Gemini CLI's session log (the shared real store)", () => {
  it('finds the folder session through projects.json and reads it as Gemini CLI: requests, commands with exit codes, edits, todos, closing words, the final exchange', async () => {
    const dir = await home();
    const found = await new VscodeTaskDiscovery(expected.cwd, { ...none(dir), geminiDir: path.join(dir, '.gemini') }).find(['gemini']);
    assert.deepEqual(found.map((c) => [c.source, c.sessionId, c.cwd, c.file]), [['gemini', expected.session_id, expected.cwd, path.join(dir, SESSION)]]);
    // Another folder has none (the project root decides, not the folder's name).
    assert.deepEqual(await new VscodeTaskDiscovery('/home/dev/src/slugkit-old', { ...none(dir), geminiDir: path.join(dir, '.gemini') }).find(['gemini']), []);
    const facts = await tracker(dir).read();
    assert.ok(facts);
    assert.equal(facts.agent, 'gemini');
    assert.equal(sessionDisplayName(facts), `Gemini CLI session ${expected.session_id.slice(0, 8)}`);
    // The <session_context> preamble and the tool results are not requests.
    assert.deepEqual(facts.userRequests, expected.user_requests);
    // Exit 1 from the "Exit Code: 1" line; exit 0 where the shell tool writes none.
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.id]),
      expected.commands.map((c) => [c.command, c.exit_code, c.call_id]),
    );
    assert.match(facts.commands[0]?.stdout_tail ?? '', /AssertionError/);
    assert.doesNotMatch(facts.commands[1]?.stdout_tail ?? '', /Process Group PGID/);
    assert.deepEqual(facts.filesTouched, expected.files_touched.map((f) => path.join(expected.cwd, f)));
    // The edit comes between the failing run and the passing one.
    assert.deepEqual(facts.edits?.map((e) => [e.file, e.beforeCommand]), [[path.join(expected.cwd, 'src/slug.js'), 1]]);
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected.todos);
    assert.equal(facts.closing?.text, expected.closing_words);
    assert.equal(facts.endedOnClosing, true);
    assert.ok(expected.questions.every((q) => facts.closing?.text.includes(q)));
    assert.equal(facts.model, expected.model.id);
    assert.deepEqual(facts.badLines, []);
    assert.equal(facts.unknownLines, undefined);
    const kinds = facts.exchange?.map((e) => e.kind) ?? [];
    assert.equal(kinds[0], 'human');
    assert.equal(kinds.filter((k) => k === 'result').length, 2);
  });

  it("the meter: the newest reply's tokens.input against the model table's window, the setting's when set; an unknown model is unknown, never guessed", async () => {
    const dir = await home();
    const r = (await meter(dir).read()).current;
    assert.ok(r.known, JSON.stringify(r));
    assert.equal(r.source, 'gemini');
    assert.equal(r.sessionId, expected.session_id);
    assert.equal(r.model, expected.model.id);
    assert.equal(r.usedTokens, expected.tokens.context_used);
    assert.equal(r.windowTokens, expected.context_window.tokens);
    assert.equal(r.percent, round1((expected.tokens.context_used / expected.context_window.tokens) * 100));
    assert.ok(Math.abs(r.percent - expected.tokens.context_percent) < 0.05);
    // Gemini CLI compresses at model.compressionThreshold, 0.5 by default.
    assert.equal(r.compactAtPercent, 50);
    const set = (await meter(dir, { windowOverride: 200_000 }).read()).current;
    assert.ok(set.known);
    assert.equal(set.windowTokens, 200_000);
    const file = path.join(dir, SESSION);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replaceAll('"model":"gemini-2.5-flash"', '"model":"gemini-9-ultra"'));
    const unknown = (await meter(dir).read()).current;
    assert.equal(unknown.known, false);
    assert.equal(unknown.known ? 0 : unknown.usedTokens, expected.tokens.context_used);
    assert.match(unknown.known ? '' : unknown.reason, /the model "gemini-9-ultra" is not in Session Handoff's model table, and Gemini CLI stores no window for it/);
  });

  it('a malformed line is located, a torn last line said, an unknown record kind counted and named — the rest still read', async () => {
    const dir = await home();
    const file = path.join(dir, SESSION);
    const lines = (await fs.readFile(file, 'utf8')).split('\n');
    lines.splice(4, 0, '{"id":"x1","timestamp":"2026-12-01T21:52:32.500Z","type":"mystery","content":"?"}', 'not json at all');
    const whole = lines.join('\n').trimEnd();
    const n = whole.split('\n').length;
    await fs.writeFile(file, `${whole}\n{"id":"torn","type":"gem`);
    const facts = await tracker(dir).read();
    assert.ok(facts);
    assert.deepEqual(facts.badLines, [6]);
    assert.deepEqual(facts.unknownLines, { count: 1, types: ['mystery'] });
    assert.deepEqual(facts.notRead, [{ file, message: `line ${n + 1} is not complete (the agent may be writing it); read up to line ${n}` }]);
    assert.deepEqual(facts.commands.map((c) => c.exit_code), [1, 0]);
    const r = (await meter(dir).read()).current;
    assert.ok(r.known);
    assert.ok(r.warnings?.some((w) => w.includes(`${file}:6: not a JSON line`)), JSON.stringify(r.warnings));
  });

  it('a session file that is there but cannot be read is named, in the meter and in the search a refusal quotes', async () => {
    const dir = await home();
    const file = path.join(dir, SESSION);
    await fs.writeFile(file, '\u0000\u0001 not a Gemini CLI session\n');
    const r = (await meter(dir).read()).current;
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, new RegExp(`Gemini CLI's ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} exists but could not be read: line 1 is not the session metadata`));
    const search = await sessionSearchOf({ folder: expected.cwd, ...none(dir), geminiDir: path.join(dir, '.gemini') });
    assert.equal(search.problems?.length, 1);
    assert.match(search.problems?.[0] ?? '', /Gemini CLI's .* exists but could not be read/);
  });

  it('a credential in the log is found with its line (for handoff secrets), and a session from three weeks ago is still found', async () => {
    const dir = await home();
    const file = path.join(dir, SESSION);
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}zZ9y8X`;
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, `${text}{"id":"u2","timestamp":"2026-12-01T21:52:40.000Z","type":"user","content":[{"text":"use the token ${token} for the release"}]}\n`);
    const weeksLater = () => new Date(Date.parse('2026-12-01T22:00:00Z') + 21 * 86_400_000);
    const facts = await tracker(dir, weeksLater).read();
    assert.equal(facts?.sessionId, expected.session_id);
    const lineNo = text.split('\n').length;
    assert.deepEqual(facts?.credentials?.map((c) => [c.lines, c.printedBy]), [[[lineNo], 'a user message']]);
    assert.ok(!JSON.stringify(facts).includes(token), 'the token is never in the facts');
  });

  it("the editor's watcher: the projects folder is watched and a session file is a task file", async () => {
    const dir = await home();
    const watched = await new VscodeTaskDiscovery(expected.cwd, { ...none(dir), geminiDir: path.join(dir, '.gemini') }).watchDirs(['gemini']);
    assert.deepEqual(watched, [path.join(dir, '.gemini', 'tmp')]);
    assert.ok(isTaskFile(path.join(dir, SESSION)));
    assert.ok(!isTaskFile(path.join(dir, '.gemini', 'tmp', 'slugkit', 'logs.json.bak')));
  });

  it('where Gemini CLI keeps its folder, and a shell result without the Output shape has no exit code', () => {
    assert.equal(defaultGeminiDir({}, '/home/u'), '/home/u/.gemini');
    assert.equal(defaultGeminiDir({ GEMINI_CLI_HOME: '/g' }, '/home/u'), '/g/.gemini');
    assert.deepEqual(geminiShellResult({ status: 'success', result: [{ functionResponse: { response: { output: 'something else' } } }] })?.exit, null);
    assert.equal(geminiShellResult({ status: 'success', result: [{ functionResponse: { response: { output: 'Output: x\nSignal: 9\nProcess Group PGID: 3' } } }] })?.unfinished, 'interrupted');
    assert.equal(geminiShellResult({ status: 'success', result: [{ functionResponse: { response: { output: 'Command moved to background (PID: 42).' } } }] })?.unfinished, 'background');
    assert.equal(geminiShellResult({ status: 'executing' }), null);
  });
});
