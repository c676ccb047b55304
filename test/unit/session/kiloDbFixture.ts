import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { fixturePath, makeTempDir } from '../helpers/fixtures';

/**
 * sql.js (SQLite in WebAssembly, a development dependency): the tests write databases with the real
 * SQLite engine, and the product reads them with its own reader.
 */
export function loadSqlJs(): ReturnType<typeof initSqlJs> {
  return initSqlJs();
}

/** The shared fixture's session starts at 2026-11-22T10:00Z; its newest message is 22 s later. */
export const KILO_T0 = 1795425600000;
const NEWEST = KILO_T0 + 22000;

/**
 * The shared `kilo-db` fixture with `__CWD__` set to `folder` (rewritten in a copy, as its README says),
 * written to `<into>/kilo.db` (a new temp folder by default). `now` moves every row's time so the
 * newest message is that moment (discovery keeps only recent sessions). Returns the database's path.
 */
export async function placeKiloDb(folder: string, o: { into?: string; now?: number } = {}): Promise<string> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(readFileSync(fixturePath('vscode-agents', 'kilo-db', 'kilo.db')));
  db.run("UPDATE session SET directory = replace(directory, '__CWD__', ?)", [folder]);
  db.run("UPDATE project SET worktree = replace(worktree, '__CWD__', ?)", [folder]);
  db.run("UPDATE message SET data = replace(data, '__CWD__', ?)", [folder]);
  db.run("UPDATE part SET data = replace(data, '__CWD__', ?)", [folder]);
  if (o.now !== undefined) {
    const shift = o.now - NEWEST;
    for (const table of ['session', 'message', 'part', 'todo']) db.run(`UPDATE ${table} SET time_created = time_created + ?, time_updated = time_updated + ?`, [shift, shift]);
  }
  const dir = o.into ?? (await makeTempDir('handoff-kilo-'));
  await fs.mkdir(dir, { recursive: true });
  const out = path.join(dir, 'kilo.db');
  await fs.writeFile(out, db.export());
  db.close();
  return out;
}
