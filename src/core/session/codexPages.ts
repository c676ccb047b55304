import * as path from 'node:path';
import { codexRolloutIdFromFile } from '../context/codex';
import { isRollout, listCodexRollouts, plainWins } from '../context/discovery';
import type { Head } from '../context/heads';
import { codexHead } from '../context/heads';
import { readAt } from '../context/lineScan';
import { listDir, openRegular } from '../fsx';
import { isZst, streamZst } from '../zstd';
import type { LineHandler } from './lines';
import { LineSplitter } from './lines';

const PAGE_CHUNK = 4 * 1024 * 1024;

/** An older file of a paginated Codex thread and where its part of the thread ends. */
export interface CodexPage {
  file: string;
  /** Lines with this ordinal or a higher one are past the cut (a reverted turn): not the thread's. */
  endOrdinal: number;
}

/** Pages followed at most (a thread reverted this often is not followed further back). */
const MAX_PAGES = 64;

/** The Codex home a rollout sits in (the folder above `sessions/` or `archived_sessions/`), or null. */
function codexHomeOf(file: string): string | null {
  for (let d = path.dirname(path.resolve(file)); path.dirname(d) !== d; d = path.dirname(d)) {
    const name = path.basename(d);
    if (name === 'sessions' || name === 'archived_sessions') return path.dirname(d);
  }
  return null;
}

/**
 * The older pages of the thread a Codex rollout belongs to, oldest first (FORMATS.md, Late 2026, L2.7):
 * while a page's `session_meta.history_base` names a predecessor, the rollout whose id is that name
 * (in `sessions/` or `archived_sessions/`, plain or compressed) continues the chain, cut at
 * `end_ordinal_exclusive`. `missing` names a predecessor that was not found (the chain stops there).
 */
export async function codexPredecessors(file: string): Promise<{ pages: CodexPage[]; missing: string | null }> {
  const pages: CodexPage[] = [];
  const seen = new Set([path.resolve(file)]);
  // A head that cannot be read (a torn compressed file) points nowhere.
  const headOf = (f: string) => codexHead(f).catch(() => ({}) as Head);
  let base = (await headOf(file)).historyBase;
  let all: string[] | null = null;
  while (base && pages.length < MAX_PAGES) {
    if (!all) {
      const home = codexHomeOf(file);
      const dir = path.dirname(path.resolve(file));
      all = home ? await listCodexRollouts(home) : plainWins((await listDir(dir)).filter(isRollout).map((n) => path.join(dir, n)));
    }
    const wanted = base.rolloutId;
    const pred = all.find((f) => codexRolloutIdFromFile(f) === wanted && !seen.has(path.resolve(f)));
    if (!pred) return { pages, missing: wanted };
    seen.add(path.resolve(pred));
    pages.unshift({ file: pred, endOrdinal: base.endOrdinal });
    base = (await headOf(pred)).historyBase;
  }
  return { pages, missing: null };
}

const ORDINAL = /^\{[^{]{0,200}?"ordinal":(\d+)/;

/** A paginated rollout line's `ordinal` (written near its start), or null when it has none. */
export function ordinalOf(head: string): number | null {
  const m = ORDINAL.exec(head);
  return m ? Number(m[1]) : null;
}

/**
 * Hands a predecessor page's lines to `handler` up to its cut: from the first line whose ordinal is
 * `endOrdinal` or more, nothing more (ordinals grow through a file). `done` says when the cut is reached.
 */
export function cutAt(handler: LineHandler, endOrdinal: number): LineHandler & { readonly done: boolean } {
  let done = false;
  const past = (head: string): boolean => {
    const o = ordinalOf(head);
    if (o !== null && o >= endOrdinal) done = true;
    return done;
  };
  return {
    get done() {
      return done;
    },
    line(bytes, lineNo) {
      if (!past(bytes.toString('utf8', 0, Math.min(bytes.length, 256)))) handler.line(bytes, lineNo);
    },
    oversized(head, tail, lineNo) {
      if (!past(head.slice(0, 256))) handler.oversized(head, tail, lineNo);
    },
  };
}

/**
 * Streams a predecessor page (plain or compressed) to `handler` up to its cut, reading no further than
 * needed. Returns the bytes read from disk; a page that stops decoding gives what was read of it.
 */
export async function readPage(page: CodexPage, handler: LineHandler): Promise<number> {
  const cut = cutAt(handler, page.endOrdinal);
  const splitter = new LineSplitter(cut);
  const push = (piece: Buffer): boolean => {
    splitter.push(piece);
    return cut.done;
  };
  try {
    return isZst(page.file) ? ((await streamZst(page.file, push))?.bytesRead ?? 0) : await readPlain(page.file, push);
  } catch {
    return 0;
  }
}

/** Streams a plain file's bytes to `onChunk` until it returns true or the file ends; returns the bytes read. */
async function readPlain(file: string, onChunk: (chunk: Buffer) => boolean): Promise<number> {
  const opened = await openRegular(file);
  if (!opened.ok) return 0;
  const { handle } = opened.file;
  try {
    let pos = 0;
    for (;;) {
      const chunk = await readAt(handle, pos, PAGE_CHUNK);
      if (chunk.length === 0 || onChunk(chunk)) return pos + chunk.length;
      pos += chunk.length;
    }
  } finally {
    await handle.close();
  }
}
