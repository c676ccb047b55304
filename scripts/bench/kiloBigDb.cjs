// Writes a big kilo.db with real SQLite (Node 24's node:sqlite), for scripts/bench/kilo.mjs:
//   node24 kiloBigDb.cjs FILE MB FOLDER
// The folder's session: 4 000 messages of requests, test runs and usage, spread through the file; the
// rest of the size is nine other projects' sessions with long tool outputs (overflow pages).
'use strict';
const { DatabaseSync } = require('node:sqlite');

const [file, mbArg, folder] = process.argv.slice(2);
const target = Number(mbArg) * 1024 * 1024;
const db = new DatabaseSync(file);
db.exec(`CREATE TABLE session (id text PRIMARY KEY NOT NULL, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL,
  directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY NOT NULL, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL, priority text NOT NULL, position integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, PRIMARY KEY (session_id, position));`);
const sessions = Array.from({ length: 10 }, (_, i) => `ses_${String(i).padStart(12, '0')}BigDb000000000`);
const t0 = Date.now() - 3_600_000;
const addSession = db.prepare('INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?,?,?)');
const addMessage = db.prepare('INSERT INTO message VALUES (?,?,?,?,?)');
const addPart = db.prepare('INSERT INTO part VALUES (?,?,?,?,?,?)');
db.exec('BEGIN');
sessions.forEach((s, i) => addSession.run(s, 'p', null, null, 'slug', i === 0 ? folder : `/home/dev/other-${i}`, 'Bench', '7.2.14', t0, t0 + i, null));
const output = `${'line of test output '.repeat(25)}\n`;
const long = `${'A long tool output of another project, pasted logs and code. '.repeat(600)}\n`;
const MINE = 4_000;
let written = 0;
let mine = 0;
for (let n = 0; mine < MINE || written < target; n++) {
  // The folder's messages are spread through the file: every fourth until there are enough.
  const own = mine < MINE && (n % 4 === 0 || written >= target);
  const session = own ? sessions[0] : sessions[1 + (n % 9)];
  const id = `msg_${String(n).padStart(12, '0')}BigDb000000000`;
  const t = t0 + n * 10;
  const user = own && mine % 10 === 0;
  const tokens = { total: 20_000 + mine, input: 500, output: 120, reasoning: 0, cache: { read: 19_000 + mine, write: 380 } };
  const data = user
    ? { role: 'user', time: { created: t }, agent: 'code', model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' } }
    : { role: 'assistant', time: { created: t, completed: t + 8 }, parentID: 'msg_x', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', mode: 'code', agent: 'code', path: { cwd: own ? folder : '/home/dev/other', root: '/' }, cost: 0.01, tokens, finish: 'tool-calls' };
  addMessage.run(id, session, t, t, JSON.stringify(data));
  const part = (k, d) => {
    const s = JSON.stringify(d);
    written += s.length + 200;
    addPart.run(`prt_${String(n).padStart(12, '0')}${k}BigDb00000000`, id, session, t + k, t + k, s);
  };
  if (own) mine++;
  if (user) {
    part(0, { type: 'text', text: `Request ${mine}: fix the next failing export test and run the suite again.` });
    continue;
  }
  const out = own ? output : long;
  part(1, { type: 'tool', callID: `toolu_${n}`, tool: 'bash', state: { status: 'completed', input: { command: 'npm test -- src/export', description: 'Run the tests' }, output: out, title: 'Run the tests', metadata: { output: out, exit: n % 7 === 0 ? 1 : 0 }, time: { start: t + 1, end: t + 5 } } });
  part(2, { type: 'step-finish', reason: 'tool-calls', cost: 0.01, tokens });
}
db.exec('COMMIT');
db.close();
