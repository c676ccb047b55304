import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ContextMeter } from '../../../src/core/context/meter';
import { sessionSearchOf } from '../../../src/core/context/discovery';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { sessionDisplayName } from '../../../src/core/session/model';
import { defaultOpencodeDbPath, parseJsonc } from '../../../src/core/session/opencodeConfig';
import { SessionTracker } from '../../../src/core/session/tracker';
import { fixturePath, makeTempDir } from '../helpers/fixtures';

/** The shared OpenCode store (opencode-ai 1.18.33, real files): what a correct reader gets, per its expected.json. */
interface Expected {
  session_id: string;
  cwd: string;
  model: { provider: string; id: string };
  context_window: { tokens: number };
  user_requests: string[];
  commands: { command: string; exit_code: number; call_id: string; output_first_line: string }[];
  edits: { path: string; additions: number; deletions: number }[];
  todos: { content: string; status: string }[];
  closing_words: string;
  questions: string[];
  tokens: { context_used: number; context_percent: number };
}

const FIXTURE = fixturePath('more-agents', 'opencode');
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as Expected;

/** The fixture's HOME copied into a temporary one (the store read-only in the fixture; `dot-gitignore` left as it is). */
async function home(): Promise<string> {
  const dir = await fs.realpath(await makeTempDir('handoff-opencode-home-'));
  await fs.cp(path.join(FIXTURE, 'home'), dir, { recursive: true });
  // The fixture's files are read-only: the copy must be writable for the temp folder to be cleaned.
  const chmod = async (p: string): Promise<void> => {
    const st = await fs.stat(p);
    await fs.chmod(p, st.isDirectory() ? 0o755 : 0o644);
    if (st.isDirectory()) for (const n of await fs.readdir(p)) await chmod(path.join(p, n));
  };
  await chmod(dir);
  return dir;
}

const none = (dir: string) => ({ claudeConfigDir: path.join(dir, 'none'), codexHome: path.join(dir, 'none'), globalStorageRoots: [] as string[], clineSessionsDir: path.join(dir, 'none'), kiloDb: path.join(dir, 'none', 'kilo.db') });

/** Runs `f` with OpenCode's config folder in the temporary home (the window is in its opencode.json). */
async function withConfigHome<T>(dir: string, f: () => Promise<T>): Promise<T> {
  const before = process.env['XDG_CONFIG_HOME'];
  process.env['XDG_CONFIG_HOME'] = path.join(dir, '.config');
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env['XDG_CONFIG_HOME'];
    else process.env['XDG_CONFIG_HOME'] = before;
  }
}

describe("OpenCode's opencode.db (the shared real store)", () => {
  it('reads the folder session as OpenCode: requests, commands with exit codes, edits, todos, closing words, the final exchange', async () => {
    const dir = await home();
    const opencodeDb = path.join(dir, '.local', 'share', 'opencode', 'opencode.db');
    const walBefore = await fs.stat(`${opencodeDb}-wal`);
    const found = await new VscodeTaskDiscovery(expected.cwd, { opencodeDb, globalStorageRoots: [] }).find(['opencode']);
    assert.deepEqual(found.map((c) => [c.source, c.sessionId, c.cwd]), [['opencode', expected.session_id, expected.cwd]]);
    const facts = await new SessionTracker({ folder: expected.cwd, ...none(dir), opencodeDb, agents: ['opencode'] }).read();
    assert.ok(facts);
    assert.equal(facts.agent, 'opencode');
    assert.equal(sessionDisplayName(facts), `OpenCode session ${expected.session_id.slice(0, 16)}`);
    assert.deepEqual(facts.userRequests, expected.user_requests);
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.id, c.stdout_tail?.split('\n')[0]]),
      expected.commands.map((c) => [c.command, c.exit_code, c.call_id, c.output_first_line]),
    );
    assert.deepEqual(facts.filesTouched, expected.edits.map((e) => path.join(expected.cwd, e.path)));
    // The edit comes between the failing run and the passing one.
    assert.deepEqual(facts.edits?.map((e) => [e.file, e.beforeCommand]), [[path.join(expected.cwd, 'src/slug.js'), 1]]);
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected.todos.map((t) => ({ content: t.content, status: t.status })));
    assert.equal(facts.closing?.text, expected.closing_words);
    assert.equal(facts.endedOnClosing, true);
    assert.ok(expected.questions.every((q) => facts.closing?.text.includes(q)));
    assert.equal(facts.model, expected.model.id);
    // The final exchange runs from the human's message to the closing words: both runs and their results in it.
    const kinds = facts.exchange?.map((e) => e.kind) ?? [];
    assert.equal(kinds[0], 'human');
    assert.equal(kinds.filter((k) => k === 'result').length, 2);
    // Read from a copy in memory: the WAL that holds every row is still there, unchanged.
    const walAfter = await fs.stat(`${opencodeDb}-wal`);
    assert.equal(walAfter.size, walBefore.size);
  });

  it("the meter: the newest step's prompt (input + cache) against the window opencode.json declares; unknown without it, never guessed", async () => {
    const dir = await home();
    const opencodeDb = path.join(dir, '.local', 'share', 'opencode', 'opencode.db');
    const meter = () => new ContextMeter({ folder: expected.cwd, ...none(dir), opencodeDb, sources: ['opencode'] });
    const r = await withConfigHome(dir, async () => (await meter().read()).current);
    assert.ok(r.known, JSON.stringify(r));
    assert.equal(r.source, 'opencode');
    assert.equal(r.sessionId, expected.session_id);
    assert.equal(r.usedTokens, expected.tokens.context_used);
    assert.equal(r.windowTokens, expected.context_window.tokens);
    assert.equal(r.percent, expected.tokens.context_percent);
    // OpenCode compacts at limit.context − limit.output.
    assert.equal(r.compactAtPercent, 87.5);
    // Without the config the window is not known, and the reason says where it would be.
    const unknown = await withConfigHome(path.join(dir, 'nowhere'), async () => (await meter().read()).current);
    assert.equal(unknown.known, false);
    assert.match(unknown.known ? '' : unknown.reason, /"qwen3-coder-30b" is not in Session Handoff's model table nor given a limit\.context in opencode\.json/);
  });

  it('a store that is there but cannot be read is named, in the meter and in the search a refusal quotes', async () => {
    const dir = await home();
    const opencodeDb = path.join(dir, '.local', 'share', 'opencode', 'opencode.db');
    await fs.writeFile(opencodeDb, 'not a database');
    await fs.rm(`${opencodeDb}-wal`);
    const r = (await new ContextMeter({ folder: expected.cwd, ...none(dir), opencodeDb, sources: ['opencode'] }).read()).current;
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, new RegExp(`OpenCode's ${opencodeDb.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} exists but could not be read`));
    const search = await sessionSearchOf({ folder: expected.cwd, ...none(dir), opencodeDb });
    assert.equal(search.problems?.length, 1);
    assert.match(search.problems?.[0] ?? '', /OpenCode's .* exists but could not be read/);
  });

  it('a session from three weeks ago is still found, by the meter the editor watches and by the one-shot read', async () => {
    const dir = await home();
    const opencodeDb = path.join(dir, '.local', 'share', 'opencode', 'opencode.db');
    const weeksLater = () => new Date(Date.parse('2026-12-01T22:00:00Z') + 21 * 86_400_000);
    const r = await withConfigHome(dir, async () => (await new ContextMeter({ folder: expected.cwd, ...none(dir), opencodeDb, sources: ['opencode'], now: weeksLater }).read()).current);
    assert.ok(r.known);
    assert.equal(r.sessionId, expected.session_id);
    const facts = await new SessionTracker({ folder: expected.cwd, ...none(dir), opencodeDb, agents: ['opencode'], now: weeksLater }).read();
    assert.equal(facts?.sessionId, expected.session_id);
  });

  it("where OpenCode keeps its database, and its JSONC config", () => {
    assert.equal(defaultOpencodeDbPath({}, '/home/u'), '/home/u/.local/share/opencode/opencode.db');
    assert.equal(defaultOpencodeDbPath({ XDG_DATA_HOME: '/x' }, '/home/u'), '/x/opencode/opencode.db');
    assert.equal(defaultOpencodeDbPath({ OPENCODE_DB: '/db/oc.db' }, '/home/u'), '/db/oc.db');
    assert.equal(defaultOpencodeDbPath({ OPENCODE_DB: 'beta.db' }, '/home/u'), '/home/u/.local/share/opencode/beta.db');
    assert.deepEqual(parseJsonc('{ // a comment\n "a": "x//y", /* b */ "b": [1,],\n}'), { a: 'x//y', b: [1] });
  });
});
