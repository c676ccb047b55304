/**
 * Damaged SQLite images written by hand (4 KiB pages): one table `t (data blob)` whose `rows` rows all
 * point at one overflow chain of `chainPages` pages, as a damaged or crafted `kilo.db` may. Every row
 * claims the whole chain: a reader that follows each row's chain reads it `rows` times.
 * With `reuseCell`, the leaf's cell pointers all point at its first cell instead.
 */
const PAGE = 4096;

function varintBytes(v: number): number[] {
  const out: number[] = [];
  let x = v;
  do {
    out.unshift(x & 0x7f);
    x = Math.floor(x / 128);
  } while (x > 0);
  for (let i = 0; i < out.length - 1; i++) out[i] = (out[i] as number) | 0x80;
  return out;
}

/** Writes a b-tree page header and cells (content packed from the page's end) into `page`. */
function btreePage(page: Buffer, at: number, type: number, cells: number[][], rightmost = 0, pointers?: number[]): void {
  let end = PAGE;
  const offsets = cells.map((c) => {
    end -= c.length;
    page.set(c, end);
    return end;
  });
  const ptrs = pointers ?? offsets;
  page[at] = type;
  page.writeUInt16BE(ptrs.length, at + 3);
  page.writeUInt16BE(end, at + 5);
  const head = type === 5 ? 12 : 8;
  if (type === 5) page.writeUInt32BE(rightmost, at + 8);
  ptrs.forEach((o, i) => page.writeUInt16BE(o, at + head + 2 * i));
}

export function sharedChainDb(rows: number, chainPages: number, o: { reuseCell?: boolean } = {}): Buffer {
  const perLeaf = 7;
  const leaves = Math.ceil(rows / perLeaf);
  const interior = leaves > 1;
  const firstLeaf = interior ? 3 : 2;
  const firstChain = firstLeaf + leaves;
  const total = firstChain + chainPages - 1;
  const db = Buffer.alloc(total * PAGE);
  const page = (n: number) => db.subarray((n - 1) * PAGE, n * PAGE);
  db.write('SQLite format 3\0', 0, 'latin1');
  db.writeUInt16BE(PAGE, 16);
  db[18] = 1;
  db[19] = 1;
  db[21] = 64;
  db[22] = 32;
  db[23] = 32;
  db.writeUInt32BE(total, 28);
  db.writeUInt32BE(4, 44);
  db.writeUInt32BE(1, 56);
  // The schema: one table, rooted at page 2.
  const sql = Buffer.from('CREATE TABLE t (data blob)');
  const values = [Buffer.from('table'), Buffer.from('t'), Buffer.from('t')];
  const types = [...values.map((v) => 2 * v.length + 13), 1, 2 * sql.length + 13];
  const header = types.flatMap(varintBytes);
  const record = [header.length + 1, ...header, ...values.flatMap((v) => [...v]), 2, ...sql];
  btreePage(page(1), 100, 13, [[...varintBytes(record.length), 1, ...record]]);
  // Each row: a blob whose payload spills into the one chain (the local part is `m` bytes exactly).
  const usable = PAGE;
  const m = Math.floor(((usable - 12) * 32) / 255) - 23;
  const size = m + chainPages * (usable - 4);
  let h = 2;
  while (1 + varintBytes(2 * (size - h) + 12).length !== h) h++;
  const local = [h, ...varintBytes(2 * (size - h) + 12)];
  while (local.length < m) local.push(0x61);
  const cell = (rowid: number) => [...varintBytes(size), ...varintBytes(rowid), ...local, ...[0, 0, 0, 0].map((_, i) => (firstChain >>> (8 * (3 - i))) & 0xff)];
  for (let l = 0; l < leaves; l++) {
    const ids = Array.from({ length: Math.min(perLeaf, rows - l * perLeaf) }, (_, i) => l * perLeaf + i + 1);
    const cells = ids.map(cell);
    const first = PAGE - (cells[0] as number[]).length;
    btreePage(page(firstLeaf + l), 0, 13, cells, 0, o.reuseCell ? ids.map(() => first) : undefined);
  }
  if (interior) {
    const cells = Array.from({ length: leaves - 1 }, (_, l) => [...[0, 0, 0, 0].map((_, i) => ((firstLeaf + l) >>> (8 * (3 - i))) & 0xff), ...varintBytes((l + 1) * perLeaf)]);
    btreePage(page(2), 0, 5, cells, firstLeaf + leaves - 1);
  }
  for (let c = 0; c < chainPages; c++) {
    const p = page(firstChain + c);
    p.writeUInt32BE(c === chainPages - 1 ? 0 : firstChain + c + 1, 0);
    p.fill(0x62, 4);
  }
  return db;
}
