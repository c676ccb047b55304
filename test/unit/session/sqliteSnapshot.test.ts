import * as assert from 'node:assert/strict';
import { promises as fs, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { kiloReading, kiloSessions, KiloDbReader } from '../../../src/core/session/kiloDb';
import { applyWal, MAX_SQLITE_BYTES, openSqliteSnapshot, readSqlite, SqliteChanged } from '../../../src/core/session/sqliteSnapshot';
import { makeTempDir, repoRoot } from '../helpers/fixtures';
import { loadSqlJs } from './kiloDbFixture';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Memory held in buffers and by the heap, after a full collection. */
function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

/** A database sql.js built, written to a file of its own (the database is closed). */
async function written(sql: { export(): Uint8Array; close(): void }, name: string): Promise<string> {
  const file = path.join(await makeTempDir('handoff-sqlite-file-'), name);
  writeFileSync(file, sql.export());
  sql.close();
  return file;
}

/** Open descriptors of this process (Linux), else null. */
function openFds(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null;
  }
}

describe('SQLite snapshots read where the file lies', () => {
  const WAL = path.join(repoRoot(), 'test', 'fixtures', 'vscode-agents', 'kilo-wal');
  const SES = 'ses_40a1b2c3d4e5Wa1Lm0De2Xy3Zq';
  const FRAME = 24 + 1024;
  const walBytes = () => readFileSync(path.join(WAL, 'kilo.db-wal'));
  /** The fixture's WAL holds two transactions: 11 frames, then 6. */
  const firstTransaction = () => walBytes().subarray(0, 32 + 11 * FRAME);

  async function place(wal: Buffer | null): Promise<string> {
    const dir = await makeTempDir('handoff-sqlite-snap-');
    await fs.copyFile(path.join(WAL, 'kilo.db'), path.join(dir, 'kilo.db'));
    if (wal) await fs.writeFile(path.join(dir, 'kilo.db-wal'), wal);
    return path.join(dir, 'kilo.db');
  }
  const tokens = (db: Parameters<typeof kiloSessions>[0], file: string) => {
    const r = kiloReading(db, SES, file, 200_000);
    return r.known ? r.usedTokens : r.reason;
  };

  it('a database of tens of MB is read without its image in memory', async function () {
    this.timeout(60_000);
    const SQL = await loadSqlJs();
    const sql = new SQL.Database();
    sql.run('CREATE TABLE part (id text PRIMARY KEY NOT NULL, session_id text NOT NULL, data text NOT NULL)');
    sql.run("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 499) INSERT INTO part SELECT printf('prt_%06d', i), 'ses', printf('%.*c', 100000, 'x') FROM n");
    const file = await written(sql, 'big.db');
    const size = (await fs.stat(file)).size;
    assert.ok(size > 40 * 1024 * 1024, `${size} bytes`);
    const before = held();
    const snap = await openSqliteSnapshot(file);
    try {
      // Every leaf of the table is visited (the ids), and one row's 100 KB column joined from its overflow pages.
      const ids = snap.db.rows('part', ['id']);
      assert.equal(ids.length, 500);
      const last = snap.db.rows('part', ['data'], { column: 'id', equals: 'prt_000499' })[0]?.['data'];
      assert.equal(typeof last === 'string' ? last.length : 0, 100_000);
      const growth = held() - before;
      // A copy of the file, as before, held all of it while the snapshot lived.
      assert.ok(growth < size / 8, `${(growth / 1048576).toFixed(1)} MB held for a ${(size / 1048576).toFixed(0)} MB database`);
    } finally {
      await snap.close();
    }
  });

  it('a table three levels deep read from the file: every row as SQLite has it, the late columns of kept rows too', async function () {
    this.timeout(60_000);
    const SQL = await loadSqlJs();
    const sql = new SQL.Database();
    // Small pages: interior pages over interior pages, a leaf page read into the scan's one buffer each time.
    sql.run('PRAGMA page_size = 512');
    sql.run('CREATE TABLE t (id integer PRIMARY KEY, s text NOT NULL, v text NOT NULL)');
    sql.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000) INSERT INTO t SELECT i, CASE i % 3 WHEN 0 THEN 'a' ELSE 'b' END, printf('%d-%.*c', i, (i * 37) % 1500, 'x') FROM n");
    const expected = sql.exec("SELECT id, v FROM t WHERE s = 'a' ORDER BY id")[0]!.values.map(([id, v]) => [id, v]);
    const file = await written(sql, 'deep.db');
    const snap = await openSqliteSnapshot(file);
    try {
      const all = snap.db.rows('t', ['id', 's']);
      assert.equal(all.length, 6000);
      assert.deepEqual(all.map((r) => r['id']), Array.from({ length: 6000 }, (_, i) => i + 1));
      // Kept during the scan, `v` decoded after it: each row reads its page (or overflow) again.
      const refs = snap.db.rowRefs('t', ['id'], { column: 's', equals: 'a' });
      assert.deepEqual(refs.map((r) => [r.row['id'], r.get('v')]), expected);
      assert.ok(expected.length === 2000 && expected.some(([, v]) => typeof v === 'string' && v.length > 512));
    } finally {
      await snap.close();
    }
  });

  it('WAL frames read from the -wal file: committed transactions applied, one still being written left out with a note', async () => {
    const full = await place(walBytes());
    const positioned = await openSqliteSnapshot(full, { walInMemory: 0 });
    const inMemory = await openSqliteSnapshot(full);
    try {
      assert.equal(positioned.frames, 17);
      assert.equal(positioned.note, undefined);
      assert.equal(tokens(positioned.db, full), 12500);
      assert.equal(tokens(inMemory.db, full), 12500);
      assert.deepEqual(positioned.db.rows('part', ['id', 'data']), inMemory.db.rows('part', ['id', 'data']));
    } finally {
      await Promise.all([positioned.close(), inMemory.close()]);
    }
    const wal = walBytes();
    const torn = await place(wal.subarray(0, wal.length - 100));
    const snap = await openSqliteSnapshot(torn, { walInMemory: 0 });
    try {
      assert.equal(snap.frames, 11);
      assert.equal(snap.note, 'a transaction still being written in the -wal file was left out');
      assert.equal(tokens(snap.db, torn), 12000);
    } finally {
      await snap.close();
    }
  });

  it('frames appended to the -wal after the snapshot was taken are not read; the next snapshot has them', async () => {
    for (const walInMemory of [0, undefined]) {
      const file = await place(firstTransaction());
      const snap = await openSqliteSnapshot(file, { walInMemory });
      try {
        assert.equal(snap.frames, 11);
        await fs.writeFile(`${file}-wal`, walBytes());
        assert.equal(tokens(snap.db, file), 12000);
      } finally {
        await snap.close();
      }
      assert.equal(await readSqlite(file, (db) => tokens(db, file)), 12500);
    }
  });

  it('a checkpoint between reads: the snapshot it changed refuses to answer, and the read is done again on the new state', async () => {
    const file = await place(firstTransaction());
    const checkpointed = Buffer.from(applyWal(readFileSync(file), walBytes()).image);
    const snap = await openSqliteSnapshot(file, { walInMemory: 0 });
    try {
      writeFileSync(file, checkpointed);
      rmSync(`${file}-wal`);
      assert.throws(() => kiloSessions(snap.db), (err: Error) => err instanceof SqliteChanged && err.message === `${file} changed while being read (a checkpoint wrote it); read again`);
    } finally {
      await snap.close();
    }
    // A checkpoint during a read: the read is done again on a new snapshot.
    const again = await place(firstTransaction());
    const fds = openFds();
    let attempts = 0;
    const used = await readSqlite(again, (db) => {
      if (attempts++ === 0) {
        writeFileSync(again, checkpointed);
        rmSync(`${again}-wal`);
      }
      return tokens(db, again);
    });
    assert.equal(attempts, 2);
    assert.equal(used, 12500);
    assert.equal(openFds(), fds, 'every snapshot closed');
    // The meter's reader, its snapshot cached between readings, reads the checkpointed file.
    const cached = await place(firstTransaction());
    const reader = new KiloDbReader(cached, SES);
    const r1 = await reader.reading();
    assert.ok(r1.known && r1.usedTokens === 12000);
    writeFileSync(cached, checkpointed);
    rmSync(`${cached}-wal`);
    const r2 = await reader.reading();
    assert.ok(r2.known && r2.usedTokens === 12500);
  });

  it('a WAL restarted over the frames a snapshot indexed (other salts) is not read as this snapshot', async () => {
    const file = await place(walBytes());
    const snap = await openSqliteSnapshot(file, { walInMemory: 0 });
    try {
      const restarted = Buffer.from(walBytes());
      for (let at = 32; at + FRAME <= restarted.length; at += FRAME) restarted.writeUInt32BE(restarted.readUInt32BE(at + 8) + 1, at + 8);
      writeFileSync(`${file}-wal`, restarted);
      assert.throws(() => kiloSessions(snap.db), SqliteChanged);
    } finally {
      await snap.close();
    }
  });

  it('a closed snapshot throws SqliteChanged; a database that is no file is refused with its name', async () => {
    const file = await place(walBytes());
    const snap = await openSqliteSnapshot(file);
    await snap.close();
    assert.throws(() => snap.db.rows('part', ['id']), SqliteChanged);
    const dir = await makeTempDir('handoff-sqlite-dir-');
    await fs.mkdir(path.join(dir, 'kilo.db'));
    await assert.rejects(openSqliteSnapshot(path.join(dir, 'kilo.db')), (err: Error) => err.message.startsWith(path.join(dir, 'kilo.db')));
    // Over the limit (a sparse file: nothing is written): refused with its name, size and the limit, before any read.
    const huge = path.join(dir, 'huge.db');
    await fs.writeFile(huge, '');
    await fs.truncate(huge, MAX_SQLITE_BYTES + 1024 * 1024);
    await assert.rejects(openSqliteSnapshot(huge), { message: `${huge} is 2049 MB, over the 2048 MB limit of a database read; not read` });
  });
});
