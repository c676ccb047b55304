// Benchmark: hostile inputs, each answered within 2 s and 200 MB or refused with its located message
// (issue 40). Each case's input is made in a temporary folder; each read runs in its own child process
// (its peak RSS is its own) through a bundle of the core readers. Prints a table; exits 1 on a miss.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { root, tempDir } from './lib.mjs';

const LIMIT_S = 2;
const LIMIT_MB = 200;
/** Size of the large kilo.db case (`HANDOFF_BENCH_KILO_MB`, default 400). */
const KILO_MB = Number(process.env.HANDOFF_BENCH_KILO_MB) || 400;
const KILO_FOLDER = '/home/dev/bench';
const ROLLOUT = 'rollout-2026-11-20T16-00-00-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68.jsonl.zst';

/** What the bundle exports (the child reads with these). */
const EXPORTS = {
  'src/core/zstd': ['streamZst'],
  'src/core/context/codex': ['codexRolloutReader'],
  'src/core/session/reader': ['SessionReader'],
  'src/core/session/sqliteBtree': ['SqliteImage'],
  'src/core/session/sqliteSnapshot': ['openSqliteSnapshot'],
  'src/core/session/kiloDb': ['kiloSessions', 'kiloReading', 'kiloSessionFacts'],
  'src/core/context/claude': ['claudeTranscriptReader'],
  'src/cli/commands/hookDetached': ['privateQueueDir'],
  'src/core/setup/toml': ['parseTomlFile', 'patchToml', 'tomlWork'],
  'test/unit/helpers/sqliteHostile': ['sharedChainDb'],
};

/**
 * A kilo.db of about `mbytes` MB written by real SQLite (sql.js): the folder's session (a request, a
 * test run, its usage), 20 000 messages of other sessions, and parts of 100 KB of tool output each
 * (overflow pages, nearly all of the file) belonging to those other sessions.
 */
async function bigKiloDb(file, mbytes) {
  const SQL = await createRequire(import.meta.url)('sql.js')();
  const db = new SQL.Database();
  db.run(`CREATE TABLE session (id text PRIMARY KEY NOT NULL, project_id text NOT NULL, workspace_id text, parent_id text, slug text NOT NULL,
    directory text NOT NULL, title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer)`);
  db.run('CREATE TABLE message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)');
  db.run('CREATE TABLE part (id text PRIMARY KEY NOT NULL, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)');
  db.run('CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL, priority text NOT NULL, position integer NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, PRIMARY KEY (session_id, position))');
  const t = 1795425600000;
  db.run('BEGIN');
  db.run('INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?,?,?)', ['ses_mine', 'p', null, null, 'slug', KILO_FOLDER, 'Bench', '7.2.14', t, t, null]);
  db.run('INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?,?,?)', ['ses_other', 'p', null, null, 'slug', '/home/dev/other', 'Other', '7.2.14', t, t, null]);
  const other = JSON.stringify({ role: 'assistant', time: { created: t }, modelID: 'claude-sonnet-4-5', tokens: { total: 1, input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } }, path: { cwd: '/home/dev/other' } });
  db.run(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999) INSERT INTO message SELECT printf('msg_o%011d', i), 'ses_other', ${t} + i, ${t} + i, ? FROM n`, [other]);
  const mine = { role: 'assistant', time: { created: t + 30_000, completed: t + 31_000 }, modelID: 'claude-sonnet-4-5', providerID: 'anthropic', path: { cwd: KILO_FOLDER }, tokens: { total: 42_000, input: 500, output: 120, reasoning: 0, cache: { read: 41_000, write: 380 } } };
  db.run('INSERT INTO message VALUES (?,?,?,?,?)', ['msg_m000', 'ses_mine', t + 10_000, t + 10_000, JSON.stringify({ role: 'user', time: { created: t + 10_000 } })]);
  db.run('INSERT INTO message VALUES (?,?,?,?,?)', ['msg_m001', 'ses_mine', t + 30_000, t + 30_000, JSON.stringify(mine)]);
  db.run('INSERT INTO part VALUES (?,?,?,?,?,?)', ['prt_m000', 'msg_m000', 'ses_mine', t + 10_000, t + 10_000, JSON.stringify({ type: 'text', text: 'Run the tests.' })]);
  const bash = { type: 'tool', tool: 'bash', callID: 'toolu_1', state: { status: 'completed', input: { command: 'npm test' }, output: 'ok', metadata: { exit: 0 }, time: { start: t + 30_001, end: t + 30_500 } } };
  db.run('INSERT INTO part VALUES (?,?,?,?,?,?)', ['prt_m001', 'msg_m001', 'ses_mine', t + 30_001, t + 30_001, JSON.stringify(bash)]);
  const parts = Math.max(1, Math.round((mbytes * 1024 * 1024) / 102_000));
  db.run(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${parts - 1}) INSERT INTO part SELECT printf('prt_o%011d', i), printf('msg_o%011d', i % 20000), 'ses_other', ${t} + i, ${t} + i, '{"type":"tool","tool":"bash","state":{"status":"completed","output":"' || printf('%.*c', 100000, 'x') || '"}}' FROM n`);
  db.run('COMMIT');
  fs.writeFileSync(file, db.export());
  db.close();
}

/**
 * The cases: `make(dir)` writes the input and returns what the child needs; `run(lib, input)` (in the
 * child, after its optional `prepare(lib)`, untimed) reads it and returns a short outcome; `expect` is what that outcome must match.
 */
const cases = [
  {
    name: 'zstd bomb: 754 bytes asking for a 1.875 GiB window',
    make(dir) {
      const out = [0x28, 0xb5, 0x2f, 0xfd, 0x00, (20 << 3) | 7];
      for (let i = 0; i < 187; i++) {
        const h = (i === 186 ? 1 : 0) | (1 << 1) | ((128 * 1024) << 3);
        out.push(h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, 0x61);
      }
      const file = path.join(dir, ROLLOUT);
      fs.writeFileSync(file, Buffer.from(out));
      return file;
    },
    async run(lib, file) {
      const r = await lib.codexRolloutReader(file).read();
      return r.known ? 'read' : r.reason;
    },
    expect: /window, over the 8 MiB decoded/,
  },
  {
    name: 'zstd bomb: 16 KB of 1-byte blocks in an 8 MiB window',
    make(dir) {
      const out = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 13 << 3];
      for (let i = 0; i < 4000; i++) out.push(i === 3999 ? 0x0b : 0x0a, 0, 0, 0x61);
      const file = path.join(dir, ROLLOUT);
      fs.writeFileSync(file, Buffer.from(out));
      return file;
    },
    async run(lib, file) {
      const r = await lib.codexRolloutReader(file).read();
      return r.known ? 'read' : r.reason;
    },
    expect: /of work for .* compressed; not decoded further/,
  },
  {
    name: 'kilo.db of 3 MB whose 1 000 rows share one overflow chain',
    make: () => null,
    prepare: (lib) => lib.sharedChainDb(1000, 700),
    async run(lib, _input, image) {
      const db = new lib.SqliteImage(image);
      try {
        return `${db.rows('t', ['data']).length} rows read (${db.pagesVisited} pages visited)`;
      } catch (err) {
        return `${err.message} (${db.pagesVisited} pages visited)`;
      }
    },
    expect: /belongs to two cells/,
  },
  {
    name: `kilo.db of ${KILO_MB} MB (HANDOFF_BENCH_KILO_MB): the meter's reading and the session's facts`,
    make(dir) {
      // Written by a child of its own: a child's peak RSS starts from its parent's (Linux keeps the
      // high-water mark across fork and exec), so this parent stays small for the cases after it.
      const file = path.join(dir, 'kilo.db');
      const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--make-kilo', file, String(KILO_MB)], { encoding: 'utf8', timeout: 300_000 });
      if (r.status !== 0) throw new Error(`bounds: writing the ${KILO_MB} MB kilo.db failed: ${r.error?.message ?? r.stderr.slice(0, 300)}`);
      return file;
    },
    async run(lib, file) {
      const snap = await lib.openSqliteSnapshot(file);
      try {
        const session = lib.kiloSessions(snap.db).find((s) => s.directory === KILO_FOLDER);
        const r = lib.kiloReading(snap.db, session.id, file, 200_000);
        const facts = lib.kiloSessionFacts(snap.db, session, file);
        const size = fs.statSync(file).size / 1048576;
        return `${size.toFixed(0)} MB read: ${r.known ? `${r.usedTokens} tokens` : r.reason}; ${facts.commandCount} command(s)`;
      } finally {
        await snap.close?.();
      }
    },
    expect: /read: 42000 tokens; 1 command/,
  },
  {
    name: 'Claude transcript ending in 4 MiB of blank lines (the meter\'s tail read)',
    make(dir) {
      const call = { type: 'assistant', isSidechain: false, sessionId: 'b', timestamp: '2026-11-20T09:00:00Z', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 50_000 } } };
      const file = path.join(dir, 'blank.jsonl');
      fs.writeFileSync(file, `${JSON.stringify(call)}\n${'\n'.repeat(4 * 1024 * 1024)}`);
      return file;
    },
    async run(lib, file) {
      const r = await lib.claudeTranscriptReader(file).read();
      return r.known ? `${r.usedTokens} tokens` : r.reason;
    },
    expect: /^50010 tokens$/,
  },
  {
    name: 'hook queue with its state folder under /proc',
    make: () => null,
    async run(lib) {
      const q = await lib.privateQueueDir({ HANDOFF_STATE_DIR: '/proc/1' });
      return q.ok ? `queued in ${q.dir}` : q.reason;
    },
    expect: /lies under \/proc, a system folder/,
  },
  {
    // The edit is linear (the editor patches none of the file); checking the result parses the whole
    // file again, which the TOML library does at about 50 µs a line: that parse is most of this figure.
    name: 'config.toml of 100 000 top-level lines: notify added (edit and check)',
    make: () => null,
    prepare(lib) {
      const text = Array.from({ length: 100_000 }, (_, i) => `key_${i} = ${i}`).join('\n') + '\n';
      return { text, current: lib.parseTomlFile('config.toml', text).value };
    },
    async run(lib, _input, { text, current }) {
      const before = lib.tomlWork.patchedBytes;
      const r = lib.patchToml('config.toml', text, { notify: ['/opt/handoff/handoff', 'notify'], ...current }, current);
      return r.ok ? `edited; ${lib.tomlWork.patchedBytes - before} bytes patched by the editor` : r.message;
    },
    expect: /^edited; \d{1,3} bytes patched/,
  },
];

if (process.argv[2] === '--make-kilo') {
  await bigKiloDb(process.argv[3], Number(process.argv[4]));
} else if (process.argv[2] === '--child') {
  const [bundle, index, input] = process.argv.slice(3);
  const lib = createRequire(import.meta.url)(bundle);
  const c = cases[Number(index)];
  const prepared = c.prepare?.(lib);
  const t0 = performance.now();
  const outcome = String(await c.run(lib, JSON.parse(input), prepared));
  process.stdout.write(JSON.stringify({ outcome, ms: performance.now() - t0, rss: process.resourceUsage().maxRSS / 1024 }));
} else {
  const dir = tempDir('handoff-bench-bounds-');
  let misses = 0;
  try {
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(entry, Object.entries(EXPORTS).map(([m, names]) => `export { ${names.join(', ')} } from ${JSON.stringify(path.join(root, m))};\n`).join(''));
    const bundle = path.join(dir, 'bounds.cjs');
    await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'warning' });
    for (const [i, c] of cases.entries()) {
      const caseDir = fs.mkdtempSync(path.join(dir, 'case-'));
      const input = await c.make(caseDir);
      const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', bundle, String(i), JSON.stringify(input)], { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 120_000 });
      const got = r.status === 0 ? JSON.parse(r.stdout) : { outcome: `child failed: ${r.error?.message ?? r.stderr.slice(0, 300)}`, ms: NaN, rss: NaN };
      const ok = got.ms <= LIMIT_S * 1000 && got.rss < LIMIT_MB && c.expect.test(got.outcome);
      if (!ok) misses++;
      console.log(`${ok ? 'ok  ' : 'MISS'} ${c.name}: ${got.ms.toFixed(0)} ms, peak RSS ${got.rss.toFixed(0)} MB — ${got.outcome.split(caseDir).join("…").slice(0, 160)}`);
      fs.rmSync(caseDir, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(misses ? `MISSED: ${misses} case(s) over ${LIMIT_S} s / ${LIMIT_MB} MB or without their message` : `every case within ${LIMIT_S} s and ${LIMIT_MB} MB, with its message`);
  process.exitCode = misses ? 1 : 0;
}
