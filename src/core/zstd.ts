import { Decompress } from 'fzstd';
import { openRegular } from './fsx';

/** How much compressed input is decoded at a time: the decoded output of one step is handed out before the next. */
const STEP = 64 * 1024;

/** The largest window decoded: zstd's up to level 19 (8 MiB); a frame asking for more is refused before its window is made. */
export const MAX_WINDOW = 8 * 1024 * 1024;
/** Decoded bytes allowed: this many, plus `MAX_RATIO` per compressed byte (text compresses far less than that). */
export const DECODED_BASE = 256 * 1024 * 1024;
export const MAX_RATIO = 1024;
/**
 * The decoder's work allowed, counted as each block's window plus its output (the decoder moves its whole
 * window along for every block): this much, plus `WORK_RATIO` per compressed byte. A compressor fills
 * 128 KiB blocks, so a real file costs at most 64 window bytes per decoded byte; a file of tiny blocks in
 * a big window is refused before it is decoded.
 */
export const WORK_BASE = 2 * 1024 * 1024 * 1024;
export const WORK_RATIO = 4096;

/** True for a Codex rollout compressed in place (`rollout-….jsonl.zst`). */
export function isZst(file: string): boolean {
  return file.endsWith('.zst');
}

/** The outcome of streaming a compressed file: how many compressed bytes were read, and whether the reader stopped early. */
export interface ZstStream {
  /** Compressed bytes read from disk. */
  bytesRead: number;
  /** Bytes handed to `onData` (the decompressed text read). */
  decodedBytes: number;
  /** True when `onData` asked to stop before the end. */
  stopped: boolean;
}

/** A refusal of the frame walker: where, and why. */
class Refused extends Error {}

/**
 * Walks the frames and block headers of the compressed bytes ahead of the decoder (a block's header gives
 * its size without decoding it), so a frame whose window is over `MAX_WINDOW`, or blocks that would
 * decode past the budgets, are refused before the decoder is handed them. Skippable frames are stepped
 * over; bytes that are not a frame are left for the decoder to reject.
 */
export class ZstWalker {
  /** Decoded bytes the blocks walked so far declare (a compressed block counts as its most). */
  decoded = 0;
  /** Window bytes moved plus bytes decoded, for the blocks walked so far. */
  work = 0;
  blocks = 0;
  private pos = 0;
  private carry: Buffer = Buffer.alloc(0);
  private skip = 0;
  private inFrame = false;
  private window = 0;
  private checksum = false;
  private lost = false;

  /** Walks `chunk` (the next compressed bytes); throws a located refusal when a budget is passed. */
  feed(chunk: Buffer, compressedSoFar: number): void {
    if (this.lost) return;
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    let at = 0;
    const decodedCap = DECODED_BASE + MAX_RATIO * compressedSoFar;
    const workCap = WORK_BASE + WORK_RATIO * compressedSoFar;
    for (;;) {
      if (this.skip) {
        const n = Math.min(this.skip, buf.length - at);
        at += n;
        this.skip -= n;
        if (this.skip) break;
      }
      const left = buf.length - at;
      if (!this.inFrame) {
        if (left < 8) break;
        const magic = buf.readUInt32LE(at);
        if ((magic & 0xfffffff0) === 0x184d2a50) {
          this.skip = 8 + buf.readUInt32LE(at + 4);
          continue;
        }
        if (magic !== 0xfd2fb528) {
          this.lost = true;
          break;
        }
        const fhd = buf.readUInt8(at + 4);
        const single = (fhd >> 5) & 1;
        const fcf = fhd >> 6;
        const dictBytes = (fhd & 3) === 3 ? 4 : fhd & 3;
        const fcsBytes = fcf ? 1 << fcf : single;
        const size = 5 + (single ? 0 : 1) + dictBytes + fcsBytes;
        if (left < size) break;
        let window: number;
        if (single) {
          const o = at + 5 + dictBytes;
          window = fcsBytes === 1 ? buf.readUInt8(o) : fcsBytes === 2 ? buf.readUInt16LE(o) + 256 : fcsBytes === 4 ? buf.readUInt32LE(o) : buf.readUInt32LE(o) + buf.readUInt32LE(o + 4) * 2 ** 32;
        } else {
          const wd = buf.readUInt8(at + 5);
          const base = 2 ** (10 + (wd >> 3));
          window = base + (base / 8) * (wd & 7);
        }
        if (window > MAX_WINDOW) {
          throw new Refused(`compressed byte ${this.pos + at}: a frame asks for a ${mib(window)} window, over the ${mib(MAX_WINDOW)} decoded; not decoded (a decompression bomb or an archive not written by Codex)`);
        }
        this.window = window;
        this.checksum = ((fhd >> 2) & 1) === 1;
        this.inFrame = true;
        at += size;
        continue;
      }
      if (left < 3) break;
      const header = buf.readUIntLE(at, 3);
      const last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      const out = type === 2 ? Math.min(128 * 1024, this.window) : size;
      this.blocks++;
      this.decoded += out;
      this.work += this.window + out;
      if (this.decoded > decodedCap) {
        throw new Refused(`compressed byte ${this.pos + at}: decodes to over ${mib(decodedCap)} from ${mib(compressedSoFar)} compressed; not decoded further (a decompression bomb?)`);
      }
      if (this.work > workCap) {
        throw new Refused(`compressed byte ${this.pos + at}: ${this.blocks} blocks in a ${mib(this.window)} window cost the decoder over ${mib(workCap)} of work for ${mib(compressedSoFar)} compressed; not decoded further (a decompression bomb?)`);
      }
      at += 3;
      this.skip = type === 1 ? 1 : size;
      if (last) {
        this.inFrame = false;
        this.skip += this.checksum ? 4 : 0;
      }
    }
    this.pos += at;
    this.carry = Buffer.from(buf.subarray(at));
  }
}

const mib = (n: number): string => (n >= 1024 * 1024 ? `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB` : `${Math.round((n / 1024) * 10) / 10} KiB`);

/**
 * Decompresses a zstd file as a stream, handing each decoded piece to `onData` in order (a piece is
 * a copy the callee may keep). Memory stays bounded by the decoder's window and one step of output:
 * the file is never held whole. `onData` returns true to stop early (a head read). Every frame of
 * the file is decoded (frames may be concatenated). Throws with the file's name when the file is not
 * zstd data or ends inside a frame, and before decoding when a frame's window or the decoded bytes or
 * the decoder's work would pass their budgets (`MAX_WINDOW`, `DECODED_BASE`, `WORK_BASE`); resolves to null when it is missing or not a regular file.
 */
export async function streamZst(file: string, onData: (piece: Buffer) => boolean | void): Promise<ZstStream | null> {
  const opened = await openRegular(file);
  if (!opened.ok) return null;
  const { handle } = opened.file;
  const out: ZstStream = { bytesRead: 0, decodedBytes: 0, stopped: false };
  const walker = new ZstWalker();
  // An error of the callee is its own, not the decoder's: kept and thrown as it is.
  let calleeError: { error: unknown } | null = null;
  const decoder = new Decompress((data) => {
    if (out.stopped || !data.length) return;
    out.decodedBytes += data.length;
    try {
      // The decoder may reuse its buffer: the piece is copied before anyone keeps a slice of it.
      if (onData(Buffer.from(data))) out.stopped = true;
    } catch (error) {
      calleeError = { error };
      out.stopped = true;
    }
  });
  try {
    let pos = 0;
    for (;;) {
      // A fresh buffer each step: the decoder keeps the unfinished end of a block it was given.
      const buf = Buffer.allocUnsafe(STEP);
      const { bytesRead } = await handle.read(buf, 0, STEP, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      out.bytesRead += bytesRead;
      walker.feed(buf.subarray(0, bytesRead), out.bytesRead);
      decoder.push(buf.subarray(0, bytesRead));
      if (calleeError) throw (calleeError as { error: unknown }).error;
      if (out.stopped) return out;
    }
    decoder.push(new Uint8Array(0), true);
    if (calleeError) throw (calleeError as { error: unknown }).error;
    return out;
  } catch (err) {
    if (calleeError) throw (calleeError as { error: unknown }).error;
    if (out.stopped) return out;
    if (err instanceof Refused) throw new Error(`${file}: ${err.message}`);
    throw new Error(`${file}: not readable as zstd at compressed byte ${out.bytesRead} (${(err as Error).message || 'invalid data'})`);
  } finally {
    await handle.close();
  }
}
