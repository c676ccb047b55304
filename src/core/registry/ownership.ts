import { createHash } from 'node:crypto';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Which packets this tool wrote on this machine. A packet folder can arrive with a clone, a copied
 * working tree or an archive; what cannot is the repository's own git dir, which git never copies. So
 * every packet written (or found byte-identical to what would be written) is recorded there by the
 * hash of its `handoff.json`, and only a recorded packet may hand the next session instructions.
 */

/** The ledger inside the git dir: one sha256 per line, appended. */
export const OWN_PACKETS_FILE = path.join('session-handoff', 'own-packets');
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

const APPEND = fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | (fsConstants.O_NOFOLLOW ?? 0);

/** Records a packet as written here. Never throws: an unrecorded packet is merely not trusted later. */
export async function recordOwnPacket(packetDir: string, json: string | Uint8Array): Promise<void> {
  try {
    const gitDir = await gitDirOf(packetDir);
    if (!gitDir) return;
    const file = path.join(gitDir, OWN_PACKETS_FILE);
    const hash = packetHash(json);
    const known = await readLedger(file);
    if (known.includes(hash)) return;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const handle = await fs.open(file, APPEND, 0o600);
    try {
      await handle.write(`${hash}\n`);
      if ((await handle.stat()).size > MAX_LEDGER_BYTES) {
        const lines = [...known, hash].slice(-KEEP_LINES);
        const tmp = `${file}.${process.pid}.tmp`;
        await fs.writeFile(tmp, `${lines.join('\n')}\n`, { mode: 0o600, flag: 'wx' });
        await fs.rename(tmp, file);
      }
    } finally {
      await handle.close();
    }
  } catch {
    // Recording is best effort; the packet itself is already written.
  }
}

async function readLedger(file: string): Promise<string[]> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0) | (fsConstants.O_NONBLOCK ?? 0)).catch(() => null);
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

/** Whether this machine's tool wrote a packet with exactly these `handoff.json` bytes in this repository. */
export async function isOwnPacket(packetDir: string, sha256: string): Promise<boolean> {
  const gitDir = await gitDirOf(packetDir).catch(() => null);
  if (!gitDir) return false;
  return (await readLedger(path.join(gitDir, OWN_PACKETS_FILE)).catch((): string[] => [])).includes(sha256);
}
