// Kilo Code database benchmark: the meter's reading from a kilo.db of 10 000 messages (the folder's
// session holds 8 000 of them, 30 000 parts in all) must take under 50 ms, from a fresh snapshot of the
// file: opening it, indexing its WAL, finding the folder's session and its newest usage.
// The packet's facts (every part of the session read) are timed too, without a target. The database is
// written by real SQLite (sql.js, a development dependency); the product reads it with its own reader.
// Then a kilo.db of 1 GiB through the built CLI (see bigDb). Exits non-zero when a target is missed.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { node24Bin } from '../../test/e2e/lib/paths.mjs';
import { builtCli, gitWorkspace, here, measuredCli, root, tempDir } from './lib.mjs';

const MESSAGES = 10_000;
const MINE = 8_000;
const RUNS = 9;
const TARGET_MS = 50;
const FOLDER = '/home/dev/bench';

const require = createRequire(import.meta.url);
const dir = tempDir('handoff-bench-kilo-');

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function writeDb(file) {
  const SQL = await require('sql.js')();
  const db = new SQL.Database();
  db.run(`CREATE TABLE session (id text PRIMARY KEY NOT NULL, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL,
    directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer)`);
  db.run('CREATE TABLE message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)');
  db.run('CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id)');
  db.run('CREATE TABLE part (id text PRIMARY KEY NOT NULL, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)');
  db.run('CREATE INDEX part_message_id_id_idx ON part (message_id, id)');
  db.run('CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL, priority text NOT NULL, position integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, PRIMARY KEY (session_id, position))');
  const t0 = Date.now() - MESSAGES * 1000;
  const sessions = Array.from({ length: 10 }, (_, i) => `ses_${String(i).padStart(12, '0')}Bench00000000`);
  db.run('BEGIN');
  sessions.forEach((s, i) => db.run('INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?,?,?)', [s, 'p', null, null, 'slug', i === 0 ? FOLDER : `/home/dev/other-${i}`, 'Bench', '7.2.14', t0, t0, null]));
  const output = `${'line of test output '.repeat(25)}\n`;
  let parts = 0;
  for (let n = 0; n < MESSAGES; n++) {
    const session = n % 5 === 4 ? sessions[1 + (n % 9)] : sessions[0];
    const id = `msg_${String(n).padStart(12, '0')}Bench00000000`;
    const t = t0 + n * 1000;
    const user = n % 10 === 0;
    const tokens = { total: 20_000 + n, input: 500, output: 120, reasoning: 0, cache: { read: 19_000 + n, write: 380 } };
    const data = user
      ? { role: 'user', time: { created: t }, agent: 'code', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' } }
      : { role: 'assistant', time: { created: t, completed: t + 800 }, parentID: 'msg_x', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', mode: 'code', agent: 'code', path: { cwd: FOLDER, root: FOLDER }, cost: 0.01, tokens, finish: n % 10 === 9 ? 'stop' : 'tool-calls' };
    db.run('INSERT INTO message VALUES (?,?,?,?,?)', [id, session, t, t, JSON.stringify(data)]);
    const part = (k, d) => db.run('INSERT INTO part VALUES (?,?,?,?,?,?)', [`prt_${String(n).padStart(12, '0')}${k}Bench0000000`, id, session, t + k, t + k, JSON.stringify(d)]);
    if (user) {
      part(0, { type: 'text', text: `Request ${n}: fix the next failing export test and run the suite again.` });
      parts++;
      continue;
    }
    part(0, { type: 'step-start', snapshot: 'a'.repeat(40) });
    if (n % 10 === 9) part(1, { type: 'text', text: `Step ${n} is done; the export tests pass. Should I go on with the next one?` });
    else part(1, { type: 'tool', callID: `toolu_${n}`, tool: 'bash', state: { status: 'completed', input: { command: 'npm test -- src/export', description: 'Run the tests' }, output, title: 'Run the tests', metadata: { output, exit: n % 7 === 0 ? 1 : 0, description: 'Run the tests', truncated: false }, time: { start: t + 1, end: t + 500 } } });
    part(2, { type: 'step-finish', reason: 'tool-calls', cost: 0.01, tokens });
    parts += 3;
  }
  db.run('INSERT INTO todo VALUES (?,?,?,?,?,?,?)', [sessions[0], 'Keep the export tests green', 'in_progress', 'high', 0, t0, t0]);
  db.run('COMMIT');
  fs.writeFileSync(file, db.export());
  db.close();
  return parts;
}

/**
 * A kilo.db of 1 GiB (HANDOFF_BENCH_KILO_MB), written by real SQLite (Node 24's node:sqlite, installed
 * for the test tiers), through the built `handoff status` and `handoff generate`: each within 2 s and
 * 200 MB. The database is read page by page where it lies, never copied into memory. Returns false when
 * a bound is missed or the session is not read.
 */
/** The folder's session in the big database (scripts/bench/kiloBigDb.cjs). */
const BIG_SESSION = `ses_${'0'.repeat(12)}BigDb000000000`;

function bigDb() {
  const mb = Number(process.env.HANDOFF_BENCH_KILO_MB ?? 1024);
  if (!fs.existsSync(node24Bin)) {
    console.log(`kilo.db of ${mb} MB: skipped (Node 24 is not installed: node scripts/e2e-install.mjs)`);
    return true;
  }
  const ws = gitWorkspace(path.join(dir, 'big-ws'), { '.gitignore': 'outputs/\n' });
  const db = path.join(dir, 'big-kilo.db');
  const made = spawnSync(node24Bin, ['--no-warnings', path.join(here, 'kiloBigDb.cjs'), db, String(mb), ws], { encoding: 'utf8' });
  if (made.status !== 0) {
    console.error(`bench: the big kilo.db could not be written: ${made.stderr.slice(0, 2000)}`);
    return false;
  }
  const size = fs.statSync(db).size;
  const home = path.join(dir, 'big-home');
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '', KILO_DB: db, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), HANDOFF_STATE_DIR: path.join(dir, 'big-state') };
  const cli = builtCli();
  let ok = true;
  console.log(`kilo.db of ${(size / 1048576).toFixed(0)} MB (the folder's session 4 000 messages through it, nine other sessions the rest):`);
  for (const args of [['status'], ['generate', '--allow-dirty', '--json']]) {
    const { r, seconds, mb: peak, cpu } = measuredCli(cli, [...args, '--dir', ws], env, dir);
    let read = r.status === 0 && /Kilo/.test(r.stdout);
    if (args[0] === 'generate') {
      try {
        read = r.status === 0 && JSON.parse(fs.readFileSync(JSON.parse(r.stdout).json, 'utf8')).session_id === BIG_SESSION;
      } catch {
        read = false;
      }
    }
    console.log(`  handoff ${args[0]}: ${seconds.toFixed(2)} s (CPU ${cpu.toFixed(2)} s), peak ${peak.toFixed(0)} MB, exit ${r.status}${read ? '' : ' (the Kilo Code session was not read!)'}`);
    if (seconds > 2 || peak >= 200 || !read) {
      console.error(`bench: MISSED on the big kilo.db: handoff ${args[0]} ${seconds.toFixed(2)} s, ${peak.toFixed(0)} MB (bounds 2 s, 200 MB)${read ? '' : `\n${r.stdout}${r.stderr}`.slice(0, 2000)}`);
      ok = false;
    }
  }
  return ok;
}

try {
  const bundle = path.join(dir, 'kilo.cjs');
  // The shipped reader, bundled from src/.
  const contents = "export * from './src/core/session/kiloDb'; export { openSqliteSnapshot } from './src/core/session/sqliteSnapshot';";
  await esbuild.build({ stdin: { contents, resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'warning' });
  const { kiloReading, kiloSessionFacts, kiloSessions, openSqliteSnapshot } = require(bundle);
  const file = path.join(dir, 'kilo.db');
  const parts = await writeDb(file);
  const size = fs.statSync(file).size;
  const times = [];
  const cpus = [];
  const factTimes = [];
  let reading;
  let facts;
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    // A fresh snapshot every run: what the meter pays when the agent has written since the last look.
    const snap = await openSqliteSnapshot(file);
    const session = kiloSessions(snap.db).find((s) => s.directory === FOLDER);
    reading = kiloReading(snap.db, session.id, file, 200_000);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
    const t1 = performance.now();
    facts = kiloSessionFacts(snap.db, session, file);
    factTimes.push(performance.now() - t1);
    await snap.close();
  }
  if (!reading?.known || reading.usedTokens !== 20_000 + (MESSAGES - 2)) throw new Error(`wrong reading: ${JSON.stringify(reading)}`);
  console.log(`kilo.db of ${MESSAGES} messages and ${parts} parts (${(size / 1048576).toFixed(1)} MB), the folder's session ${MINE} of them:`);
  console.log(`  meter reading from a fresh snapshot (open, WAL, sessions, newest usage): ${median(times).toFixed(1)} ms median of ${RUNS} (CPU ${median(cpus).toFixed(1)} ms)`);
  console.log(`  packet facts of the session: ${median(factTimes).toFixed(0)} ms median (${facts.commandCount} commands, ${facts.filesTouched.length} files, task list of ${facts.todos?.length ?? 0})`);
  const busy = os.loadavg()[0] > os.cpus().length;
  const value = busy ? median(cpus) : median(times);
  const basis = busy ? 'CPU time (machine overloaded)' : 'wall time';
  console.log(value < TARGET_MS ? `target met on ${basis} (< ${TARGET_MS} ms)` : `MISSED: reading ${value.toFixed(1)} ms ≥ ${TARGET_MS} ms (${basis})`);
  process.exitCode = value < TARGET_MS ? 0 : 1;
  if (!bigDb()) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
