import type { Dirent, Stats } from 'node:fs';
// Named imports only: a namespace import of node:fs would copy the whole module at start-up.
import {
  closeSync, constants as fsConstants, createReadStream, fstatSync, fsyncSync, lstatSync, openSync, promises as fsp,
  readdirSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { realInside } from './ownLog';
import type { Redacted } from './redact';
import { makeDir, makeDirSync } from './safeDirs';

/** An open file, as the readers and writers here use it (the subset of `fs.promises.FileHandle`). */
export interface FileHandle {
  /** The descriptor, for synchronous positioned reads (a database's pages, ./session/sqliteSnapshot). */
  readonly fd: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<Stats>;
  writeFile(data: string | Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
  createReadStream(options: { highWaterMark: number }): AsyncIterable<Buffer>;
}

/** The file operations of the readers and writers here, shaped like `fs.promises`. */
export interface FileAccess {
  stat(file: string): Promise<Stats>;
  lstat(file: string): Promise<Stats>;
  realpath(file: string): Promise<string>;
  readdir(dir: string): Promise<Dirent[]>;
  open(file: string, flags: string | number, mode?: number): Promise<FileHandle>;
  mkdir(dir: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(file: string): Promise<void>;
}

/** The real asynchronous operations: what the extension host and every long-lived caller use. */
const nonBlocking: FileAccess = {
  stat: (f) => fsp.stat(f),
  lstat: (f) => fsp.lstat(f),
  realpath: (f) => fsp.realpath(f),
  readdir: (d) => fsp.readdir(d, { withFileTypes: true }),
  open: (f, flags, mode) => fsp.open(f, flags, mode),
  mkdir: (d) => makeDir(d),
  rename: (a, b) => fsp.rename(a, b),
  rm: (f) => fsp.rm(f, { force: true }),
};

/**
 * The same operations done synchronously behind the same promises: no thread-pool round trip per call.
 * Only for a one-shot process that blocks nobody while it waits (see {@link useBlockingFileAccess}).
 */
const blocking: FileAccess = {
  stat: async (f) => statSync(f),
  lstat: async (f) => lstatSync(f),
  realpath: async (f) => realpathSync(f),
  readdir: async (d) => readdirSync(d, { withFileTypes: true }),
  open: async (f, flags, mode) => {
    const fd = openSync(f, flags, mode);
    return {
      fd,
      read: async (buffer, offset, length, position) => ({ bytesRead: readSync(fd, buffer, offset, length, position) }),
      stat: async () => fstatSync(fd),
      writeFile: async (data) => writeFileSync(fd, data),
      sync: async () => fsyncSync(fd),
      close: async () => closeSync(fd),
      // The caller closes the descriptor (never the stream: a second close could hit a reused number).
      createReadStream: ({ highWaterMark }) => createReadStream('', { fd, highWaterMark, autoClose: false }),
    };
  },
  mkdir: async (d) => makeDirSync(d),
  rename: async (a, b) => renameSync(a, b),
  rm: async (f) => rmSync(f, { force: true }),
};

let access: FileAccess = nonBlocking;

/** The file operations in effect: asynchronous unless the process chose blocking ones. */
export function files(): FileAccess {
  return access;
}

/**
 * Switches this process to blocking file operations. The statusline runs as a fresh process after every
 * agent message and waits on nothing but its own few reads and writes: each asynchronous call would cost
 * a thread-pool round trip and the pool's start-up, most of its run time. Never for the extension host.
 * `false` switches back.
 */
export function useBlockingFileAccess(on = true): void {
  access = on ? blocking : nonBlocking;
}

/** Whether this process chose blocking file operations (see {@link useBlockingFileAccess}). */
export function usesBlockingFileAccess(): boolean {
  return access === blocking;
}

/** Distinguishes the temp files of one process; the pid distinguishes processes. */
let tmpCounter = 0;

/**
 * Why a file cannot be written where it is named: it is a symbolic link (never written through, nor
 * replaced), a FIFO, a device, a socket or a folder; or (with `root`) its folder really lies outside the
 * root. Null when the name is free or a regular file.
 */
export async function unwritableReason(file: string, root?: string): Promise<string | null> {
  const dir = path.dirname(file);
  if (root !== undefined && !(await realInside(dir, root))) return `${file} is in ${dir}, which leads outside ${root} (a symbolic link); not written, nothing changed`;
  const st = await files().lstat(file).catch(() => null);
  if (st && !st.isFile()) return `${file} is ${kindOf(st)}, not a regular file; not written, nothing changed`;
  return null;
}

/**
 * Writes a file atomically: a temp file in the same folder, fsync, then rename over the target.
 * A reader never sees a torn file, and a crash leaves the old content in place. Text must be
 * {@link Redacted}: every file the tool writes is an output. `durable: false` skips the fsync, for a
 * file rewritten every few seconds whose loss in a crash costs nothing. THE write path of every file
 * the tool writes whole: a symbolic link, FIFO, device or folder in the file's place is refused with a
 * message naming it (never followed, never replaced), and with `root` a folder that really lies outside
 * the root is refused before anything is created there.
 */
export async function atomicWrite(file: string, content: Redacted | Uint8Array, opts: { durable?: boolean; root?: string; mode?: number } = {}): Promise<void> {
  const refused = await unwritableReason(file, opts.root);
  if (refused) throw new Error(refused);
  await files().mkdir(path.dirname(file));
  // Unique without the crypto module (the statusline writes through here after every message).
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}${(tmpCounter++).toString(36)}.tmp`);
  // `wx` (O_CREAT|O_EXCL): a name already taken, a symlink planted in the folder too, fails instead of being written through.
  const handle = await files().open(tmp, 'wx', opts.mode);
  try {
    await handle.writeFile(content);
    if (opts.durable !== false) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // Checked again just before: rename never follows a link, but it would replace one put there meanwhile.
    const late = await unwritableReason(file, opts.root);
    if (late) throw new Error(late);
    await files().rename(tmp, file);
  } catch (err) {
    await files().rm(tmp);
    throw err;
  }
}

/** The tool's own small files (packets, sidecars) are never near this; anything bigger is not ours. */
export const MAX_OWN_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Reads one of the tool's own files as UTF-8, or returns null when it does not exist. A FIFO, device
 * or oversized file in its place throws a one-sentence error naming the file, instead of hanging.
 */
export async function readIfExists(file: string, opts: OpenOptions = {}): Promise<string | null> {
  const r = await readRegular(file, { ...opts, maxBytes: MAX_OWN_FILE_BYTES });
  if (r.ok) return r.bytes.toString('utf8');
  if (r.refusal.kind === 'missing') return null;
  throw new Error(`${file} ${r.refusal.message}`);
}

/** Why a file was not read. `missing` is not a problem by itself; the others are, and say why. */
export type OpenRefusal = { kind: 'missing' } | { kind: 'refused'; message: string };

export interface OpenOptions {
  /**
   * The folder the file must really lie in. A path whose real location (symlinks resolved) leaves it is
   * refused without being opened, so neither its bytes nor its target show up anywhere.
   */
  root?: string;
  /**
   * The caller found the file's folder in `root` as a real folder (listed there as a folder, not a
   * link), so only the file itself could lead out: it is opened without following a link (O_NOFOLLOW)
   * instead of resolving two real paths first. A link, or any other failure of that open, takes the
   * full check, so what is refused and why stays the same.
   */
  folderInRoot?: boolean;
}

/** A regular file opened for reading, with the size `fstat` saw at open time. */
export interface OpenedFile {
  handle: FileHandle;
  size: number;
  mtimeMs: number;
  ino: number;
}

// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; undefined on Windows,
// where FIFOs cannot sit in a folder anyway.
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

/** What a non-regular file is, in words for a message. */
function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** True when `abs` is `root` or inside it (both already absolute and real). */
function within(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

const refusedFor = (message: string) => ({ ok: false as const, refusal: { kind: 'refused' as const, message } });

/**
 * Opens a file for reading only when it is a regular file: FIFOs, devices, sockets and folders are
 * refused with a message instead of blocking or streaming forever, and (with `root`) a path whose real
 * location leaves the root is refused before it is opened. The caller closes the handle.
 */
export async function openRegular(abs: string, opts: OpenOptions = {}): Promise<{ ok: true; file: OpenedFile } | { ok: false; refusal: OpenRefusal }> {
  if (opts.root !== undefined && opts.folderInRoot && fsConstants.O_NOFOLLOW !== undefined) {
    const direct = await files().open(abs, OPEN_FLAGS | fsConstants.O_NOFOLLOW).then(
      (handle) => handle,
      (err: unknown) => ((err as NodeJS.ErrnoException).code === 'ENOENT' ? ('missing' as const) : null),
    );
    if (direct === 'missing') return { ok: false, refusal: { kind: 'missing' } };
    if (direct) return regularOf(direct);
  }
  let lst: Stats;
  try {
    lst = await files().lstat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, refusal: { kind: 'missing' } };
    return refusedFor(`cannot be read: ${errorText(err)}`);
  }
  if (opts.root !== undefined) {
    const [realRoot, real] = await Promise.all([files().realpath(opts.root).catch(() => path.resolve(opts.root!)), files().realpath(abs).catch(() => null)]);
    if (real === null) return refusedFor(lst.isSymbolicLink() ? 'is a symbolic link to nothing; skipped' : 'cannot be resolved; skipped');
    // The target is not named: where a link points is the link author's choice of words, not ours.
    if (!within(realRoot, real)) return refusedFor('is a symbolic link that leads outside the workspace; not followed');
  }
  let handle: FileHandle;
  try {
    handle = await files().open(abs, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, refusal: { kind: 'missing' } };
    // ENXIO: a socket (or a FIFO opened for writing elsewhere) cannot be opened as a file.
    if (code === 'ENXIO') return refusedFor('is a socket, not a regular file; not read');
    return refusedFor(`cannot be read: ${errorText(err)}`);
  }
  return regularOf(handle);
}

/** The opened file when it is a regular one; anything else is closed and refused. */
async function regularOf(handle: FileHandle): Promise<{ ok: true; file: OpenedFile } | { ok: false; refusal: OpenRefusal }> {
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      return refusedFor(`is ${kindOf(st)}, not a regular file; not read`);
    }
    return { ok: true, file: { handle, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } };
  } catch (err) {
    await handle.close().catch(() => undefined);
    return refusedFor(`cannot be read: ${errorText(err)}`);
  }
}

/**
 * Reads a whole regular file (see `openRegular`), at most `maxBytes` of it: a file that grows past the
 * cap while being read is refused rather than read without end.
 */
export async function readRegular(
  abs: string,
  opts: OpenOptions & { maxBytes: number },
): Promise<{ ok: true; bytes: Buffer; mtimeMs: number } | { ok: false; refusal: OpenRefusal }> {
  const opened = await openRegular(abs, opts);
  if (!opened.ok) return opened;
  const { handle, size, mtimeMs } = opened.file;
  const tooBig = () => ({ ok: false as const, refusal: { kind: 'refused' as const, message: `is ${mb(Math.max(size, opts.maxBytes + 1))}, over the ${mb(opts.maxBytes)} limit; skipped` } });
  try {
    if (size > opts.maxBytes) return tooBig();
    const chunks: Buffer[] = [];
    let total = 0;
    // The size fstat saw and one byte more (which tells a file that grew); after a short read, which
    // reached the end as it was, only a byte to see whether that end still holds: thousands of small
    // files read in a row then allocate little more than their own bytes.
    let want = size + 1;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(want, 1024 * 1024, opts.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > opts.maxBytes) return tooBig();
      chunks.push(buf.subarray(0, bytesRead));
      want = bytesRead < buf.length ? 1 : 64 * 1024;
    }
    return { ok: true, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total), mtimeMs };
  } catch (err) {
    return { ok: false, refusal: { kind: 'refused', message: `cannot be read: ${errorText(err)}` } };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A file's size for a message: `300.0 MB`, `512 KB`. */
export function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1048576).toFixed(1).replace(/\.0$/, '')} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** A Node error as words: the message already names the code and, for I/O, the path we gave it. */
function errorText(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

/** The file's stats, or null when it cannot be stat'ed (missing, unreadable). */
export async function statOrNull(p: string): Promise<Stats | null> {
  try {
    return await fsp.stat(p);
  } catch {
    return null;
  }
}

/** The names in a folder, or none when it cannot be listed (missing, not a folder, unreadable). */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch {
    // Stryker disable next-line ArrayDeclaration: a stand-in name never becomes a candidate: logs are kept by their suffix, and a dir by that name lists nothing
    return [];
  }
}
