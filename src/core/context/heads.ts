import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { openRegular } from '../fsx';

/** What discovery needs from the top of an agent log. */
export interface Head {
  cwd?: string;
  sessionId?: string;
  subAgent?: boolean;
  /**
   * True when more bytes cannot change the head: the session's own first line was found (or the
   * file is known not to be a session). An unsettled head — nothing usable yet, or only sub-agent
   * lines so far — is read again when the file changes, so a session caught while it was starting
   * (or while its first line was half-written) is found on the next look.
   */
  settled?: boolean;
}

/**
 * Reads a file's first lines in 64 KiB steps until `accept` returns a value for one of them, at most
 * `maxBytes` — enough for the cwd and session id without reading a transcript of hundreds of MB.
 */
export async function scanHead<T>(file: string, accept: (line: string) => T | undefined, maxBytes = 256 * 1024): Promise<T | undefined> {
  // Never `open` a FIFO or a device that sits where a log should be: it would block or never end.
  const opened = await openRegular(file);
  if (!opened.ok) return undefined;
  const { handle } = opened.file;
  try {
    // A character cut between two steps is decoded whole once its last bytes are read.
    const decoder = new StringDecoder(); // UTF-8
    let pending = '';
    let pos = 0;
    // Stryker disable next-line EqualityOperator: at maxBytes the next step asks for 0 bytes, reads none and ends the loop alike
    while (pos < maxBytes) {
      const buf = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes - pos));
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const lines = (pending + decoder.write(buf.subarray(0, bytesRead))).split('\n');
      pending = lines.pop() as string; // split gives at least one piece; the last may be cut
      for (const line of lines) {
        const v = line.trim() ? accept(line) : undefined;
        if (v !== undefined) return v;
      }
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * A line's JSON value, undefined when it is not JSON. Any value but null is read as an object: a field
 * of a string, a number or an array is undefined, like a field the line does not have.
 */
function parseObject(line: string): Record<string, unknown> | null | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown> | null;
  } catch {
    return undefined;
  }
}

/**
 * The cwd and session of a Claude Code transcript: its first main-chain line with a cwd. Some
 * versions open a session with sub-agent ("Warmup") lines, so a sidechain line alone does not make the
 * file a sub-agent's: only a file of sidechain lines (an `agent-*.jsonl`, or one with no main line
 * in its first bytes) is one.
 */
export async function claudeHead(file: string, maxBytes = 256 * 1024): Promise<Head> {
  let side: Head | undefined;
  const main = await scanHead(
    file,
    (line): Head | undefined => {
      // Stryker disable next-line ConditionalExpression,StringLiteral: only saves parsing a line without a cwd, which the next line turns down too (short of a key spelt with escapes, which no agent writes)
      if (!line.includes('"cwd"')) return undefined;
      const o = parseObject(line);
      if (!o || typeof o['cwd'] !== 'string') return undefined;
      const head: Head = { cwd: o['cwd'], ...(typeof o['sessionId'] === 'string' ? { sessionId: o['sessionId'] } : {}) };
      if (o['isSidechain'] !== true) return { ...head, subAgent: false, settled: true };
      side ??= head;
      return undefined;
    },
    maxBytes,
  );
  if (main) return main;
  if (!side) return {};
  // Only sub-agent lines so far: settled when the name or the size says it will stay that way (bytes
  // past maxBytes are never read).
  const settled = path.basename(file).startsWith('agent-') || (await fs.stat(file)).size >= maxBytes;
  return { ...side, subAgent: true, settled };
}

/** The cwd and session of a Codex rollout, from its `session_meta` first line. */
export async function codexHead(file: string): Promise<Head> {
  // session_meta is the first line, but it may carry the full base instructions: allow a few MB.
  const head = await scanHead(
    file,
    (line): Head | undefined => {
      const o = parseObject(line);
      const payload = o?.['payload'] as Record<string, unknown> | undefined;
      if (o?.['type'] !== 'session_meta' || !payload) return { settled: true };
      return {
        settled: true,
        ...(typeof payload['cwd'] === 'string' ? { cwd: payload['cwd'] } : {}),
        ...(typeof payload['id'] === 'string' ? { sessionId: payload['id'] } : {}),
        // Sub-agent rollouts (review, compaction helpers…) carry an object source: not the session.
        subAgent: typeof payload['source'] === 'object' && payload['source'] !== null,
      };
    },
    4 * 1024 * 1024,
  );
  return head ?? {};
}
