/**
 * A small read-only reader of SQLite's file format (sqlite.org/fileformat2.html) for one purpose: the
 * rows of a few ordinary tables of a database image (Kilo Code's `kilo.db`), its pages read one at a
 * time through a `PageSource`: a buffer in memory, or the file itself with its WAL's committed frames
 * (./sqliteSnapshot), so a large database is never held in memory. It walks table b-trees (interior and leaf pages, overflow chains),
 * decodes records (every serial type), reads the schema from `sqlite_schema` and column names from the
 * `CREATE TABLE` text. No SQL, no indexes, no writing; UTF-8 databases and rowid tables only (others
 * are refused with a message). Everything is bounds-checked: a damaged image throws a one-sentence
 * error, never loops or reads outside the image, and a damaged one costs no more than a sound one:
 * an overflow page shared by two cells, two cell pointers to one cell, a cell larger than the database,
 * or a scan reading more than twice the image's pages is refused.
 */

export type SqliteValue = number | bigint | string | Uint8Array | null;
export type SqliteRow = Record<string, SqliteValue>;

/** A row with some columns decoded, and any other column decoded on demand. */
export interface SqliteRowRef {
  row: SqliteRow;
  get(column: string): SqliteValue;
}

interface TableInfo {
  root: number;
  columns: string[];
  /** The INTEGER PRIMARY KEY column (stored as the rowid), or -1. */
  rowidColumn: number;
}

/**
 * Where the bytes of a database image come from. `read` returns `length` bytes at `offset`, never
 * crossing a page boundary; the buffer is the caller's to keep (it is never changed afterwards).
 * `verify`, when given, throws when what was read since the source was opened may mix two states of the
 * file (it changed under the reader): it is called after each read operation, and after a failed one.
 */
export interface PageSource {
  /** The image's size in bytes (its pages × page size). */
  readonly byteLength: number;
  read(offset: number, length: number): Buffer;
  /**
   * The page at `offset`, read into `into` when it has to be read at all (not cached): for a page
   * looked at once and let go, such as a leaf of a table scan. The result is valid until `into` is
   * reused; it is not cached.
   */
  readInto?(offset: number, into: Buffer): Buffer;
  verify?(): void;
}

/** An image in memory as a page source. */
export function bufferSource(image: Uint8Array): PageSource {
  const buf = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  return { byteLength: buf.byteLength, read: (offset, length) => buf.subarray(offset, offset + length) };
}

/** A SQLite database image, read page by page from its source. */
export class SqliteImage {
  private readonly src: PageSource;
  private readonly pageSize: number;
  /** Usable bytes per page (page size minus the reserved space at the end of each page). */
  private readonly usable: number;
  private readonly pages: number;
  private schema: Map<string, TableInfo> | null = null;
  /** Pages read so far (b-tree and overflow pages): the work a read of this image cost. */
  pagesVisited = 0;
  /** Pages a scan may still read before it is refused (a scan reads each page about once). */
  private budget = Infinity;
  /** The cell (its page and offset) each overflow page read so far belongs to: a page is one cell's. */
  private readonly overflowOwner = new Map<number, number>();
  /** How deep in read operations the reader is: the source is verified when the outermost one ends. */
  private depth = 0;

  constructor(image: Uint8Array | PageSource) {
    this.src = image instanceof Uint8Array ? bufferSource(image) : image;
    const head = this.src.byteLength >= 100 ? this.src.read(0, 100) : null;
    if (!head || head.toString('latin1', 0, 16) !== 'SQLite format 3\0') throw new Error('not a SQLite database (no SQLite header)');
    const size = head.readUInt16BE(16);
    this.pageSize = size === 1 ? 65536 : size;
    if (this.pageSize < 512 || (this.pageSize & (this.pageSize - 1)) !== 0) throw new Error(`not a SQLite database (page size ${size})`);
    this.usable = this.pageSize - (head[20] as number);
    if (this.usable < 480) throw new Error('a damaged SQLite database (reserved space too large)');
    const encoding = head.readUInt32BE(56);
    if (encoding !== 0 && encoding !== 1) throw new Error('a SQLite database in UTF-16, which is not read');
    this.pages = Math.floor(this.src.byteLength / this.pageSize);
  }

  /**
   * Runs `fn` as one read operation: when the outermost one ends (returning or throwing), the source
   * is verified, so no result, and no damage message, comes from pages of two states of a changing file.
   */
  read<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.depth++;
    let out: T;
    try {
      out = fn();
    } catch (err) {
      this.depth--;
      this.src.verify?.();
      throw err;
    }
    this.depth--;
    this.src.verify?.();
    return out;
  }

  /** The ordinary tables by name, with their columns. */
  tables(): Map<string, TableInfo> {
    if (this.schema) return this.schema;
    return this.read(() => this.readSchema());
  }

  private readSchema(): Map<string, TableInfo> {
    const out = new Map<string, TableInfo>();
    this.scanTree(1, (payload) => {
      const [type, name, , root, sql] = this.record(payload, 5);
      if (type !== 'table' || typeof name !== 'string' || typeof sql !== 'string') return;
      const rootPage = typeof root === 'bigint' ? Number(root) : root;
      // Virtual tables have root 0; WITHOUT ROWID tables are index b-trees: neither is read.
      if (typeof rootPage !== 'number' || rootPage < 1 || /\bwithout\s+rowid\b/i.test(sql)) return;
      out.set(name, { root: rootPage, ...createTableColumns(sql) });
    });
    this.schema = out;
    return out;
  }

  /** True when the table exists with every one of these columns. */
  has(table: string, columns: readonly string[] = []): boolean {
    const t = this.tables().get(table);
    return !!t && columns.every((c) => t.columns.includes(c));
  }

  /**
   * The rows of `table` in rowid order, with the named columns. With `where`, only rows whose column
   * equals the value (compared before the other columns are decoded).
   */
  rows(table: string, columns: readonly string[], where?: { column: string; equals: SqliteValue }): SqliteRow[] {
    return this.rowRefs(table, columns, where).map((r) => r.row);
  }

  /** As `rows`, each row keeping what it needs to decode its other columns later (large text only when used). */
  rowRefs(table: string, columns: readonly string[], where?: { column: string; equals: SqliteValue }): SqliteRowRef[] {
    return this.read(() => this.scanRows(table, columns, where));
  }

  private scanRows(table: string, columns: readonly string[], where?: { column: string; equals: SqliteValue }): SqliteRowRef[] {
    const t = this.tables().get(table);
    if (!t) throw new Error(`no table "${table}" in the database`);
    const index = (c: string): number => {
      const i = t.columns.indexOf(c);
      if (i < 0) throw new Error(`no column "${c}" in table "${table}"`);
      return i;
    };
    const wanted = columns.map(index);
    const whereAt = where ? index(where.column) : -1;
    const out: SqliteRowRef[] = [];
    this.scanTree(t.root, (payload, rowid) => {
      const rec = new RecordReader(this, payload);
      const value = (i: number): SqliteValue => (i === t.rowidColumn ? rowid : rec.column(i));
      if (where && value(whereAt) !== where.equals) return;
      const row: SqliteRow = {};
      wanted.forEach((i, k) => (row[columns[k] as string] = value(i)));
      // A row kept for later keeps where its cell is, not its page: a scan holds one page at a time.
      rec.release();
      out.push({ row, get: (c) => value(index(c)) });
    });
    return out;
  }

  /** The bytes of page `n` (1-based), checked. */
  page(n: number): Buffer {
    return this.read(() => this.pageAt(n));
  }

  /** Page `n`; with `into`, read into it when the source can (a page let go before `into` is reused). */
  private pageAt(n: number, into?: Buffer): Buffer {
    if (!Number.isInteger(n) || n < 1 || n > this.pages) throw new Error(`a damaged SQLite database (page ${n} of ${this.pages})`);
    this.pagesVisited++;
    if (--this.budget < 0) throw new Error(`a damaged SQLite database (a scan read over ${2 * this.pages + 64} pages of ${this.pages})`);
    const offset = (n - 1) * this.pageSize;
    return into && this.src.readInto ? this.src.readInto(offset, into) : this.src.read(offset, this.pageSize);
  }

  /** Visits every cell of a table b-tree in rowid order: its payload (overflow resolved on demand) and rowid. */
  private scanTree(root: number, visit: (payload: Payload, rowid: number | bigint) => void): void {
    const outer = this.budget;
    this.budget = Math.min(outer, 2 * this.pages + 64);
    try {
      this.walkTree(root, visit);
    } finally {
      this.budget = outer === Infinity ? Infinity : Math.min(outer, this.budget);
    }
  }

  private walkTree(root: number, visit: (payload: Payload, rowid: number | bigint) => void): void {
    const seen = new Set<number>();
    // Each page of the tree is read into one buffer: a leaf is done with before the next page is read
    // (a row kept from it lets go of its page, ./RecordReader.release), an interior page is copied out
    // as the walk goes on under it. A 1 GiB scan allocated a buffer per page, garbage far faster than
    // it was collected.
    const scratch = Buffer.allocUnsafe(this.pageSize);
    const walk = (n: number, depth: number): void => {
      if (depth > 64 || seen.has(n)) throw new Error('a damaged SQLite database (a b-tree loops)');
      seen.add(n);
      let page = this.pageAt(n, scratch);
      const at = n === 1 ? 100 : 0;
      const type = page[at];
      if (type === 5 && page.buffer === scratch.buffer) page = Buffer.from(page);
      const cells = page.readUInt16BE(at + 3);
      if (type === 5) {
        for (let i = 0; i < cells; i++) walk(page.readUInt32BE(this.cellAt(page, at + 12, i)), depth + 1);
        walk(page.readUInt32BE(at + 8), depth + 1);
      } else if (type === 13) {
        const places = new Set<number>();
        for (let i = 0; i < cells; i++) {
          let p = this.cellAt(page, at + 8, i);
          if (places.has(p)) throw new Error(`a damaged SQLite database (two cells of page ${n} at one place)`);
          places.add(p);
          const [size, a] = varint(page, p);
          const [rowid, b] = varint(page, a);
          p = b;
          visit(this.payload(page, n, p, Number(size)), rowid);
        }
      } else throw new Error(`a damaged SQLite database (page ${n} is not a table b-tree page)`);
    };
    walk(root, 0);
  }

  private cellAt(page: Buffer, pointers: number, i: number): number {
    const p = page.readUInt16BE(pointers + 2 * i);
    if (p >= page.byteLength) throw new Error('a damaged SQLite database (a cell outside its page)');
    return p;
  }

  /** A table leaf cell's payload: the local part, and the overflow chain when it does not fit. */
  private payload(page: Buffer, n: number, at: number, size: number): Payload {
    const u = this.usable;
    const x = u - 35;
    const cell = n * 65536 + at;
    if (size <= x) {
      if (at + size > page.byteLength) throw new Error('a damaged SQLite database (a cell past its page)');
      return { page, pageNo: n, start: at, local: size, size, overflow: 0, cell };
    }
    if (!Number.isSafeInteger(size) || size > this.pages * (u - 4)) throw new Error(`a damaged SQLite database (a cell of ${size} bytes, larger than the database)`);
    const m = Math.floor(((u - 12) * 32) / 255) - 23;
    const k = m + ((size - m) % (u - 4));
    const local = k <= x ? k : m;
    if (at + local + 4 > page.byteLength) throw new Error('a damaged SQLite database (a cell past its page)');
    return { page, pageNo: n, start: at, local, size, overflow: page.readUInt32BE(at + local), cell };
  }

  /** The whole payload of a cell, its overflow pages joined. */
  whole(p: Payload): Buffer {
    return this.read(() => this.joined(p));
  }

  private joined(p: Payload): Buffer {
    const local = p.page ?? this.pageAt(p.pageNo);
    if (!p.overflow) return local.subarray(p.start, p.start + p.size);
    const out = Buffer.allocUnsafe(p.size);
    local.copy(out, 0, p.start, p.start + p.local);
    let filled = p.local;
    let next = p.overflow;
    const seen = new Set<number>();
    while (filled < p.size) {
      if (!next || seen.has(next)) throw new Error('a damaged SQLite database (an overflow chain ends early or loops)');
      seen.add(next);
      const owner = this.overflowOwner.get(next);
      if (owner !== undefined && owner !== p.cell) throw new Error(`a damaged SQLite database (overflow page ${next} belongs to two cells)`);
      this.overflowOwner.set(next, p.cell);
      const page = this.pageAt(next);
      const n = Math.min(this.usable - 4, p.size - filled);
      page.copy(out, filled, 4, 4 + n);
      filled += n;
      next = page.readUInt32BE(0);
    }
    return out;
  }

  /** The first `n` values of a record (the schema table's rows). */
  private record(p: Payload, n: number): SqliteValue[] {
    const r = new RecordReader(this, p);
    return Array.from({ length: n }, (_, i) => r.column(i));
  }
}

/** A cell's payload: `local` bytes at `start` of its page, the rest (when `size` is larger) in overflow pages. */
interface Payload {
  /** The cell's page while it is being scanned; null once released (read again from `pageNo` when needed). */
  page: Buffer | null;
  pageNo: number;
  start: number;
  local: number;
  size: number;
  /** First overflow page, 0 when the payload is all local. */
  overflow: number;
  /** Where the cell is (its page × 65536 + its offset): which cell an overflow page belongs to. */
  cell: number;
}

/** Decodes the columns of one record, reading the overflow pages only when a column reaches them. */
class RecordReader {
  /**
   * Where the record is read from: its page in place (null once released: the page is read again for
   * each later column), or its whole payload once overflow is needed.
   */
  private bytes: Buffer | null;
  private base: number;
  private limit: number;
  private readonly types: number[] = [];
  private readonly offsets: number[] = [];

  constructor(
    private readonly db: SqliteImage,
    private p: Payload,
  ) {
    if (!p.page) throw new Error('a record read from a released cell');
    let bytes: Buffer = p.page;
    this.bytes = bytes;
    this.base = p.start;
    this.limit = p.start + p.local;
    const [headerSize, first] = varint(bytes, this.base);
    const end = Number(headerSize);
    if (end > p.local) bytes = this.loadWhole();
    let at = first - p.start;
    let body = end;
    while (at < end) {
      const [t, next] = varint(bytes, this.base + at);
      at = next - this.base;
      const type = Number(t);
      this.types.push(type);
      this.offsets.push(body);
      body += contentSize(type);
    }
    if (body > p.size) throw new Error('a damaged SQLite database (a record longer than its cell)');
  }

  /** Lets go of the cell's page (kept only when the whole payload was already joined). */
  release(): void {
    if (this.bytes !== this.p.page) return;
    this.bytes = null;
    this.p = { ...this.p, page: null };
  }

  private loadWhole(): Buffer {
    const whole = this.db.whole(this.p);
    this.bytes = whole;
    this.base = 0;
    this.limit = whole.byteLength;
    return whole;
  }

  column(i: number): SqliteValue {
    const type = this.types[i];
    // A row written before an ALTER TABLE ADD COLUMN has fewer columns: the new ones are NULL.
    if (type === undefined || type === 0) return null;
    const size = contentSize(type);
    let b = this.bytes;
    if (this.base + (this.offsets[i] as number) + size > this.limit) b = this.loadWhole();
    else if (!b) b = this.db.page(this.p.pageNo);
    const at = this.base + (this.offsets[i] as number);
    switch (type) {
      case 1:
        return b.readInt8(at);
      case 2:
        return b.readInt16BE(at);
      case 3:
        return b.readIntBE(at, 3);
      case 4:
        return b.readInt32BE(at);
      case 5:
        return b.readIntBE(at, 6);
      case 6: {
        const v = b.readBigInt64BE(at);
        return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      case 7:
        return b.readDoubleBE(at);
      case 8:
        return 0;
      case 9:
        return 1;
      default:
        if (type >= 12 && type % 2 === 0) return Uint8Array.prototype.slice.call(b, at, at + size);
        if (type >= 13) return b.toString('utf8', at, at + size);
        throw new Error(`a damaged SQLite database (serial type ${type})`);
    }
  }
}

/** Bytes a value of this serial type takes in the record body. */
function contentSize(type: number): number {
  if (type < 12) return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][type] ?? 0;
  return Math.floor((type - (type % 2 === 0 ? 12 : 13)) / 2);
}

/** A SQLite varint at `at`: its value and the offset after it. */
export function varint(b: Uint8Array, at: number): [number | bigint, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i];
    if (byte === undefined) throw new Error('a damaged SQLite database (a varint past the end)');
    // Up to 7 bytes fit a double exactly (49 bits); the rare longer ones go through BigInt.
    if (i < 7) {
      v = v * 128 + (byte & 0x7f);
      if (byte < 0x80) return [v, at + i + 1];
    } else {
      let big = BigInt(v) * 128n + BigInt(byte & 0x7f);
      if (byte < 0x80) return [Number(big), at + i + 1];
      const last = b[at + 8];
      if (last === undefined) throw new Error('a damaged SQLite database (a varint past the end)');
      big = BigInt.asIntN(64, big * 256n + BigInt(last));
      return [big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big, at + 9];
    }
  }
  return [v, at + 8];
}

/** Column names (in order) of a `CREATE TABLE` statement, and which one is an INTEGER PRIMARY KEY. */
export function createTableColumns(sql: string): { columns: string[]; rowidColumn: number } {
  const open = sql.indexOf('(');
  const close = sql.lastIndexOf(')');
  if (open < 0 || close <= open) return { columns: [], rowidColumn: -1 };
  const defs: string[] = [];
  let depth = 0;
  let quote = '';
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const c = sql[i] as string;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === '`' || c === "'") quote = c;
    else if (c === '[') quote = ']';
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      defs.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  defs.push(sql.slice(start, close));
  const columns: string[] = [];
  let rowidColumn = -1;
  for (const raw of defs) {
    const d = raw.trim();
    if (!d || /^(?:constraint|primary|unique|check|foreign)\b/i.test(d)) continue;
    const m = /^(?:"((?:[^"]|"")*)"|`((?:[^`]|``)*)`|\[([^\]]*)\]|'((?:[^']|'')*)'|(\S+))/.exec(d);
    if (!m) continue;
    const name = m[1]?.replace(/""/g, '"') ?? m[2]?.replace(/``/g, '`') ?? m[3] ?? m[4]?.replace(/''/g, "'") ?? m[5] ?? '';
    if (/^\S+\s+integer\s+primary\s+key\b/i.test(d.replace(/^(?:"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])/, 'x')) && !/\bdesc\b/i.test(d)) rowidColumn = columns.length;
    columns.push(name);
  }
  return { columns, rowidColumn };
}
