import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ContextMeter } from '../../../src/core/context/meter';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { defaultKiloDbPath, KiloDbReader, kiloBashResult } from '../../../src/core/session/kiloDb';
import { sessionDisplayName } from '../../../src/core/session/model';
import { applyWal } from '../../../src/core/session/sqliteSnapshot';
import { SessionTracker } from '../../../src/core/session/tracker';
import { findSecrets, scrubEntry } from '../../../src/core/workflow/secrets';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { fixturePath, makeTempDir, repoRoot } from '../helpers/fixtures';
import { KILO_T0, loadSqlJs, placeKiloDb } from './kiloDbFixture';

interface Expected {
  session_for_workspace: { id: string; not: string };
  requests: { text: string }[];
  commands: { command: string; call_id: string; exit_code: number; output_contains?: string }[];
  files_touched: string[];
  todos: { content: string; status: string }[];
  closing_message: { text: string };
  open_questions: string[];
  tokens_last_turn: { context_tokens: number };
  model: { modelID: string };
}

const expected = JSON.parse(readFileSync(fixturePath('vscode-agents', 'kilo-db', 'kilo-db.expected.json'), 'utf8')) as Expected;
/** An hour after the fixture's session: "now" for discovery's recent-days rule. */
const AT = () => new Date(KILO_T0 + 3_600_000);

async function workspace(): Promise<string> {
  return fs.realpath(await makeTempDir('handoff-kilo-ws-'));
}

const none = (dir: string) => ({ claudeConfigDir: path.join(dir, 'none'), codexHome: path.join(dir, 'none'), globalStorageRoots: [] as string[], clineSessionsDir: path.join(dir, 'none') });

describe("Kilo Code's kilo.db", () => {
  it('the folder session gives the expected requests, commands with exit codes, edits, todos and closing words', async () => {
    const folder = await workspace();
    const kiloDb = await placeKiloDb(folder);
    const found = await new VscodeTaskDiscovery(folder, { kiloDb, globalStorageRoots: [] }, AT).find(['kilo']);
    assert.deepEqual(found.map((c) => [c.sessionId, c.file, c.cwd]), [[expected.session_for_workspace.id, kiloDb, folder]]);
    const facts = await new SessionTracker({ folder, ...none(folder), kiloDb, agents: ['kilo'], now: AT }).read();
    assert.ok(facts);
    assert.equal(facts.agent, 'kilo');
    assert.equal(facts.sessionId, expected.session_for_workspace.id);
    assert.equal(sessionDisplayName(facts), 'Kilo Code task ses_3f9c2a7b1e04');
    assert.equal(facts.firstRequest?.text, expected.requests[0]?.text);
    assert.equal(facts.latestRequest?.text, expected.requests[0]?.text);
    assert.deepEqual(
      facts.commands.map((c) => [c.command, c.id, c.exit_code, c.tool]),
      expected.commands.map((c) => [c.command, c.call_id, c.exit_code, 'bash']),
    );
    assert.ok(facts.commands[0]?.stdout_tail?.includes(expected.commands[0]!.output_contains!));
    assert.deepEqual(facts.filesTouched, expected.files_touched.map((f) => path.join(folder, f)));
    assert.deepEqual(facts.todos?.map((t) => ({ content: t.content, status: t.status })), expected.todos.map((t) => ({ content: t.content, status: t.status })));
    assert.equal(facts.closing?.text, expected.closing_message.text);
    assert.equal(facts.endedOnClosing, true);
    assert.equal(facts.model, expected.model.modelID);
    assert.equal(facts.version, '7.2.14');
    // The other folder's session is in the same database, and never this folder's.
    const other = await new VscodeTaskDiscovery('/home/dev/other-project', { kiloDb, globalStorageRoots: [] }, AT).all(['kilo']);
    assert.deepEqual(other.map((c) => c.sessionId), [expected.session_for_workspace.not.split(' ')[0]]);
    assert.deepEqual(await new VscodeTaskDiscovery(`${folder}-2`, { kiloDb, globalStorageRoots: [] }, AT).find(['kilo']), []);
  });

  it('the meter reads the newest assistant message with output tokens, never a sum of the steps; the window comes from the table or the override', async () => {
    const folder = await workspace();
    const kiloDb = await placeKiloDb(folder);
    const meter = (windowOverride?: number) => new ContextMeter({ folder, ...none(folder), kiloDb, sources: ['kilo'], now: AT, ...(windowOverride ? { windowOverride } : {}) });
    const unknown = (await meter().read()).current;
    assert.equal(unknown.known, false);
    assert.match(unknown.known ? '' : unknown.reason, /anthropic\/claude-sonnet-5" is not in Session Handoff's model table/);
    const r = (await meter(200_000).read()).current;
    assert.ok(r.known);
    assert.equal(r.source, 'kilo');
    assert.equal(r.sessionId, expected.session_for_workspace.id);
    assert.equal(r.usedTokens, expected.tokens_last_turn.context_tokens);
    assert.equal(r.percent, 9.6);
    assert.equal(r.compactAtPercent, 84);
    assert.equal(r.file, kiloDb);
    assert.ok(meter().places().some((p) => p.startsWith('Kilo Code: ') && p.includes(kiloDb)));
  });

  it('the folder\'s session is the one with the newest message: a background sync moving time_updated, a child or an archived session never is', async () => {
    const folder = await workspace();
    const kiloDb = await placeKiloDb(folder);
    const SQL = await loadSqlJs();
    const db = new SQL.Database(readFileSync(kiloDb));
    const session = (id: string, parent: string | null, archived: number | null) =>
      db.run('INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated, time_archived) VALUES (?,?,?,?,?,?,?,?,?,?)', [id, '7d3f1c9a2b4e6f8a0c1d3e5f7a9b1c3d5e7f9a1b', parent, 's', folder, 't', '7.2.14', KILO_T0, KILO_T0, archived]);
    session('ses_newer00000000000000000000', null, null);
    session('ses_child00000000000000000000', expected.session_for_workspace.id, null);
    session('ses_archived000000000000000000', null, KILO_T0 + 60_000);
    for (const [id, at] of [['ses_newer00000000000000000000', 60_000], ['ses_child00000000000000000000', 90_000], ['ses_archived000000000000000000', 90_000]] as const) {
      db.run('INSERT INTO message VALUES (?,?,?,?,?)', [`msg_${id.slice(4)}`, id, KILO_T0 + at, KILO_T0 + at, '{"role":"user"}']);
    }
    // A sync bumps the fixture session's time_updated past all of them: its newest message is older.
    db.run('UPDATE session SET time_updated = ? WHERE id = ?', [KILO_T0 + 3_000_000, expected.session_for_workspace.id]);
    await fs.writeFile(kiloDb, db.export());
    db.close();
    const found = await new VscodeTaskDiscovery(folder, { kiloDb, globalStorageRoots: [] }, AT).all(['kilo']);
    assert.deepEqual(found.map((c) => c.sessionId), ['ses_newer00000000000000000000', expected.session_for_workspace.id]);
  });

  it('a bash part killed or failed has no exit code and says why', () => {
    const timeout = kiloBashResult({ status: 'completed', output: 'partial\n<shell_metadata>\nterminated command after exceeding timeout 120000 ms\n</shell_metadata>', metadata: { exit: null } });
    assert.deepEqual([timeout.exit, timeout.unfinished], [null, 'timeout']);
    assert.match(timeout.error ?? '', /exceeding timeout 120000 ms/);
    const aborted = kiloBashResult({ status: 'completed', output: '<shell_metadata>User aborted the command</shell_metadata>', metadata: { exit: null } });
    assert.deepEqual([aborted.exit, aborted.unfinished, aborted.error], [null, 'interrupted', 'User aborted the command']);
    const denied = kiloBashResult({ status: 'error', error: 'The user rejected permission to use this tool' });
    assert.deepEqual([denied.exit, denied.unfinished, denied.error], [null, 'error', 'The user rejected permission to use this tool']);
    assert.equal(kiloBashResult({ status: 'running' }).unfinished, 'running');
  });

  it('is found where Kilo keeps it: $KILO_DB, else $XDG_DATA_HOME/kilo, else ~/.local/share/kilo on every OS', () => {
    assert.equal(defaultKiloDbPath({ KILO_DB: '/x/k.db' }, '/home/u'), '/x/k.db');
    assert.equal(defaultKiloDbPath({ KILO_DB: ':memory:', XDG_DATA_HOME: '/data' }, '/home/u'), path.join('/data', 'kilo', 'kilo.db'));
    assert.equal(defaultKiloDbPath({}, '/home/u'), path.join('/home/u', '.local', 'share', 'kilo', 'kilo.db'));
  });

  it('handoff secrets lists a credential in the database and says plainly that it does not scrub a database', async () => {
    const folder = await workspace();
    const kiloDb = await placeKiloDb(folder);
    const SQL = await loadSqlJs();
    const db = new SQL.Database(readFileSync(kiloDb));
    const key = ['sk', 'live', '51Hq8ZrT2vLx9Kp4Wn8Hc1Ab3DmQ7sYt'].join('_');
    db.run("UPDATE part SET data = replace(data, '1 failed (1)', ?) WHERE id = 'prt_3f9c2a7b0005Aa000000000005'", [`1 failed (1)\\nSTRIPE_KEY=${key}`]);
    await fs.writeFile(kiloDb, db.export());
    db.close();
    const report = await findSecrets({ workspaceDir: folder, options: DEFAULT_OPTIONS, claudeConfigDir: path.join(folder, 'none'), codexHome: path.join(folder, 'none'), tasks: { kiloDb, globalStorageRoots: [] } });
    const entry = report.sessions.find((s) => s.file === kiloDb);
    assert.ok(entry, 'the database is listed among the sessions read');
    assert.equal(entry.credentials, 1);
    assert.equal(entry.agent, 'kilo');
    const risk = report.risks.find((r) => /Stripe/i.test(r.detail));
    assert.match(risk?.detail ?? '', /`npm test -- src\/export` printed a Stripe live key \(STRIPE_KEY\) into Kilo Code task ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4/);
    assert.match(risk?.detail ?? '', /delete the session in Kilo Code \(its database is not scrubbed\)/);
    assert.ok(!JSON.stringify(report).includes(key));
    const before = await fs.readFile(kiloDb);
    const outcome = await scrubEntry(entry, { force: true });
    assert.equal(outcome.kind, 'refused');
    assert.match(outcome.kind === 'refused' ? outcome.reason : '', /SQLite database.*not scrubbed/);
    assert.deepEqual(await fs.readFile(kiloDb), before);
  });
});

describe('kilo.db in WAL mode (a live session)', () => {
  const WAL = path.join(repoRoot(), 'test', 'fixtures', 'vscode-agents', 'kilo-wal');
  const FOLDER = '/projects/kilo-wal-demo';
  const SES = 'ses_40a1b2c3d4e5Wa1Lm0De2Xy3Zq';

  async function place(wal: Buffer | null): Promise<string> {
    const dir = await makeTempDir('handoff-kilo-wal-');
    await fs.copyFile(path.join(WAL, 'kilo.db'), path.join(dir, 'kilo.db'));
    if (wal) await fs.writeFile(path.join(dir, 'kilo.db-wal'), wal);
    return path.join(dir, 'kilo.db');
  }
  const walBytes = () => readFileSync(path.join(WAL, 'kilo.db-wal'));
  const commands = async (file: string) => (await new KiloDbReader(file, SES).facts())?.commands.map((c) => [c.command, c.exit_code]);

  it('the newest rows written only to kilo.db-wal are read (the main file alone is stale)', async () => {
    const file = await place(walBytes());
    const facts = await new KiloDbReader(file, SES).facts();
    assert.deepEqual(facts?.commands.map((c) => [c.command, c.exit_code]), [['npm test', 1], ['npm test', 0]]);
    assert.equal(facts?.closing?.text, 'The cron job is renamed to invoice-sweep and the tests pass.');
    const r = await new KiloDbReader(file, SES).reading();
    assert.ok(r.known);
    assert.equal(r.usedTokens, 12500);
    assert.equal(r.model, 'claude-sonnet-4-5');
    // Without its WAL, the same database shows only the first step.
    assert.deepEqual(await commands(await place(null)), [['npm test', 1]]);
    const found = await new VscodeTaskDiscovery(FOLDER, { kiloDb: file, globalStorageRoots: [] }, () => new Date(1795600000000 + 60_000)).find(['kilo']);
    assert.deepEqual(found.map((c) => c.sessionId), [SES]);
  });

  it('a transaction still being written (its last frame cut short) is left out; the committed one before it is read', async () => {
    const wal = walBytes();
    const file = await place(wal.subarray(0, wal.length - 100));
    const facts = await new KiloDbReader(file, SES).facts();
    assert.deepEqual(facts?.commands.map((c) => [c.command, c.exit_code]), [['npm test', 1], ['npm test', 0]]);
    assert.equal(facts?.closing, null);
    const r = await new KiloDbReader(file, SES).reading();
    assert.ok(r.known);
    assert.equal(r.usedTokens, 12000);
    assert.ok(r.warnings?.some((w) => w.includes('a transaction still being written in the -wal file was left out')));
  });

  it('a frame whose checksum fails ends the WAL there: nothing after it is applied', async () => {
    const wal = Buffer.from(walBytes());
    // A byte of the first frame's page: the chain breaks at frame 1, so no transaction of the WAL counts.
    wal[32 + 24 + 10] = (wal[32 + 24 + 10] as number) ^ 0xff;
    assert.deepEqual(await commands(await place(wal)), [['npm test', 1]]);
    const main = readFileSync(path.join(WAL, 'kilo.db'));
    const applied = applyWal(main, wal);
    assert.equal(applied.frames, 0);
    assert.deepEqual(Buffer.from(applied.image), main);
    // Salts of another WAL generation (left over after a checkpoint restart) are not this one's frames.
    const stale = Buffer.from(walBytes());
    stale.writeUInt32BE(stale.readUInt32BE(16) ^ 1, 16);
    assert.equal(applyWal(main, stale).frames, 0);
  });

  it('reads the files without changing them or leaving anything beside them', async () => {
    const file = await place(walBytes());
    const before = await fs.readdir(path.dirname(file));
    const [db, wal] = await Promise.all([fs.readFile(file), fs.readFile(`${file}-wal`)]);
    await new KiloDbReader(file, SES).facts();
    assert.deepEqual(await fs.readdir(path.dirname(file)), before);
    assert.deepEqual(await fs.readFile(file), db);
    assert.deepEqual(await fs.readFile(`${file}-wal`), wal);
  });

  it('a file that is not a database gives a located reason, not a crash', async () => {
    const dir = await makeTempDir('handoff-kilo-bad-');
    const file = path.join(dir, 'kilo.db');
    await fs.writeFile(file, 'not a database at all'.repeat(100));
    const r = await new KiloDbReader(file, SES).reading();
    assert.equal(r.known, false);
    assert.match(r.known ? '' : r.reason, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a readable SQLite database`));
    assert.deepEqual(await new VscodeTaskDiscovery(FOLDER, { kiloDb: file, globalStorageRoots: [] }).find(['kilo']), []);
  });
});
