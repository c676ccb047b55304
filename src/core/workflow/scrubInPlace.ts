/**
 * Masking credentials in an agent's session file in place, byte for byte: each credential's bytes are
 * overwritten at their offsets with as many `*` (positioned writes on the file itself, opened without
 * truncating or appending). No new file and no rename, so the inode, owner, mode, hard links and every
 * line the agent appends meanwhile are kept by construction, and a scrub killed at any point leaves
 * each credential either whole or masked, never a truncated file. The file is handled as bytes:
 * nothing outside a credential is decoded and written back (invalid UTF-8 stays as it was).
 */
import type { Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { detectSecrets } from '../redact';
import { decodeJsonString, jsonStrings } from '../redact/scan';

/** One byte of a mask: valid anywhere inside a JSON string, and read back as a placeholder, never as a credential. */
const STAR = 0x2a;

/** A span of characters of a decoded text, [start, end). */
export interface TextSpan {
  start: number;
  end: number;
}

/**
 * The raw characters of every credential inside the string values of one JSON text (a line of a
 * session log, or a whole task file): escapes included, keys never. Masking exactly these characters
 * with `*` keeps the text valid JSON (a whole escape becomes as many `*`).
 */
export function credentialSpans(text: string): TextSpan[] {
  const out: TextSpan[] = [];
  for (const s of jsonStrings(text)) {
    if (s.key || s.end - s.start < 6) continue;
    const { value, at: raw } = decodeJsonString(text, s.start, s.end);
    let last = 0;
    for (const h of detectSecrets(value)) {
      const start = raw[h.start]!;
      const end = raw[h.end]!;
      if (start < last) continue;
      out.push({ start, end });
      last = end;
    }
  }
  return out;
}

/** Occurrences of `needle` in `hay` that start before `end` (overlapping ones counted). */
function countBefore(hay: string, needle: string, end: number): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1 && i < end; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

/**
 * Where the character spans of `text` (decoded from `bytes`) lie in the bytes: [start, end) byte
 * offsets, or null for a span that cannot be located exactly. Where the bytes hold invalid UTF-8 (read
 * as U+FFFD, of another length), a span is found as the same occurrence of its own bytes instead.
 */
export function byteSpans(bytes: Buffer, text: string, spans: readonly TextSpan[]): (TextSpan | null)[] {
  if (!text.includes('\uFFFD')) {
    let chars = 0;
    let offset = 0;
    return spans.map((s) => {
      offset += Buffer.byteLength(text.slice(chars, s.start));
      const start = offset;
      offset += Buffer.byteLength(text.slice(s.start, s.end));
      chars = s.end;
      return { start, end: offset };
    });
  }
  return spans.map((s) => {
    const raw = text.slice(s.start, s.end);
    if (raw.includes('\uFFFD')) return null;
    const needle = Buffer.from(raw, 'utf8');
    let k = countBefore(text, raw, s.start);
    for (let i = bytes.indexOf(needle); i !== -1; i = bytes.indexOf(needle, i + 1)) if (k-- === 0) return { start: i, end: i + needle.length };
    return null;
  });
}

/** A credential's place in the file: its bytes as read, at `offset`, on `line` (1-based) of the file. */
export interface FileSpan {
  offset: number;
  bytes: Buffer;
  line: number;
}

/** `bytes` with the given spans (offsets relative to `base`) overwritten with `*`: a copy. */
export function withStars(bytes: Buffer, spans: readonly { offset: number; bytes: Buffer }[], base = 0): Buffer {
  const out = Buffer.from(bytes);
  for (const s of spans) out.fill(STAR, s.offset - base, s.offset - base + s.bytes.length);
  return out;
}

/** What a compressed file is, by its name or its first bytes; null for a plain file. */
export function compressionOf(file: string, head: Buffer): string | null {
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 3 && head.toString('latin1', 0, 3) === 'BZh') return 'bzip2';
  if (head.length >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'xz';
  const ext = /\.(zst|gz|bz2|xz|br|lz4)$/i.exec(file)?.[1];
  return ext ? ext.toLowerCase() : null;
}

/** The session file opened for masking: its real path (symbolic links followed), its handle and its state when opened. */
export interface OpenedTarget {
  real: string;
  handle: fs.FileHandle;
  st: Stats;
}

/**
 * Opens the real file behind `file` for positioned reads and writes (`r+`: never truncated, never
 * appended to), or says why it is not masked: not a regular file, written to too recently (unless
 * `force`; `busy` says why that matters and what to do), or compressed.
 */
export async function openTarget(file: string, opts: { force?: boolean; now?: number; quietMs: number; busy: string }): Promise<OpenedTarget | { refused: string }> {
  const real = await fs.realpath(file).catch(() => null);
  const st = real ? await fs.stat(real).catch(() => null) : null;
  if (!real || !st?.isFile()) return { refused: 'not a regular file' };
  const age = (opts.now ?? Date.now()) - st.mtimeMs;
  if (age < opts.quietMs && !opts.force) return { refused: `written to ${Math.max(0, Math.round(age / 1000))} s ago: ${opts.busy}` };
  const handle = await fs.open(real, 'r+');
  try {
    const opened = await handle.stat();
    if (opened.ino !== st.ino || opened.dev !== st.dev) throw new Error('the file was replaced while it was opened; it is left as it was (try again)');
    const head = Buffer.alloc(6);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const packed = compressionOf(real, head.subarray(0, bytesRead));
    if (packed) {
      await handle.close();
      return { refused: `compressed (${packed}): its bytes are not the text, so a credential in it cannot be masked in place, and the scrub never writes a new file in its place; it is left as it was` };
    }
    return { real, handle, st: opened };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

/** True while `real` is still the file the handle has open (the agent did not save a new one in its place). */
export async function stillTheFile(t: OpenedTarget): Promise<boolean> {
  const now = await fs.stat(t.real).catch(() => null);
  return !!now && now.ino === t.st.ino && now.dev === t.st.dev;
}

/**
 * Overwrites each span with `*`, one positioned write per span, after reading its bytes again: a span
 * whose bytes no longer hold what was read (the file was rewritten meanwhile) is left as it is. The
 * writes are flushed to disk before this returns. Returns the spans masked and how many were left.
 */
export async function maskSpans(handle: fs.FileHandle, spans: readonly FileSpan[]): Promise<{ masked: FileSpan[]; changed: number }> {
  const masked: FileSpan[] = [];
  let changed = 0;
  for (const s of spans) {
    const now = Buffer.alloc(s.bytes.length);
    const { bytesRead } = await handle.read(now, 0, now.length, s.offset);
    if (bytesRead !== now.length || !now.equals(s.bytes)) {
      changed++;
      continue;
    }
    await handle.write(Buffer.alloc(now.length, STAR), 0, now.length, s.offset);
    masked.push(s);
  }
  if (masked.length) await handle.sync();
  return { masked, changed };
}

/** The hidden copy an earlier version of the scrub wrote beside a file (`.<name>.scrub-<pid>.tmp`). */
const isLeftover = (name: string, base: string): boolean => name.startsWith(`.${base}.scrub-`) && name.endsWith('.tmp') && /^\d+$/.test(name.slice(base.length + 8, -4));

/**
 * Removes the hidden copies earlier versions of the scrub left beside a file (and beside its real
 * target) when they were killed between writing the copy and renaming it. Returns how many.
 */
export async function removeLeftovers(file: string, real: string): Promise<number> {
  let removed = 0;
  for (const f of new Set([file, real])) {
    const dir = path.dirname(f);
    const base = path.basename(f);
    for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
      if (!isLeftover(name, base)) continue;
      const st = await fs.lstat(path.join(dir, name)).catch(() => null);
      if (!st?.isFile()) continue;
      await fs.rm(path.join(dir, name), { force: true });
      removed++;
    }
  }
  return removed;
}
