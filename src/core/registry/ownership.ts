import { createHash, createHmac, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { atomicWrite } from '../fsx';
import { realInside, userStateDir } from '../ownLog';
import { makeDir } from '../safeDirs';

/**
 * What this user's own use of the tool on this machine vouches for: the packets it wrote, the risk
 * acknowledgements made here, the workbench files it saw written in this working tree. A packet folder
 * can arrive with a clone, a copied working tree or an archive, and an archive can hold the git dir
 * too, so where a record lies proves nothing. Each record is therefore a keyed hash: HMAC-SHA256 of
 * what it vouches for under a secret of this user's (`ledger.key`, 32 random bytes, `0600` in the
 * user's own state folder, never in a repository). The ledger stays in the git dir (it goes away with
 * the repository); a ledger copied from another machine or user — or written by an earlier version,
 * whose lines were bare hashes — matches nothing here.
 */

/** The ledger inside the git dir: one keyed hash per line, appended. */
export const OWN_PACKETS_FILE = path.join('session-handoff', 'own-packets');
/** The user's secret, in the user's state folder (see `userStateDir`). */
export const LEDGER_KEY_FILE = 'ledger.key';
const KEY_BYTES = 32;

/** What a ledger line vouches for: a packet's `handoff.json`, an acknowledgement, a workbench file's content. */
export type VouchKind = 'packet' | 'ack' | 'input' | 'trust';
/** Past this size the ledger keeps only its newest lines. */
const MAX_LEDGER_BYTES = 512 * 1024;
const KEEP_LINES = 4000;

export function packetHash(json: string | Uint8Array): string {
  return createHash('sha256').update(json).digest('hex');
}

/**
 * The git dir of the repository holding `start`, found the way git finds it: the nearest `.git` upward
 * (a folder with a HEAD file, or a `gitdir:` file of a linked worktree or submodule). Null outside one.
 */
export async function gitDirOf(start: string): Promise<string | null> {
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    const st = await fs.lstat(dotGit).catch(() => null);
    if (st?.isDirectory()) {
      if (await fs.stat(path.join(dotGit, 'HEAD')).then((s) => s.isFile(), () => false)) return dotGit;
    } else if (st?.isFile()) {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(await fs.readFile(dotGit, 'utf8').catch(() => ''));
      if (m?.[1]) return path.resolve(dir, m[1]);
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

// O_NOFOLLOW: a link in the ledger's place fails; O_NONBLOCK: a FIFO there fails (ENXIO) instead of hanging.
const APPEND = fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);
const READ = fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0);

let cachedKey: { file: string; key: Buffer } | null = null;

/**
 * This user's ledger key, created on first use (`create`). Null when there is none, or when it is not
 * a private regular file of this user (a key others can read or replace vouches for nothing).
 */
async function ledgerKey(create: boolean): Promise<Buffer | null> {
  const dir = userStateDir(process.env);
  const file = path.join(dir, LEDGER_KEY_FILE);
  if (cachedKey?.file === file) return cachedKey.key;
  let key = await readKey(file);
  if (!key && create) {
    await makeDir(dir, 0o700).catch(() => undefined);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.writeFile(tmp, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
      // link never replaces: of two processes creating it at once, the first key stays and both use it.
      await fs.link(tmp, file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    } catch {
      // No key: nothing is vouched for, so nothing is trusted later.
    } finally {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
    }
    key = await readKey(file);
  }
  if (key) cachedKey = { file, key };
  return key;
}

/**
 * Why this user's ledger key cannot be used, when a file is in its place but is not a private 32-byte
 * regular file of this user — every packet then reads as not written here, which must be said, not
 * left silent. Null when the key is usable or not made yet (the next `handoff generate` makes it).
 */
export async function ledgerKeyProblem(env: Record<string, string | undefined> = process.env): Promise<string | null> {
  const file = path.join(userStateDir(env), LEDGER_KEY_FILE);
  const st = await fs.lstat(file).catch(() => null);
  if (!st) return null;
  const fix = 'so no packet can be vouched for as written here and every one reads as not written here; remove it (the next handoff generate makes a new one, and packets written before it must be trusted again)';
  if (st.isSymbolicLink()) return `the ledger key ${file} is a symbolic link, ${fix}`;
  if (!st.isFile()) return `the ledger key ${file} is not a file, ${fix}`;
  if (st.size !== KEY_BYTES) return `the ledger key ${file} holds ${st.size} bytes, not ${KEY_BYTES}, ${fix}`;
  if (process.platform !== 'win32' && process.getuid && st.uid !== process.getuid()) return `the ledger key ${file} belongs to another user, ${fix}`;
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) return `the ledger key ${file} can be read or changed by others (mode ${(st.mode & 0o777).toString(8)}), ${fix} — or make it private with chmod 600`;
  if (!(await readKey(file))) return `the ledger key ${file} cannot be read, ${fix}`;
  return null;
}

async function readKey(file: string): Promise<Buffer | null> {
  const handle = await fs.open(file, READ).catch(() => null);
  if (!handle) return null;
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size !== KEY_BYTES) return null;
    if (process.platform !== 'win32' && ((st.mode & 0o077) !== 0 || (process.getuid && st.uid !== process.getuid()))) return null;
    const buf = Buffer.alloc(KEY_BYTES);
    const { bytesRead } = await handle.read(buf, 0, KEY_BYTES, 0);
    return bytesRead === KEY_BYTES ? buf : null;
  } finally {
    await handle.close();
  }
}

/**
 * The ledger line for `digest` (a sha256 hex of what is vouched for) of `kind` in the repository whose
 * git dir is `gitDir`, under this user's key. The git dir's real path is part of it: a line copied to
 * another of this user's repositories vouches for nothing there (a repository moved is vouched for anew
 * by its next `handoff generate`).
 */
async function ledgerLine(key: Buffer, gitDir: string, kind: VouchKind, digest: string): Promise<string> {
  const repo = await fs.realpath(gitDir).catch(() => path.resolve(gitDir));
  return createHmac('sha256', key).update(`${repo}\u0000${kind}\u0000${digest}`).digest('hex');
}

/**
 * Records that this user's own use of the tool here vouches for `digest` (of `kind`), in the ledger of
 * the repository holding `anchorDir`. Never throws: an unrecorded thing is merely not trusted later.
 */
export async function vouch(anchorDir: string, kind: VouchKind, digest: string): Promise<void> {
  try {
    const gitDir = await gitDirOf(anchorDir);
    if (!gitDir) return;
    const key = await ledgerKey(true);
    if (!key) return;
    const file = path.join(gitDir, OWN_PACKETS_FILE);
    const line = await ledgerLine(key, gitDir, kind, digest);
    const known = await readLedger(file);
    if (known.includes(line)) return;
    // The ledger's folder must really lie in the git dir: a link there would carry the line elsewhere.
    if (!(await realInside(path.dirname(file), gitDir))) return;
    await makeDir(path.dirname(file));
    const handle = await fs.open(file, APPEND, 0o600);
    try {
      if (!(await handle.stat()).isFile()) return;
      await handle.write(`${line}\n`);
      if ((await handle.stat()).size > MAX_LEDGER_BYTES) {
        const lines = [...known, line].slice(-KEEP_LINES);
        await atomicWrite(file, Buffer.from(`${lines.join('\n')}\n`), { root: gitDir, mode: 0o600 });
      }
    } finally {
      await handle.close();
    }
  } catch {
    // Recording is best effort; what it vouches for is already written.
  }
}

/** Whether this user's own use of the tool vouched for `digest` (of `kind`) in the repository holding `anchorDir`. */
export async function isVouched(anchorDir: string, kind: VouchKind, digest: string): Promise<boolean> {
  const gitDir = await gitDirOf(anchorDir).catch(() => null);
  if (!gitDir) return false;
  const key = await ledgerKey(false).catch(() => null);
  if (!key) return false;
  const line = await ledgerLine(key, gitDir, kind, digest);
  return (await readLedger(path.join(gitDir, OWN_PACKETS_FILE)).catch((): string[] => [])).includes(line);
}

/** Records a packet as written here (see `vouch`). Never throws. */
export async function recordOwnPacket(packetDir: string, json: string | Uint8Array): Promise<void> {
  await vouch(packetDir, 'packet', packetHash(json));
}

async function readLedger(file: string): Promise<string[]> {
  const handle = await fs.open(file, READ).catch(() => null);
  if (!handle) return [];
  try {
    const st = await handle.stat();
    if (!st.isFile()) return [];
    const size = Math.min(st.size, 2 * MAX_LEDGER_BYTES);
    const buf = Buffer.alloc(size);
    await handle.read(buf, 0, size, st.size - size);
    return buf.toString('latin1').split('\n').filter((l) => /^[0-9a-f]{64}$/.test(l));
  } finally {
    await handle.close();
  }
}

/** Whether this user's tool wrote a packet with exactly these `handoff.json` bytes in this repository. */
export async function isOwnPacket(packetDir: string, sha256: string): Promise<boolean> {
  return isVouched(packetDir, 'packet', sha256);
}
