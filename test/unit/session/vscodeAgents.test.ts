import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { checkBudget } from '../../../src/core/context/budget';
import { ContextMeter } from '../../../src/core/context/meter';
import { ALL_SOURCES } from '../../../src/core/context/discovery';
import { modelInfo, normalizeModelId } from '../../../src/core/context/models';
import { agentStorageDirs, defaultGlobalStorageRoots, VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { sessionDisplayName } from '../../../src/core/session/model';
import { JsonDocFile } from '../../../src/core/session/taskJson';
import { VscodeTaskReader } from '../../../src/core/session/taskReader';
import { SessionTracker } from '../../../src/core/session/tracker';
import { makeTempDir } from '../helpers/fixtures';
import { placeTasks, TASK_IDS, taskDir } from './vscodeAgentFixture';

const only = (roots: string[]) => ({ globalStorageRoots: roots });

async function workspace(): Promise<string> {
  return fs.realpath(await makeTempDir('handoff-vscode-ws-'));
}

describe('Cline tasks (legacy bundle)', () => {
  it('native tool calls: commands with exit codes, the denial with its feedback, edits, the focus chain, requests and closing words', async () => {
    const folder = await workspace();
    const root = await placeTasks('cline-native', folder);
    const facts = await new VscodeTaskReader(taskDir(root, 'cline-native'), 'cline', { cwd: folder }).facts();
    assert.ok(facts);
    assert.equal(facts.agent, 'cline');
    assert.equal(facts.sessionId, TASK_IDS['cline-native']);
    assert.equal(sessionDisplayName(facts), 'Cline task 1764580000000');
    assert.equal(facts.firstRequest?.text, 'Add rate limiting to the /login endpoint');
    assert.equal(facts.latestRequest?.text, 'Do not run migrations here; the database is shared.');
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.unfinished]),
      [
        ['npm test', 1, null],
        ['npm test', 0, null],
      ],
    );
    assert.equal(facts.commands[0]?.agent_note, 'The login test fails because no limiter exists yet.');
    assert.match(facts.commands[0]?.stdout_tail ?? '', /1 failing/);
    assert.equal(facts.commands[0]?.tool, 'execute_command');
    assert.equal(facts.commandCount, 3);
    assert.equal(facts.rejectedCount, 1);
    assert.equal(facts.rejected[0]?.command, 'npm run migrate');
    assert.equal(facts.rejected[0]?.rejection_reason, 'Do not run migrations here; the database is shared.');
    // Only Cline's own successful writes: not the file it read, not the one the user edited.
    assert.deepEqual(facts.filesTouched, [path.join(folder, 'src', 'rateLimit.ts')]);
    assert.deepEqual(
      facts.todos?.map((t) => [t.content, t.status]),
      [
        ['Reproduce the failing login test', 'completed'],
        ['Add the limiter', 'completed'],
        ['Cover burst and window reset', 'pending'],
      ],
    );
    assert.equal(facts.todosSource?.tool, 'focus chain');
    assert.equal(facts.closing?.text, 'Rate limiting is in place for /login and the tests pass.\n\nStill open: tests for burst and window reset.');
    assert.equal(facts.endedOnClosing, true);
    assert.equal(facts.model, 'claude-sonnet-4-5-20250929');
    assert.equal(facts.cwd, folder);
  });

  it('its meter is the last request\'s in + out + cache writes + cache reads over the model\'s window', async () => {
    const folder = await workspace();
    const root = await placeTasks('cline-native', folder);
    const r = await new VscodeTaskReader(taskDir(root, 'cline-native'), 'cline').reading();
    assert.ok(r.known);
    // The last api_req_started still "Loading…" (no usage) is passed over: 1200 + 900 + 2000 + 20000.
    assert.equal(r.usedTokens, 24_100);
    assert.equal(r.windowTokens, 200_000);
    assert.equal(r.percent, 12); // 12.05 %, to one decimal
    // 200k window: Cline condenses at window − 40 000.
    assert.equal(r.compactAtPercent, 80);
    assert.equal(r.source, 'cline');
  });

  it('XML tool calls with "Command executed." and no code: unknown, never success; the chat\'s declined edit does not count', async () => {
    const folder = await workspace();
    const root = await placeTasks('cline-xml', folder);
    const facts = await new VscodeTaskReader(taskDir(root, 'cline-xml'), 'cline').facts();
    assert.ok(facts);
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.unfinished]),
      [
        ['npm test -- utils/date', null, 'no-result'],
        ['TZ=UTC npm test -- utils/date', null, 'no-result'],
      ],
    );
    assert.match(facts.commands[0]?.error ?? '', /no exit code \("Command executed\."\)/);
    assert.equal(facts.rejected[0]?.command, 'rm -rf node_modules && npm ci');
    assert.equal(facts.rejected[0]?.rejection_reason, 'No, keep node_modules; try TZ=UTC instead.');
    // No task index, no metadata: the folder from the environment details, the edit from the chat.
    assert.equal(facts.cwd, folder);
    assert.deepEqual(facts.filesTouched, [path.join(folder, 'package.json')]);
    assert.equal(facts.todos, null);
    assert.equal(facts.closing?.text, 'With TZ=UTC the test is stable. I pinned TZ in the test script.\n\nNext: check the CI image for its timezone.');
    assert.equal(facts.lastAssistantMessage, facts.closing?.text);
    const r = await new VscodeTaskReader(taskDir(root, 'cline-xml'), 'cline').reading();
    assert.ok(r.known);
    assert.equal(r.usedTokens, 34_800);
    assert.equal(r.windowTokens, 128_000);
    assert.equal(r.percent, 27.2);
    assert.equal(r.compactAtPercent, 76.6);
    // urgeAt 0.8 is past Cline's condense point for a 128k model: a configuration problem.
    const check = checkBudget({ warnAt: 0.5, urgeAt: 0.8 }, r);
    assert.ok(check.ok);
    assert.equal(check.warnings.length, 1);
    assert.match(check.warnings[0] ?? '', /Cline's auto-compaction point \(76\.6 %\)/);
    assert.deepEqual((checkBudget({ warnAt: 0.5, urgeAt: 0.7 }, r) as { warnings: string[] }).warnings, []);
  });

  it('a model the table does not know gives an unknown reading that says so, and windowOverride settles it', async () => {
    const folder = await workspace();
    const root = await placeTasks('cline-xml', folder);
    const file = path.join(taskDir(root, 'cline-xml'), 'api_conversation_history.json');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).split('"gpt-4o"').join('"acme-coder-9"'));
    const r = await new VscodeTaskReader(taskDir(root, 'cline-xml'), 'cline').reading();
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, /"acme-coder-9" is not in Session Handoff's model table/);
    const o = await new VscodeTaskReader(taskDir(root, 'cline-xml'), 'cline').reading({ windowOverride: 100_000 });
    assert.ok(o.known && o.percent === 34.8);
  });
});

describe('Roo Code and Kilo Code tasks', () => {
  it('3.29.5+ with a condense event: the condensed token count over (window − max output); the condense is the compaction', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-condense', folder);
    const reader = new VscodeTaskReader(taskDir(root, 'roo-condense'), 'roo');
    const r = await reader.reading({ rooModel: 'claude-sonnet-4-5' });
    assert.ok(r.known);
    assert.equal(r.usedTokens, 42_000);
    // Claude with extended thinking and no reasoning budget: Roo reserves 8 192 output tokens.
    assert.equal(r.percent, 21.9);
    assert.equal(r.compactAtPercent, 89.6);
    assert.deepEqual(r.compaction, { at: new Date(1764570000000 + 12000).toISOString(), percent: 88.6 });
    // A later request: tokensIn is already the total input (cache included), plus the output.
    const file = path.join(taskDir(root, 'roo-condense'), 'ui_messages.json');
    const ui = JSON.parse(await fs.readFile(file, 'utf8')) as unknown[];
    ui.push({ ts: 1764570020000, type: 'say', say: 'api_req_started', text: JSON.stringify({ apiProtocol: 'anthropic', tokensIn: 50_000, tokensOut: 900, cacheWrites: 3_000, cacheReads: 40_000 }) });
    await fs.writeFile(file, JSON.stringify(ui));
    const later = await reader.reading({ rooModel: 'claude-sonnet-4-5' });
    assert.ok(later.known && later.usedTokens === 50_900);
    const none = await reader.reading();
    assert.equal(none.known, false);
    assert.match(none.known ? '' : none.reason, /Roo Code keeps its model in its own settings.*sessionHandoff\.context\.rooModel/);
  });

  it('3.29.5+ facts: exit codes from the result text, the todo list, Roo\'s edits, and no closing words after the user spoke', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-condense', folder);
    const facts = await new VscodeTaskReader(taskDir(root, 'roo-condense'), 'roo', { cwd: folder }).facts();
    assert.ok(facts);
    assert.equal(sessionDisplayName(facts), 'Roo Code task 019ad5c4-8e2a');
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.exit_code, c.cwd]),
      [
        ['npm run test:forms', 1, folder],
        ['npm run test:forms', 0, folder],
      ],
    );
    assert.deepEqual(
      facts.todos?.map((t) => [t.content, t.status]),
      [
        ['Find the old form usages', 'completed'],
        ['Port the settings form', 'in_progress'],
        ['Run the form tests', 'pending'],
      ],
    );
    assert.deepEqual(facts.filesTouched, [path.join(folder, 'src', 'settings', 'Form.tsx')]);
    assert.equal(facts.firstRequest?.text, 'Migrate the settings page to the new form library');
    // Pretty-printed file: each message's own line; a command's lines are those of the chat (facts.file).
    assert.equal(facts.firstRequest?.line, 2);
    assert.equal(facts.file, path.join(taskDir(root, 'roo-condense'), 'ui_messages.json'));
    assert.deepEqual(facts.commands.map((c) => [c.line, c.result_line]), [
      [20, 26],
      [56, 62],
    ]);
    assert.equal(facts.latestRequest?.text, 'Keep the old validation messages.');
    assert.equal(facts.closing, null);
    assert.equal(facts.endedOnClosing, false);
    // Condensed right after it, the request never got an answer: it is unanswered, at its own line.
    assert.deepEqual(facts.unanswered?.map((r) => [r.text, r.line]), [['Keep the old validation messages.', facts.latestRequest?.line]]);
  });

  it('before 3.29.5: an Anthropic tokensIn without the cache is summed with it; no exit code is unknown; the denial gets the user\'s words', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-legacy', folder);
    const reader = new VscodeTaskReader(taskDir(root, 'roo-legacy'), 'roo', { cwd: folder });
    const r = await reader.reading({ rooModel: 'anthropic/claude-3-5-sonnet-20241022' });
    assert.ok(r.known);
    assert.equal(r.usedTokens, 62_700);
    assert.equal(r.percent, 32.7);
    const facts = await reader.facts();
    assert.ok(facts);
    assert.deepEqual(facts.commands.map((c) => [c.command, c.exit_code, c.unfinished]), [['npm test -- reports', null, 'no-result']]);
    assert.match(facts.commands[0]?.error ?? '', /Roo Code recorded no exit code/);
    assert.equal(facts.rejected[0]?.command, 'npm run deploy:staging');
    assert.equal(facts.rejected[0]?.user_reply, 'Never deploy from a task.');
    assert.deepEqual(facts.filesTouched, [path.join(folder, 'src', 'reports', 'export.ts'), path.join(folder, 'src', 'reports', 'page.tsx')]);
    assert.equal(facts.closing?.text, 'The CSV export is added to the reports page.\n\nThe report tests still need a run against the real database.');
    assert.equal(facts.endedOnClosing, true);
  });

  it('Kilo Code\'s Roo-based tasks read the same, under its own name', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-legacy', folder, undefined, 'kilocode.kilo-code');
    const found = await new SessionTracker({ folder, claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none'), agents: ['kilo'], ...only([root]) }).read();
    assert.equal(found?.agent, 'kilo');
    assert.equal(sessionDisplayName(found ?? { agent: 'kilo', sessionId: '' }), 'Kilo Code task 6f1c2b3a');
    const roo = await new SessionTracker({ folder, claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none'), agents: ['roo'], ...only([root]) }).read();
    assert.equal(roo, null);
  });
});

describe('Zoo Code tasks (the Roo Code successor)', () => {
  it('are read like Roo Code\'s from their own extension folder, under their own name; Roo Code still reads its own', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-legacy', folder, undefined, 'zoocodeorganization.zoo-code');
    const opts = { folder, claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none'), ...only([root]) };
    const zoo = await new SessionTracker({ ...opts, agents: ['zoo'] }).read();
    assert.equal(zoo?.agent, 'zoo');
    assert.equal(sessionDisplayName(zoo ?? { agent: 'zoo', sessionId: '' }), 'Zoo Code task 6f1c2b3a');
    assert.deepEqual(zoo?.commands.map((c) => c.exit_code), [null]);
    assert.equal(await new SessionTracker({ ...opts, agents: ['roo'] }).read(), null);
    const rooRoot = await placeTasks('roo-legacy', folder);
    assert.equal((await new SessionTracker({ ...opts, ...only([rooRoot]), agents: ['roo', 'zoo'] }).read())?.agent, 'roo');
    assert.deepEqual(agentStorageDirs('zoo', { zooDir: '/data/zoo', globalStorageRoots: ['/gs'] }), [path.resolve('/data/zoo'), path.join('/gs', 'zoocodeorganization.zoo-code')]);
    // A task Zoo imported from Roo is in both folders: one session, the copy written last.
    await placeTasks('roo-legacy', folder, rooRoot, 'zoocodeorganization.zoo-code');
    const later = new Date(Date.now() + 60_000);
    await fs.utimes(path.join(taskDir(rooRoot, 'roo-legacy', 'zoocodeorganization.zoo-code'), 'ui_messages.json'), later, later);
    const both = await new VscodeTaskDiscovery(folder, only([rooRoot])).find(['roo', 'zoo']);
    assert.deepEqual(both.map((c) => [c.source, c.sessionId]), [['zoo', TASK_IDS['roo-legacy']]]);
  });

  it('its meter reads as Roo\'s, named Zoo Code', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-condense', folder, undefined, 'zoocodeorganization.zoo-code');
    const meter = new ContextMeter({ folder, claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none'), sources: ALL_SOURCES, rooModel: 'claude-sonnet-4-5', ...only([root]) });
    const r = await meter.read();
    assert.ok(r.current.known);
    assert.equal(r.current.source, 'zoo');
    assert.equal(r.current.percent, 21.9);
    assert.ok(meter.places().some((p) => p.startsWith('Zoo Code: ') && p.includes(path.join(root, 'zoocodeorganization.zoo-code', 'tasks'))));
  });
});

describe('which task is the folder\'s session', () => {
  it('the newest task of this folder: a newer task of another folder never leaks in', async () => {
    const folder = await workspace();
    const root = await placeTasks('cline-native', folder);
    const found = await new VscodeTaskDiscovery(folder, only([root])).find(['cline']);
    assert.deepEqual(found.map((c) => c.sessionId), [TASK_IDS['cline-native']]);
    // The other folder's task is newer, and its own folder gets it.
    const other = await new VscodeTaskDiscovery('/elsewhere/billing', only([root])).find(['cline']);
    assert.deepEqual(other.map((c) => c.sessionId), ['1764580500000']);
    // A sibling whose name starts with the folder's is another folder.
    assert.deepEqual(await new VscodeTaskDiscovery(`${folder}-2`, only([root])).find(['cline']), []);
    const roo = await placeTasks('roo-condense', folder, root);
    const both = await new VscodeTaskDiscovery(folder, only([roo])).find(['cline', 'roo']);
    assert.deepEqual(both.map((c) => c.source).sort(), ['cline', 'roo']);
  });

  it('a task unchanged for weeks is still the folder\'s session; only an explicit taskDays limits the age', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-legacy', folder);
    const later = () => new Date(Date.now() + 30 * 86_400_000);
    assert.equal((await new VscodeTaskDiscovery(folder, only([root])).find(['roo'])).length, 1);
    assert.equal((await new VscodeTaskDiscovery(folder, only([root]), later).find(['roo'])).length, 1);
    assert.equal((await new VscodeTaskDiscovery(folder, { ...only([root]), taskDays: 7 }, later).find(['roo'])).length, 0);
  });

  it('without the task index, Roo\'s own history_item.json ties a task to its folder', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-condense', folder);
    await fs.writeFile(path.join(root, 'rooveterinaryinc.roo-cline', 'tasks', '_index.json'), '{"version":1,"entries":[{"id":');
    const found = await new VscodeTaskDiscovery(folder, only([root])).find(['roo']);
    assert.deepEqual(found.map((c) => c.sessionId), [TASK_IDS['roo-condense']]);
  });

  it('the meter and the CLI\'s one-shot read find the task among all sources', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-condense', folder);
    const meter = new ContextMeter({ folder, claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none'), sources: ALL_SOURCES, rooModel: 'claude-sonnet-4-5', ...only([root]) });
    const r = await meter.read();
    assert.ok(r.current.known);
    assert.equal(r.current.source, 'roo');
    assert.equal(r.current.percent, 21.9);
    assert.ok(meter.places().some((p) => p.startsWith('Roo Code: ') && p.includes(path.join(root, 'rooveterinaryinc.roo-cline', 'tasks'))));
  });

  it('looks in every editor variant\'s global storage, per OS, and the remote server\'s', () => {
    const linux = defaultGlobalStorageRoots('linux', '/home/u', {});
    assert.ok(linux.includes('/home/u/.config/Code/User/globalStorage'));
    assert.ok(linux.includes('/home/u/.config/Code - Insiders/User/globalStorage'));
    assert.ok(linux.includes('/home/u/.config/VSCodium/User/globalStorage'));
    assert.ok(linux.includes('/home/u/.config/Cursor/User/globalStorage'));
    assert.ok(linux.includes('/home/u/.config/Windsurf/User/globalStorage'));
    assert.ok(linux.includes('/home/u/.vscode-server/data/User/globalStorage'));
    assert.ok(defaultGlobalStorageRoots('darwin', '/Users/u', {}).includes('/Users/u/Library/Application Support/Code/User/globalStorage'));
    assert.ok(defaultGlobalStorageRoots('win32', 'C:\\Users\\u', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }).includes('C:\\Users\\u\\AppData\\Roaming\\Code\\User\\globalStorage'));
    const dirs = agentStorageDirs('roo', { rooDir: '/custom/roo', globalStorageRoots: ['/gs'], extraGlobalStorageRoots: ['/own'] });
    assert.deepEqual(dirs, [path.resolve('/custom/roo'), path.resolve('/gs/rooveterinaryinc.roo-cline'), path.resolve('/own/rooveterinaryinc.roo-cline')]);
  });
});

describe('task files rewritten whole', () => {
  it('a half-written file is read again on its next change, never reported on the first try; bytes that stay broken are, located', async () => {
    const dir = await makeTempDir('handoff-json-');
    const file = path.join(dir, 'ui_messages.json');
    let now = Date.now();
    const doc = new JsonDocFile(file, { now: () => now, settleMs: 5_000 });
    await fs.writeFile(file, '[{"ts":1,"type":"say","say":"text","text":"hello"}]');
    assert.equal(((await doc.read()).value as unknown[]).length, 1);
    await fs.writeFile(file, '[{"ts":1,"type":"say","say":"text","text":"hello"},{"ts":2,"ty');
    const torn = await doc.read();
    assert.equal(torn.pending, true);
    assert.equal(torn.problem, null);
    assert.equal((torn.value as unknown[]).length, 1, 'the last valid version stands');
    assert.equal((await doc.read()).problem, null, 'not yet settled');
    now += 10_000;
    const broken = await doc.read();
    assert.match(broken.problem ?? '', /ui_messages\.json: not valid JSON \(line 1: /);
    await fs.writeFile(file, '[{"ts":1,"type":"say","say":"text","text":"hello"},{"ts":2,"type":"say","say":"text","text":"again"}]');
    const fixed = await doc.read();
    assert.equal(fixed.problem, null);
    assert.equal((fixed.value as unknown[]).length, 2);
  });

  it('bytes nobody wrote for a while are broken, not half-written: the second look reports them (the CLI\'s one-shot read too)', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-legacy', folder);
    const file = path.join(taskDir(root, 'roo-legacy'), 'ui_messages.json');
    await fs.writeFile(file, '[{"ts":1,"type":"say","say":"text","text":"hello"},');
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(file, old, old);
    const doc = new JsonDocFile(file);
    assert.equal((await doc.read()).problem, null, 'never on the first look');
    assert.match((await doc.read()).problem ?? '', /not valid JSON/);
    const r = await new VscodeTaskReader(taskDir(root, 'roo-legacy'), 'roo').reading({ rooModel: 'claude-3-5-sonnet' }, true);
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, /ui_messages\.json: not valid JSON \(line 1: /);
  });

  it('a task caught half-written on its first read gives no facts and no corruption report, then its facts once complete', async () => {
    const folder = await workspace();
    const root = await placeTasks('roo-legacy', folder);
    const file = path.join(taskDir(root, 'roo-legacy'), 'ui_messages.json');
    const whole = await fs.readFile(file, 'utf8');
    await fs.writeFile(file, whole.slice(0, whole.length / 2));
    const tracker = new SessionTracker({ folder, claudeConfigDir: path.join(root, 'none'), codexHome: path.join(root, 'none'), agents: ['roo'], ...only([root]) });
    assert.equal(await tracker.read(), null);
    const meter = new ContextMeter({ folder, sources: ['roo'], rooModel: 'claude-3-5-sonnet', ...only([root]) });
    const r = await meter.read();
    assert.equal(r.current.known, false);
    assert.match(r.current.known ? '' : r.current.reason, /is being written; reading it again on its next change/);
    await fs.writeFile(file, whole);
    assert.equal((await tracker.read())?.sessionId, TASK_IDS['roo-legacy']);
    assert.ok((await meter.read()).current.known);
  });
});

describe('the model table', () => {
  it('knows a model by its id with provider prefix, date or variant, and says nothing of one it does not know', () => {
    assert.equal(normalizeModelId('anthropic/claude-sonnet-4-5-20250929'), 'claude-sonnet-4-5');
    assert.equal(normalizeModelId('us.anthropic.claude-3-7-sonnet-20250219-v1:0'), 'claude-3-7-sonnet');
    assert.equal(normalizeModelId('claude-opus-4-1@20250805'), 'claude-opus-4-1');
    assert.equal(modelInfo('claude-opus-4-1-20250805')?.maxTokens, 32_000);
    assert.equal(modelInfo('claude-sonnet-4-5:thinking')?.hybridReasoning, true);
    assert.equal(modelInfo('claude-sonnet-4-5[1m]')?.contextWindow, 1_000_000);
    assert.equal(modelInfo('gpt-4o-mini')?.contextWindow, 128_000);
    assert.equal(modelInfo('gpt-4.1')?.contextWindow, 1_047_576);
    assert.equal(modelInfo('o3x'), undefined);
    assert.equal(modelInfo('acme-coder-9'), undefined);
    assert.equal(modelInfo(''), undefined);
  });
});

describe("Cline's SDK bundle sessions", () => {
  it('are found by their manifest\'s workspace, give the request, commands and closing words, and no made-up meter', async () => {
    const folder = await workspace();
    const sessions = await makeTempDir('handoff-cline-sdk-');
    const id = 'sess_01';
    const dir = path.join(sessions, id);
    await fs.mkdir(dir, { recursive: true });
    const t = Date.now() - 60_000;
    await fs.writeFile(path.join(dir, `${id}.json`), JSON.stringify({ version: 1, session_id: id, source: 'vscode', pid: 1, started_at: new Date(t).toISOString(), status: 'running', interactive: true, provider: 'anthropic', model: 'claude-sonnet-4-5', cwd: folder, workspace_root: folder, prompt: 'Speed up the search index build' }));
    const mi = { id: 'claude-sonnet-4-5', provider: 'anthropic' };
    await fs.writeFile(path.join(dir, `${id}.messages.json`), JSON.stringify([
      { role: 'user', content: [{ type: 'text', text: 'Speed up the search index build' }], ts: t },
      { role: 'assistant', content: [{ type: 'text', text: 'Timing the build first.' }, { type: 'tool_use', id: 'tu1', name: 'execute_command', input: { command: 'npm run build:index' } }], ts: t + 1000, modelInfo: mi, metrics: { inputTokens: 9000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, cost: 0.01 } },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: "[execute_command for 'npm run build:index'] Result:\nCommand failed with exit code 2.\nOutput:\nout of memory" }], ts: t + 2000 },
      { role: 'assistant', content: [{ type: 'text', text: 'The build runs out of memory; streaming the documents would fix it.' }], ts: t + 3000, modelInfo: mi },
    ]));
    const tracker = new SessionTracker({ folder, claudeConfigDir: path.join(sessions, 'none'), codexHome: path.join(sessions, 'none'), agents: ['cline'], globalStorageRoots: [], clineSessionsDir: sessions });
    const facts = await tracker.read();
    assert.ok(facts);
    assert.equal(facts.agent, 'cline');
    assert.equal(facts.sessionId, id);
    assert.equal(facts.firstRequest?.text, 'Speed up the search index build');
    assert.equal(facts.userRequests.length, 1, 'the first message repeats the prompt');
    assert.deepEqual(facts.commands.map((c) => [c.command, c.exit_code]), [['npm run build:index', 2]]);
    assert.equal(facts.closing?.text, 'The build runs out of memory; streaming the documents would fix it.');
    assert.equal(facts.model, 'claude-sonnet-4-5');
    // No documented rule for its bar: the meter shows no reading from it rather than a guess.
    const meter = await new ContextMeter({ folder, sources: ['cline'], globalStorageRoots: [], clineSessionsDir: sessions }).read();
    assert.deepEqual(meter.candidates, []);
    const other = await new SessionTracker({ folder: `${folder}-other`, agents: ['cline'], globalStorageRoots: [], clineSessionsDir: sessions, claudeConfigDir: path.join(sessions, 'none'), codexHome: path.join(sessions, 'none') }).read();
    assert.equal(other, null);
  });
});
