import * as assert from 'node:assert/strict';
import type { Database } from 'sql.js';
import { createTableColumns, SqliteImage, varint } from '../../../src/core/session/sqliteBtree';
import { loadSqlJs } from './kiloDbFixture';

/** A database written by real SQLite (sql.js), as bytes. */
async function build(statements: (db: Database) => void, pageSize = 1024): Promise<Uint8Array> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run(`PRAGMA page_size = ${pageSize}`);
  statements(db);
  const bytes = db.export();
  db.close();
  return bytes;
}

describe('the SQLite file reader', () => {
  it('reads every row of a multi-level b-tree with overflow chains, as SQLite itself returns them', async () => {
    const long = (i: number) => `row ${i} ` + 'é€𝄞 long text that spills over pages; '.repeat(40 + (i % 7) * 30);
    const bytes = await build((db) => {
      db.run('CREATE TABLE `message` (`id` text PRIMARY KEY NOT NULL, `session_id` text NOT NULL, `n` integer, `data` text NOT NULL)');
      db.run('BEGIN');
      for (let i = 0; i < 3000; i++) db.run('INSERT INTO message VALUES (?,?,?,?)', [`msg_${String(i).padStart(5, '0')}`, `ses_${i % 3}`, i * 1000, i % 50 === 0 ? long(i) : `{"i":${i}}`]);
      db.run('COMMIT');
    });
    const db = new SqliteImage(bytes);
    const rows = db.rows('message', ['id', 'session_id', 'n', 'data']);
    assert.equal(rows.length, 3000);
    assert.deepEqual(rows[1234], { id: 'msg_01234', session_id: 'ses_1', n: 1_234_000, data: '{"i":1234}' });
    assert.equal(rows[2950]?.['data'], long(2950));
    assert.equal(rows[0]?.['data'], long(0));
    const one = db.rows('message', ['id', 'data'], { column: 'session_id', equals: 'ses_2' });
    assert.equal(one.length, 1000);
    assert.ok(one.every((r) => Number(String(r['id']).slice(4)) % 3 === 2));
  });

  it('decodes every serial type, the rowid alias, columns added later, and quoted names', async () => {
    const bytes = await build((db) => {
      db.run('CREATE TABLE "t x" (k INTEGER PRIMARY KEY, "a b" integer, [c] real, `d` blob, e text, f)');
      const ints = [0, 1, -1, 127, -128, 300, -32768, 8_000_000, -8_000_000, 2_000_000_000, 100_000_000_000, -140_737_488_355_328, 9_007_199_254_740_991];
      ints.forEach((v, i) => db.run('INSERT INTO "t x" VALUES (?,?,?,?,?,?)', [i + 10, v, v / 3, new Uint8Array([i, 255, 0]), `text ${i} ✓`, null]));
      db.run("INSERT INTO \"t x\" (k, \"a b\") VALUES (500, 9223372036854775807)");
      db.run('ALTER TABLE "t x" ADD COLUMN g text');
      db.run('INSERT INTO "t x" (k, g) VALUES (501, \'late\')');
      db.run('CREATE TABLE kv (k text, v text, PRIMARY KEY (k)) WITHOUT ROWID');
    });
    const SQL = await loadSqlJs();
    const ref = new SQL.Database(bytes);
    const expected = ref.exec('SELECT k, "a b", c, d, e, f, g FROM "t x" ORDER BY rowid')[0]!.values;
    ref.close();
    const db = new SqliteImage(bytes);
    assert.deepEqual([...db.tables().keys()].sort(), ['t x']);
    const rows = db.rows('t x', ['k', 'a b', 'c', 'd', 'e', 'f', 'g']);
    assert.equal(rows.length, expected.length);
    rows.forEach((r, i) => {
      const want = expected[i]!;
      assert.equal(r['k'], want[0]);
      // sql.js gives JS numbers; a 64-bit value beyond 2^53 is a bigint here, exact.
      if (typeof r['a b'] === 'bigint') assert.equal(r['a b'], 9223372036854775807n);
      else assert.equal(r['a b'], want[1]);
      assert.equal(r['c'], want[2]);
      assert.deepEqual(r['d'] === null ? null : Array.from(r['d'] as Uint8Array), want[3] === null ? null : Array.from(want[3] as Uint8Array));
      assert.equal(r['e'], want[4]);
      assert.equal(r['f'], null);
      assert.equal(r['g'], want[6]);
    });
    assert.equal(rows[rows.length - 1]?.['g'], 'late');
  });

  it('refuses what it does not read with a sentence, never a loop or a read past the end', async () => {
    assert.throws(() => new SqliteImage(new Uint8Array(50)), /not a SQLite database/);
    assert.throws(() => new SqliteImage(Buffer.from('SQLite format 3\0'.padEnd(4096, 'x'))), /not a SQLite database \(page size/);
    const bytes = Buffer.from(await build((db) => {
      db.run('CREATE TABLE t (a text)');
      for (let i = 0; i < 200; i++) db.run('INSERT INTO t VALUES (?)', ['x'.repeat(100)]);
    }));
    assert.throws(() => new SqliteImage(bytes).rows('nope', ['a']), /no table "nope"/);
    assert.throws(() => new SqliteImage(bytes).rows('t', ['b']), /no column "b" in table "t"/);
    // The table's root page points at itself: a damaged b-tree is reported, not walked forever.
    const root = new SqliteImage(bytes).tables().get('t')!.root;
    const at = (root - 1) * 1024;
    assert.equal(bytes[at], 5, 'an interior root page');
    bytes.writeUInt32BE(root, at + 8);
    assert.throws(() => new SqliteImage(bytes).rows('t', ['a']), /damaged SQLite database \(a b-tree loops\)/);
  });

  it('reads varints of every length and column lists of CREATE TABLE', () => {
    assert.deepEqual(varint(Uint8Array.from([0x7f]), 0), [127, 1]);
    assert.deepEqual(varint(Uint8Array.from([0x81, 0x00]), 0), [128, 2]);
    assert.deepEqual(varint(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), 0), [-1, 9]);
    assert.throws(() => varint(Uint8Array.from([0x81]), 0), /varint past the end/);
    assert.deepEqual(createTableColumns('CREATE TABLE `todo` (`session_id` text NOT NULL, `position` integer NOT NULL, PRIMARY KEY(`session_id`, `position`), FOREIGN KEY (`session_id`) REFERENCES `session`(`id`))'), { columns: ['session_id', 'position'], rowidColumn: -1 });
    assert.deepEqual(createTableColumns('CREATE TABLE x (id INTEGER PRIMARY KEY, "we,ird" text DEFAULT \'a,b\', n numeric(10, 2))'), { columns: ['id', 'we,ird', 'n'], rowidColumn: 0 });
  });
});
