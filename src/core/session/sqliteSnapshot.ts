/**
 * A read-only snapshot of a live SQLite database in WAL mode (Kilo Code's `kilo.db`), without ever
 * opening it with SQLite: the main file and its `-wal` are copied into memory (the agent is never
 * locked out, nothing is written next to its files), the WAL's committed frames are applied to the
 * copied pages, and the image is read by ./sqliteBtree (plain TypeScript: one build for every
 * platform, no native module, no WebAssembly, Node 20 alike).
 *
 * WAL format (sqlite.org/fileformat2.html §4): a 32-byte header (magic 0x377f0682/3, version, page
 * size, checkpoint sequence, salt-1, salt-2, checksum over the first 24 bytes), then frames of a
 * 24-byte header (page number, database size after commit — non-zero on a transaction's last frame —,
 * salt-1, salt-2, cumulative checksum over the frame header's first 8 bytes and the page) followed by
 * the page. A frame counts only when its salts are the header's and the checksum chain holds; frames
 * are applied up to the last valid commit frame, so a transaction still being written is never seen.
 */
import * as fs from 'node:fs';
import { mb, openRegular } from '../fsx';
import { SqliteImage } from './sqliteBtree';

/** A database larger than this is not read into memory (a message says so). */
export const MAX_SQLITE_BYTES = 512 * 1024 * 1024;

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** What applying a WAL did. */
export interface WalApplied {
  /** The database image with every committed frame applied. */
  image: Uint8Array;
  /** Frames applied (those of committed transactions). */
  frames: number;
  /** Why the WAL was ignored whole or in part (e.g. a transaction still being written), when it was. */
  note?: string;
}

/** The WAL checksum of `data` (a multiple of 8 bytes), continuing from `s`, words in the WAL's byte order. */
function walChecksum(data: Uint8Array, bigEndian: boolean, s: [number, number]): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let [s1, s2] = s;
  for (let i = 0; i + 8 <= data.byteLength; i += 8) {
    s1 = (s1 + view.getUint32(i, !bigEndian) + s2) >>> 0;
    s2 = (s2 + view.getUint32(i + 4, !bigEndian) + s1) >>> 0;
  }
  return [s1, s2];
}

/**
 * The database image `db` with the committed transactions of `wal` applied (a new image when there are
 * any, else `db` itself; `db` is never changed).
 * An empty, foreign or stale WAL (other page size, bad header checksum) leaves the image as it is.
 */
export function applyWal(db: Uint8Array, wal: Uint8Array | null): WalApplied {
  const plain = (note?: string): WalApplied => ({ image: db, frames: 0, ...(note ? { note } : {}) });
  if (!wal || wal.byteLength < WAL_HEADER) return plain();
  const h = new DataView(wal.buffer, wal.byteOffset, WAL_HEADER);
  const magic = h.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return plain('the -wal file has no WAL header; ignored');
  const bigEndian = (magic & 1) === 1;
  const pageSize = h.getUint32(8) === 1 ? 65536 : h.getUint32(8);
  const dbPageSize = db.byteLength >= 18 ? ((db[16] as number) << 8) | (db[17] as number) : 0;
  const mainPageSize = dbPageSize === 1 ? 65536 : dbPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return plain('the -wal header names no valid page size; ignored');
  if (db.byteLength && mainPageSize !== pageSize) return plain('the -wal file is for another page size; ignored');
  let sum = walChecksum(wal.subarray(0, 24), bigEndian, [0, 0]);
  if (sum[0] !== h.getUint32(24) || sum[1] !== h.getUint32(28)) return plain('the -wal header checksum does not match; ignored');
  const salt1 = h.getUint32(16);
  const salt2 = h.getUint32(20);
  // The pages of each frame read so far; applied only once a commit frame closes their transaction.
  const pending: { page: number; at: number }[] = [];
  const committed: { page: number; at: number }[] = [];
  let dbPages = Math.floor(db.byteLength / pageSize);
  let torn = false;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.byteLength; at += FRAME_HEADER + pageSize) {
    const f = new DataView(wal.buffer, wal.byteOffset + at, FRAME_HEADER);
    if (f.getUint32(8) !== salt1 || f.getUint32(12) !== salt2) break;
    sum = walChecksum(wal.subarray(at, at + 8), bigEndian, sum);
    sum = walChecksum(wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize), bigEndian, sum);
    if (sum[0] !== f.getUint32(16) || sum[1] !== f.getUint32(20)) {
      torn = true;
      break;
    }
    const page = f.getUint32(0);
    if (page < 1) break;
    pending.push({ page, at: at + FRAME_HEADER });
    const sizeAfter = f.getUint32(4);
    if (sizeAfter > 0) {
      committed.push(...pending.splice(0));
      dbPages = sizeAfter;
    }
  }
  const image = new Uint8Array(dbPages * pageSize);
  image.set(db.subarray(0, Math.min(db.byteLength, image.byteLength)));
  for (const { page, at } of committed) if (page <= dbPages) image.set(wal.subarray(at, at + pageSize), (page - 1) * pageSize);
  const note = pending.length || torn ? 'a transaction still being written in the -wal file was left out' : undefined;
  return { image, frames: committed.length, ...(note ? { note } : {}) };
}

/**
 * A whole regular file in one buffer of its size (a database is large: no chunks joined afterwards),
 * at most `MAX_SQLITE_BYTES`; null when it does not exist. Bytes appended while it is read are left
 * for the next read (a database grows by whole pages; the caller checks the file did not move).
 */
async function readWhole(file: string): Promise<Buffer | null> {
  const opened = await openRegular(file);
  if (!opened.ok) {
    if (opened.refusal.kind === 'missing') return null;
    throw new Error(`${file} ${opened.refusal.message}`);
  }
  const { handle, size } = opened.file;
  try {
    if (size > MAX_SQLITE_BYTES) throw new Error(`${file} is ${mb(size)}, over the ${mb(MAX_SQLITE_BYTES)} limit; not read`);
    const buf = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buf, filled, Math.min(size - filled, 16 * 1024 * 1024), filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === size ? buf : buf.subarray(0, filled);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** One consistent in-memory copy of a database file and its WAL. */
export interface SqliteSnapshot {
  db: SqliteImage;
  /** Size and mtime of both files when copied: a new snapshot is taken only when they move. */
  key: string;
  frames: number;
  note?: string;
}

async function statKey(file: string): Promise<string> {
  const [a, b] = await Promise.all([fs.promises.stat(file).catch(() => null), fs.promises.stat(`${file}-wal`).catch(() => null)]);
  return `${a ? `${a.size}:${a.mtimeMs}:${a.ino}` : '-'}|${b ? `${b.size}:${b.mtimeMs}:${b.ino}` : '-'}`;
}

/** The key a snapshot of `file` would have now (cheap: two stats). */
export function snapshotKey(file: string): Promise<string> {
  return statKey(file);
}

/**
 * Copies `file` and `file-wal` into memory and reads the result with ./sqliteBtree. The main file is
 * copied again when a checkpoint wrote it while it was being read (its size or mtime moved), so pages
 * from two states are never mixed. Throws a one-sentence error naming the file when it cannot be read.
 */
export async function openSqliteSnapshot(file: string): Promise<SqliteSnapshot> {
  for (let attempt = 0; ; attempt++) {
    const before = await statKey(file);
    const main = await readWhole(file);
    if (!main) throw new Error(`${file} is missing`);
    const wal = await readWhole(`${file}-wal`);
    const after = await statKey(file);
    // The -wal growing while read is fine (its new frames are not committed in the copy); the main
    // file changing means a checkpoint ran: read both again.
    if (before.split('|')[0] !== after.split('|')[0]) {
      if (attempt < 3) continue;
      throw new Error(`${file} kept changing while being read; read again on its next change`);
    }
    const applied = applyWal(main, wal);
    let db: SqliteImage;
    try {
      db = new SqliteImage(applied.image);
      // The schema is read now: a file that is no database fails here, not in a later query.
      db.tables();
    } catch (err) {
      throw new Error(`${file} is not a readable SQLite database: ${(err as Error).message}`);
    }
    return { db, key: after, frames: applied.frames, ...(applied.note ? { note: applied.note } : {}) };
  }
}
