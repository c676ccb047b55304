import * as assert from 'node:assert/strict';
import { SqliteImage } from '../../../src/core/session/sqliteBtree';
import { sharedChainDb } from '../helpers/sqliteHostile';

describe('a damaged SQLite image costs no more than a sound one', () => {
  it('one row with its overflow chain is read whole (the hand-written image is sound)', () => {
    const db = new SqliteImage(sharedChainDb(1, 20));
    const [row] = db.rows('t', ['data']);
    assert.ok(row?.['data'] instanceof Uint8Array && (row['data'] as Uint8Array).length > 20 * 4000);
  });

  it('rows sharing one overflow chain are refused at the second, having read the chain once', () => {
    const db = new SqliteImage(sharedChainDb(1000, 700));
    assert.throws(() => db.rows('t', ['data']), /^Error: a damaged SQLite database \(overflow page \d+ belongs to two cells\)$/);
    // The schema page, the interior page, one leaf and the chain once: not 1 000 times 700 pages.
    assert.ok(db.pagesVisited < 710, String(db.pagesVisited));
  });

  it('cell pointers that all point at one cell are refused', () => {
    const db = new SqliteImage(sharedChainDb(5, 3, { reuseCell: true }));
    assert.throws(() => db.rows('t', ['data']), /two cells of page 2 at one place/);
  });

});
