import { Decompress } from 'fzstd';
import { openRegular } from './fsx';

/** How much compressed input is decoded at a time: the decoded output of one step is handed out before the next. */
const STEP = 64 * 1024;

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

/**
 * Decompresses a zstd file as a stream, handing each decoded piece to `onData` in order (a piece is
 * a copy the callee may keep). Memory stays bounded by the decoder's window and one step of output:
 * the file is never held whole. `onData` returns true to stop early (a head read). Every frame of
 * the file is decoded (frames may be concatenated). Throws with the file's name when the file is not
 * zstd data or ends inside a frame; resolves to null when it is missing or not a regular file.
 */
export async function streamZst(file: string, onData: (piece: Buffer) => boolean | void): Promise<ZstStream | null> {
  const opened = await openRegular(file);
  if (!opened.ok) return null;
  const { handle } = opened.file;
  const out: ZstStream = { bytesRead: 0, decodedBytes: 0, stopped: false };
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
    throw new Error(`${file}: not readable as zstd at compressed byte ${out.bytesRead} (${(err as Error).message || 'invalid data'})`);
  } finally {
    await handle.close();
  }
}
