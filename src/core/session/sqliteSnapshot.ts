/**
 * A read-only snapshot of a live SQLite database in WAL mode (Kilo Code's `kilo.db`), without ever
 * opening it with SQLite (the agent is never locked out, nothing is written next to its files) and
 * without copying it: the main file is read page by page where it lies (positioned reads of an open
 * descriptor, a few recent pages cached), the WAL's committed frames are indexed when the snapshot is
 * taken (page → its newest committed frame) and read from the `-wal` instead of the main file's page,
 * and ./sqliteBtree reads the result (plain TypeScript: one build for every platform, no native module,
 * no WebAssembly, Node 20 alike). Memory does not grow with the database: a 400 MB `kilo.db` costs its
 * index and the pages of the rows being read.
 *
 * WAL format (sqlite.org/fileformat2.html §4): a 32-byte header (magic 0x377f0682/3, version, page
 * size, checkpoint sequence, salt-1, salt-2, checksum over the first 24 bytes), then frames of a
 * 24-byte header (page number, database size after commit — non-zero on a transaction's last frame —,
 * salt-1, salt-2, cumulative checksum over the frame header's first 8 bytes and the page) followed by
 * the page. A frame counts only when its salts are the header's and the checksum chain holds; frames
 * count up to the last valid commit frame, so a transaction still being written is never seen, nor is a
 * frame appended after the snapshot was taken.
 *
 * Consistency: a checkpoint writes the main file (and may then restart the WAL over its old frames).
 * The main file's size and mtime are taken when the snapshot is opened and checked after every read
 * operation (./sqliteBtree's `read`), and each WAL frame read later must still carry its salts and
 * checksum: when either moved, the read throws `SqliteChanged` and is done again on a new snapshot
 * (`readSqlite`), so pages of two states are never mixed in one answer.
 */
import * as fs from 'node:fs';
import type { FileHandle } from '../fsx';
import { mb, openRegular } from '../fsx';
import type { PageSource } from './sqliteBtree';
import { SqliteImage } from './sqliteBtree';

/**
 * A database (its main file, or its size after the WAL's last commit) larger than this is refused, with
 * a message: memory no longer grows with it, but a reading scans whole tables, and a scan of more than
 * this would take longer than a reading may.
 */
export const MAX_SQLITE_BYTES = 2 * 1024 * 1024 * 1024;
/** A `-wal` file larger than this is refused (its index is built by checking every frame's checksum). */
export const MAX_WAL_BYTES = 256 * 1024 * 1024;
/** A `-wal` file up to this size is read whole when the snapshot is taken (its descriptor closed at once); a larger one is read frame by frame. */
export const WAL_IN_MEMORY_BYTES = 16 * 1024 * 1024;
/** Bytes of recently read pages a file-backed snapshot keeps (a later column of a row, the next row's page). */
const PAGE_CACHE_BYTES = 1024 * 1024;

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** A read that found the file changed since the snapshot was taken (a checkpoint ran): read again on a new snapshot. */
export class SqliteChanged extends Error {}

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

/** Where a page's newest committed frame is in the WAL, and the checksum its header carries (to tell it from a later WAL's frame there). */
interface FrameRef {
  at: number;
  sum1: number;
  sum2: number;
}

/** The committed part of a WAL: which frame holds each page, and the database's size after the last commit. */
interface WalIndex {
  pageSize: number;
  salt1: number;
  salt2: number;
  /** Pages of the database after the last commit; null when no transaction is committed in the WAL. */
  dbPages: number | null;
  /** Page number → its newest committed frame (the offset of its 24-byte header). */
  frames: Map<number, FrameRef>;
  /** Frames of committed transactions (a page written twice counts twice). */
  committed: number;
  note?: string;
}

/**
 * Indexes the committed frames of a WAL of `walSize` bytes, reading it through `read(offset, length)`
 * (which may reuse one buffer: a frame is used before the next is read; fewer bytes at the file's end).
 * `mainPageSize` is the page size the main file's header names (0 when none), null when the main file
 * is empty (its pages all in the WAL). Null with a note when the
 * WAL is empty, foreign or stale (another page size, a bad header checksum): the main file alone counts.
 */
function indexWal(read: (offset: number, length: number) => Uint8Array, walSize: number, mainPageSize: number | null): { index: WalIndex | null; note?: string } {
  const plain = (note?: string) => ({ index: null, ...(note ? { note } : {}) });
  if (walSize < WAL_HEADER) return plain();
  const head = read(0, WAL_HEADER);
  if (head.byteLength < WAL_HEADER) return plain();
  const h = new DataView(head.buffer, head.byteOffset, WAL_HEADER);
  const magic = h.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return plain('the -wal file has no WAL header; ignored');
  const bigEndian = (magic & 1) === 1;
  const pageSize = h.getUint32(8) === 1 ? 65536 : h.getUint32(8);
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return plain('the -wal header names no valid page size; ignored');
  if (mainPageSize !== null && mainPageSize !== pageSize) return plain('the -wal file is for another page size; ignored');
  let sum = walChecksum(head.subarray(0, 24), bigEndian, [0, 0]);
  if (sum[0] !== h.getUint32(24) || sum[1] !== h.getUint32(28)) return plain('the -wal header checksum does not match; ignored');
  const salt1 = h.getUint32(16);
  const salt2 = h.getUint32(20);
  // The frames read so far; counted only once a commit frame closes their transaction.
  const pending: [number, FrameRef][] = [];
  const frames = new Map<number, FrameRef>();
  let committed = 0;
  let dbPages: number | null = null;
  let torn = false;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= walSize; at += FRAME_HEADER + pageSize) {
    const frame = read(at, FRAME_HEADER + pageSize);
    if (frame.byteLength < FRAME_HEADER + pageSize) break;
    const f = new DataView(frame.buffer, frame.byteOffset, FRAME_HEADER);
    if (f.getUint32(8) !== salt1 || f.getUint32(12) !== salt2) break;
    sum = walChecksum(frame.subarray(0, 8), bigEndian, sum);
    sum = walChecksum(frame.subarray(FRAME_HEADER, FRAME_HEADER + pageSize), bigEndian, sum);
    if (sum[0] !== f.getUint32(16) || sum[1] !== f.getUint32(20)) {
      torn = true;
      break;
    }
    const page = f.getUint32(0);
    if (page < 1) break;
    pending.push([page, { at, sum1: sum[0], sum2: sum[1] }]);
    const sizeAfter = f.getUint32(4);
    if (sizeAfter > 0) {
      for (const [p, ref] of pending) frames.set(p, ref);
      committed += pending.length;
      pending.length = 0;
      dbPages = sizeAfter;
    }
  }
  // Pages past the database's size after the last commit are not part of it.
  if (dbPages !== null) for (const p of frames.keys()) if (p > dbPages) frames.delete(p);
  const note = pending.length || torn ? 'a transaction still being written in the -wal file was left out' : undefined;
  return { index: { pageSize, salt1, salt2, dbPages, frames, committed, ...(note ? { note } : {}) }, ...(note ? { note } : {}) };
}

/** The page size a database header names (0 when it names none, or there is no header). */
function headerPageSize(head: Uint8Array): number {
  if (head.byteLength < 18) return 0;
  const v = ((head[16] as number) << 8) | (head[17] as number);
  const size = v === 1 ? 65536 : v;
  return size >= 512 && (size & (size - 1)) === 0 ? size : 0;
}

/**
 * The database image `db` with the committed transactions of `wal` applied (a new image; `db` is never
 * changed): the same WAL index a file-backed snapshot reads through, applied in memory.
 * An empty, foreign or stale WAL (other page size, bad header checksum) leaves the image as it is.
 */
export function applyWal(db: Uint8Array, wal: Uint8Array | null): WalApplied {
  const plain = (note?: string): WalApplied => ({ image: db, frames: 0, ...(note ? { note } : {}) });
  if (!wal) return plain();
  const mainPageSize = db.byteLength ? headerPageSize(db) : null;
  const { index, note } = indexWal((o, n) => wal.subarray(o, o + n), wal.byteLength, mainPageSize);
  if (!index) return plain(note);
  const { pageSize } = index;
  const dbPages = index.dbPages ?? Math.floor(db.byteLength / pageSize);
  const image = new Uint8Array(dbPages * pageSize);
  image.set(db.subarray(0, Math.min(db.byteLength, image.byteLength)));
  for (const [page, { at }] of index.frames) image.set(wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize), (page - 1) * pageSize);
  return { image, frames: index.committed, ...(note ? { note } : {}) };
}

/** `length` bytes at `position` of an open file into `buf` (from 0); the bytes read (fewer at its end). */
function readAt(fd: number, buf: Buffer, length: number, position: number): number {
  let filled = 0;
  while (filled < length) {
    const n = fs.readSync(fd, buf, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return filled;
}

/** An open regular file (null when missing); a refusal throws a one-sentence error naming it. */
async function openFile(file: string): Promise<{ handle: FileHandle; size: number; mtimeMs: number } | null> {
  const opened = await openRegular(file);
  if (!opened.ok) {
    if (opened.refusal.kind === 'missing') return null;
    throw new Error(`${file} ${opened.refusal.message}`);
  }
  return opened.file;
}

/**
 * The pages of a database read where they lie: page n is its newest committed WAL frame when the WAL
 * has one, else the main file's page n (zeros past its end, for pages the WAL's size names but has not
 * written). Both descriptors stay open until `close`.
 */
class FileSource implements PageSource {
  readonly byteLength: number;
  private readonly mainPages: number;
  private readonly cache = new Map<number, Buffer>();
  private readonly cacheSize: number;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly main: { handle: FileHandle; size: number; mtimeMs: number },
    readonly pageSize: number,
    dbPages: number,
    private readonly wal: { index: WalIndex; handle: FileHandle | null; bytes: Buffer | null } | null,
  ) {
    this.byteLength = dbPages * pageSize;
    this.mainPages = Math.floor(main.size / pageSize);
    this.cacheSize = Math.max(8, Math.floor(PAGE_CACHE_BYTES / pageSize));
  }

  private changed(): never {
    throw new SqliteChanged(`${this.file} changed while being read (a checkpoint wrote it); read again`);
  }

  readInto(offset: number, into: Buffer): Buffer {
    const n = Math.floor(offset / this.pageSize) + 1;
    const hit = this.cache.get(n);
    if (hit || this.wal?.index.frames.has(n) || n > this.mainPages || into.byteLength !== this.pageSize) return this.read(offset, this.pageSize);
    if (this.closed) this.changed();
    if (readAt(this.main.handle.fd, into, this.pageSize, offset) < this.pageSize) this.changed();
    return into;
  }

  read(offset: number, length: number): Buffer {
    const n = Math.floor(offset / this.pageSize) + 1;
    const within = offset - (n - 1) * this.pageSize;
    const page = this.page(n);
    return within === 0 && length === this.pageSize ? page : page.subarray(within, within + length);
  }

  private page(n: number): Buffer {
    if (this.closed) this.changed();
    const hit = this.cache.get(n);
    if (hit) {
      this.cache.delete(n);
      this.cache.set(n, hit);
      return hit;
    }
    const ps = this.pageSize;
    let out: Buffer;
    const frame = this.wal?.index.frames.get(n);
    if (frame && this.wal) {
      if (this.wal.bytes) out = this.wal.bytes.subarray(frame.at + FRAME_HEADER, frame.at + FRAME_HEADER + ps);
      else {
        // A frame read after the index was built must still be that frame: a WAL restarted after a
        // checkpoint writes other salts and checksums over the same offsets.
        const buf = Buffer.allocUnsafe(FRAME_HEADER + ps);
        const got = readAt((this.wal.handle as FileHandle).fd, buf, buf.byteLength, frame.at);
        const { salt1, salt2 } = this.wal.index;
        if (got < buf.byteLength || buf.readUInt32BE(0) !== n || buf.readUInt32BE(8) !== salt1 || buf.readUInt32BE(12) !== salt2 || buf.readUInt32BE(16) !== frame.sum1 || buf.readUInt32BE(20) !== frame.sum2) this.changed();
        out = buf.subarray(FRAME_HEADER);
      }
    } else {
      out = Buffer.alloc(ps);
      if (n <= this.mainPages && readAt(this.main.handle.fd, out, ps, (n - 1) * ps) < ps) this.changed();
    }
    this.cache.set(n, out);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as number);
    return out;
  }

  /** Throws `SqliteChanged` when the main file moved since the snapshot was taken (or the snapshot was closed). */
  verify(): void {
    if (this.closed) this.changed();
    const st = fs.fstatSync(this.main.handle.fd);
    if (st.size !== this.main.size || st.mtimeMs !== this.main.mtimeMs) this.changed();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    await Promise.all([this.main.handle.close().catch(() => undefined), this.wal?.handle?.close().catch(() => undefined)]);
  }
}

/** One consistent snapshot of a database file and its WAL, read where it lies until `close`. */
export interface SqliteSnapshot {
  db: SqliteImage;
  /** Size and mtime of both files when the snapshot was taken: a new snapshot is taken only when they move. */
  key: string;
  frames: number;
  note?: string;
  /** Closes the files; a read of the snapshot after it throws `SqliteChanged`. */
  close(): Promise<void>;
}

async function statKey(file: string): Promise<string> {
  const [a, b] = await Promise.all([fs.promises.stat(file).catch(() => null), fs.promises.stat(`${file}-wal`).catch(() => null)]);
  return `${a ? `${a.size}:${a.mtimeMs}:${a.ino}` : '-'}|${b ? `${b.size}:${b.mtimeMs}:${b.ino}` : '-'}`;
}

/** The key a snapshot of `file` would have now (cheap: two stats). */
export function snapshotKey(file: string): Promise<string> {
  return statKey(file);
}

/** One attempt at a snapshot; `SqliteChanged` when the main file moved while it was taken. */
async function takeSnapshot(file: string, walInMemory: number): Promise<SqliteSnapshot> {
  const key = await statKey(file);
  const main = await openFile(file);
  if (!main) throw new Error(`${file} is missing`);
  let wal: Awaited<ReturnType<typeof openFile>> = null;
  let source: FileSource | null = null;
  try {
    if (main.size > MAX_SQLITE_BYTES) throw new Error(`${file} is ${mb(main.size)}, over the ${mb(MAX_SQLITE_BYTES)} limit of a database read; not read`);
    const head = Buffer.alloc(100);
    readAt(main.handle.fd, head, Math.min(100, main.size), 0);
    const mainPageSize = main.size ? headerPageSize(head) : null;
    wal = await openFile(`${file}-wal`);
    let index: WalIndex | null = null;
    let note: string | undefined;
    let walBytes: Buffer | null = null;
    if (wal) {
      if (wal.size > MAX_WAL_BYTES) throw new Error(`${file}-wal is ${mb(wal.size)}, over the ${mb(MAX_WAL_BYTES)} limit of a WAL read; not read`);
      const fd = wal.handle.fd;
      let reader: (offset: number, length: number) => Uint8Array;
      if (wal.size <= walInMemory) {
        const whole = Buffer.allocUnsafe(wal.size);
        // Frames appended while it is read are past the size taken: never part of this snapshot.
        walBytes = whole.subarray(0, readAt(fd, whole, wal.size, 0));
        const bytes = walBytes;
        reader = (o, n) => bytes.subarray(o, o + n);
      } else {
        const buf = Buffer.allocUnsafe(FRAME_HEADER + 65536);
        reader = (o, n) => buf.subarray(0, readAt(fd, buf, n, o));
      }
      ({ index, note } = indexWal(reader, walBytes ? walBytes.byteLength : wal.size, mainPageSize));
      if (!index || walBytes) {
        await wal.handle.close().catch(() => undefined);
        if (!index) wal = null;
      }
    }
    // Not a database at all: any page size maps the header's bytes, and the reader refuses them.
    const pageSize = index?.pageSize || mainPageSize || 4096;
    const dbPages = index?.dbPages ?? Math.floor(main.size / pageSize);
    if (dbPages * pageSize > MAX_SQLITE_BYTES) throw new Error(`${file} with its -wal file is ${mb(dbPages * pageSize)}, over the ${mb(MAX_SQLITE_BYTES)} limit of a database read; not read`);
    source = new FileSource(file, main, pageSize, dbPages, index && wal ? { index, handle: walBytes ? null : wal.handle, bytes: walBytes } : null);
    let db: SqliteImage;
    try {
      db = new SqliteImage(source);
      // The schema is read now: a file that is no database fails here, not in a later query; and the
      // main file is checked unmoved since it was opened (a checkpoint while the WAL was read).
      db.tables();
    } catch (err) {
      if (err instanceof SqliteChanged) throw err;
      source.verify();
      throw new Error(`${file} is not a readable SQLite database: ${(err as Error).message}`);
    }
    const opened = source;
    return { db, key, frames: index?.committed ?? 0, ...(note ? { note } : {}), close: () => opened.close() };
  } catch (err) {
    if (source) await source.close();
    else await Promise.all([main.handle.close().catch(() => undefined), wal?.handle.close().catch(() => undefined)]);
    throw err;
  }
}

/** Options of a snapshot (tests choose a smaller size for the WAL read whole). */
export interface SnapshotOptions {
  walInMemory?: number;
}

export const keptChanging = (file: string): Error => new Error(`${file} kept changing while being read; read again on its next change`);

/**
 * A snapshot of `file` and `file-wal`, read with ./sqliteBtree; taken again when a checkpoint wrote the
 * main file while it was being taken, so pages from two states are never mixed. The caller closes it.
 * Throws a one-sentence error naming the file when it cannot be read.
 */
export async function openSqliteSnapshot(file: string, o: SnapshotOptions = {}): Promise<SqliteSnapshot> {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      return await takeSnapshot(file, o.walInMemory ?? WAL_IN_MEMORY_BYTES);
    } catch (err) {
      if (!(err instanceof SqliteChanged)) throw err;
    }
  }
  throw keptChanging(file);
}

/**
 * `read` run on a snapshot of `file`, closed afterwards; done again on a new snapshot when the file
 * changed during the read (up to 3 times, then a one-sentence error).
 */
export async function readSqlite<T>(file: string, read: (db: SqliteImage, snap: SqliteSnapshot) => T, o: SnapshotOptions = {}): Promise<T> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const snap = await openSqliteSnapshot(file, o);
    try {
      return read(snap.db, snap);
    } catch (err) {
      if (!(err instanceof SqliteChanged)) throw err;
    } finally {
      await snap.close();
    }
  }
  throw keptChanging(file);
}
