import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { round1 } from '../../../src/core/context/claude';
import { sessionSearchOf } from '../../../src/core/context/discovery';
import { ContextMeter } from '../../../src/core/context/meter';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { copilotShellResult, defaultCopilotHome, yamlValue } from '../../../src/core/session/copilotCli';
import { sessionDisplayName } from '../../../src/core/session/model';
import { SessionTracker } from '../../../src/core/session/tracker';
import { isTaskFile } from '../../../src/ui/state/watchPatterns';
import { fixturePath } from '../helpers/fixtures';
import { moreAgentsHome } from './moreAgentsFixture';

/** The shared Copilot CLI store (@github/copilot 1.0.102, real files): what a correct reader gets, per its expected.json. */
interface Expected {
  session_id: string;
  cwd: string;
  cli_version: string;
  model: { id: string };
  context_window: { tokens: number };
  user_requests: string[];
  commands: { command: string; exit_code: number; call_id: string }[];
  files_touched: string[];
  todos: { title: string; status: string }[];
  closing_words: string;
  questions: string[];
  tokens: { context_used: number; context_percent: number };
}

const expected = JSON.parse(readFileSync(fixturePath('more-agents', 'copilot', 'expected.json'), 'utf8')) as Expected;
const STATE = path.join('.copilot', 'session-state', expected.session_id);
const EVENTS = path.join(STATE, 'events.jsonl');

const none = (dir: string) => ({ claudeConfigDir: path.join(dir, 'none'), codexHome: path.join(dir, 'none'), globalStorageRoots: [] as string[], clineSessionsDir: path.join(dir, 'none'), kiloDb: path.join(dir, 'none', 'kilo.db'), opencodeDb: path.join(dir, 'none', 'opencode.db'), geminiDir: path.join(dir, 'none'), qwenDir: path.join(dir, 'none') });
const opts = (dir: string) => ({ ...none(dir), copilotHome: path.join(dir, '.copilot') });
const tracker = (dir: string, now?: () => Date) => new SessionTracker({ folder: expected.cwd, ...opts(dir), agents: ['copilot-cli'], ...(now ? { now } : {}) });
const meter = (dir: string, o: { windowOverride?: number } = {}) => new ContextMeter({ folder: expected.cwd, ...opts(dir), sources: ['copilot-cli'], ...o });
const STATUS: Record<string, string> = { done: 'completed', pending: 'pending', in_progress: 'in_progress' };

describe("Copilot CLI's session state (the shared real store)", () => {
  it('finds the folder session by workspace.yaml and reads it as Copilot CLI: requests, commands with exit codes, edits, the todo list in session.db, closing words, the final exchange', async () => {
    const dir = await moreAgentsHome('copilot');
    const found = await new VscodeTaskDiscovery(expected.cwd, opts(dir)).find(['copilot-cli']);
    assert.deepEqual(found.map((c) => [c.source, c.sessionId, c.cwd, c.file]), [['copilot-cli', expected.session_id, expected.cwd, path.join(dir, EVENTS)]]);
    const dbBefore = await fs.readFile(path.join(dir, STATE, 'session.db'));
    const facts = await tracker(dir).read();
    assert.ok(facts);
    assert.equal(facts.agent, 'copilot-cli');
    assert.equal(sessionDisplayName(facts), `Copilot CLI session ${expected.session_id.slice(0, 8)}`);
    // As typed: not the transformedContent with its <current_datetime> prefix.
    assert.deepEqual(facts.userRequests, expected.user_requests);
    // Exit 1 from shellExecution.exitCode although the call's success stays true.
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.id]),
      expected.commands.map((c) => [c.command, c.exit_code, c.call_id]),
    );
    assert.match(facts.commands[0]?.stdout_tail ?? '', /AssertionError/);
    assert.doesNotMatch(facts.commands[1]?.stdout_tail ?? '', /shellId/);
    assert.deepEqual(facts.filesTouched, expected.files_touched.map((f) => path.join(expected.cwd, f)));
    assert.deepEqual(facts.edits?.map((e) => [e.file, e.beforeCommand]), [[path.join(expected.cwd, 'src/slug.js'), 1]]);
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected.todos.map((t) => ({ content: t.title, status: STATUS[t.status] })));
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
    // session.db is read from a copy in memory, never written.
    assert.deepEqual(await fs.readFile(path.join(dir, STATE, 'session.db')), dbBefore);
  });

  it("the meter: the newest usage_record's inputTokens over the maxPromptTokens Copilot assumed (not the model table's 1 047 576); the setting wins", async () => {
    const dir = await moreAgentsHome('copilot');
    const r = (await meter(dir).read()).current;
    assert.ok(r.known, JSON.stringify(r));
    assert.equal(r.source, 'copilot-cli');
    assert.equal(r.sessionId, expected.session_id);
    assert.equal(r.model, expected.model.id);
    assert.equal(r.usedTokens, expected.tokens.context_used);
    assert.equal(r.windowTokens, expected.context_window.tokens);
    assert.equal(r.percent, round1((expected.tokens.context_used / expected.context_window.tokens) * 100));
    assert.ok(Math.abs(r.percent - expected.tokens.context_percent) < 0.05);
    const set = (await meter(dir, { windowOverride: 128_000 }).read()).current;
    assert.ok(set.known);
    assert.equal(set.windowTokens, 128_000);
    // Without the recorded window, a model the table does not know is unknown.
    const file = path.join(dir, EVENTS);
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replaceAll('"maxPromptTokens": 64000', '"x": 0').replaceAll('"maxPromptTokens":64000', '"x":0').replaceAll('"model": "gpt-4.1"', '"model": "byok-local"').replaceAll('"model":"gpt-4.1"', '"model":"byok-local"'));
    const unknown = (await meter(dir).read()).current;
    assert.equal(unknown.known, false, JSON.stringify(unknown));
    assert.match(unknown.known ? '' : unknown.reason, /the model "byok-local" is not in Session Handoff's model table, and Copilot CLI stores no window for it/);
  });

  it('a malformed line is located, a torn last line said, an unknown event type counted and named; a broken session.db is said and the rest read', async () => {
    const dir = await moreAgentsHome('copilot');
    const file = path.join(dir, EVENTS);
    const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
    lines.push('{"type":"session.hologram","data":{},"id":"h1","timestamp":"2026-12-01T21:53:31.000Z","parentId":null}', '{not json');
    const n = lines.length;
    await fs.writeFile(file, `${lines.join('\n')}\n{"type":"user.mess`);
    const db = path.join(dir, STATE, 'session.db');
    await fs.writeFile(db, 'not a database');
    const facts = await tracker(dir).read();
    assert.ok(facts);
    assert.deepEqual(facts.badLines, [n]);
    assert.deepEqual(facts.unknownLines, { count: 1, types: ['session.hologram'] });
    assert.equal(facts.notRead?.[0]?.message, `line ${n + 1} is not complete (the agent may be writing it); read up to line ${n}`);
    assert.match(facts.notRead?.[1]?.message ?? '', /is not a readable SQLite database.*; its todo list is not read/);
    assert.equal(facts.notRead?.[1]?.file, db);
    assert.deepEqual(facts.commands.map((c) => c.exit_code), [1, 0]);
    assert.equal(facts.todos, null);
  });

  it('a session that is there but names no folder is named, in the meter and in the search a refusal quotes', async () => {
    const dir = await moreAgentsHome('copilot');
    await fs.rm(path.join(dir, STATE, 'workspace.yaml'));
    await fs.writeFile(path.join(dir, EVENTS), 'garbage\n');
    const r = (await meter(dir).read()).current;
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, /Copilot CLI's .*events\.jsonl exists but could not be read: it names no working folder/);
    const search = await sessionSearchOf({ folder: expected.cwd, ...opts(dir) });
    assert.equal(search.problems?.length, 1);
  });

  it('without workspace.yaml the folder comes from session.start; a session from three weeks ago is found; a credential is found with its line; the watcher sees the files', async () => {
    const dir = await moreAgentsHome('copilot');
    await fs.rm(path.join(dir, STATE, 'workspace.yaml'));
    const file = path.join(dir, EVENTS);
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}zZ9y8X`;
    const text = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, `${text}{"type":"user.message","data":{"content":"the token is ${token}"},"id":"u9","timestamp":"2026-12-01T21:54:00.000Z","parentId":null}\n`);
    const facts = await tracker(dir, () => new Date(Date.parse('2026-12-01T22:00:00Z') + 21 * 86_400_000)).read();
    assert.equal(facts?.sessionId, expected.session_id);
    assert.equal(facts?.cwd, expected.cwd);
    assert.deepEqual(facts?.credentials?.map((c) => [c.lines, c.printedBy]), [[[text.split('\n').length], 'a user message']]);
    assert.deepEqual(await new VscodeTaskDiscovery(expected.cwd, opts(dir)).watchDirs(['copilot-cli']), [path.join(dir, '.copilot', 'session-state')]);
    for (const f of ['events.jsonl', 'workspace.yaml', 'session.db']) assert.ok(isTaskFile(path.join(dir, STATE, f)), f);
  });

  it('where Copilot CLI keeps its sessions, workspace.yaml values, and a shell result with no exit code', () => {
    assert.equal(defaultCopilotHome({}, '/home/u'), '/home/u/.copilot');
    assert.equal(defaultCopilotHome({ COPILOT_HOME: '/c' }, '/home/u'), '/c');
    assert.equal(yamlValue('id: x\ncwd: /a/b c\nname: n: m\n', 'cwd'), '/a/b c');
    assert.equal(yamlValue("cwd: 'C:\\Users\\o''k'\n", 'cwd'), "C:\\Users\\o'k");
    assert.equal(yamlValue('cwd: "/a\\"b"\n', 'cwd'), '/a"b');
    assert.equal(copilotShellResult({ success: true, result: { content: 'ok\n<shellId: 3 completed with exit code 2>' } }, false).exit, 2);
    assert.deepEqual(copilotShellResult({ success: true, result: { content: 'started' } }, false), { exit: null, unfinished: 'no-result', error: 'Copilot CLI recorded no exit code for this run', stdout: 'started' });
    assert.equal(copilotShellResult({ success: true, result: { content: '<shellId: 4>' } }, true).unfinished, 'background');
  });
});
