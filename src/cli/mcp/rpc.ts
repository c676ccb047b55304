import type { Readable, Writable } from 'node:stream';
import { ErrorCode, LineSplitter, protocolError, readLine, type RequestId, type RpcMessage } from './lineGuard';

/** Requests answered at once at most; past it the input is not read until one has answered. */
export const MAX_IN_FLIGHT = 32;
/** Requests read ahead of those in flight at most; past it the input is not read. */
const MAX_QUEUED = 256;

/** A failure answered as the protocol's error (its code and message), not as a crash. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** A request whose work was called off: it gets no answer (the protocol's rule for a cancelled request). */
export class Cancelled extends Error {
  override readonly name = 'Cancelled';
}

/** By name: the server and its work module are bundles of their own, each with its own copy of the class. */
export const isCancelled = (err: unknown): boolean => err instanceof Error && err.name === 'Cancelled';

/** Answers one request: its result, or a thrown RpcError; `signal` fires when the request is called off. */
export type RequestHandler = (method: string, params: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/**
 * A JSON-RPC 2.0 server over a pair of streams, one message a line, until the input ends.
 *
 * - A line that is no message is answered with the protocol's error and dropped; nothing ends the server.
 * - Each request's work gets an AbortSignal, fired by `notifications/cancelled` for its id and by the
 *   end of the input (the client went away): work no one waits for does not go on running.
 * - Backpressure: while the output does not take what is written (a client that stops reading), the
 *   input is not read either, so no new work starts and nothing piles up here.
 */
export function serveRpc(input: Readable, output: Writable, handle: RequestHandler, maxInFlight = MAX_IN_FLIGHT): Promise<void> {
  const running = new Map<RequestId, AbortController>();
  /** Messages read but not taken yet: a few chunks' worth at most. */
  const lines: RpcMessage[] = [];
  let ended = false;
  let waitingForDrain = false;

  /** Takes lines while the output keeps up and few requests are in flight; otherwise stops reading. */
  const take = (): void => {
    while (lines.length && !waitingForDrain && running.size < maxInFlight) onMessage(lines.shift()!);
    if (ended) return;
    // Still read while requests are in flight (a cancellation must get through), but only so far.
    if (waitingForDrain || lines.length >= MAX_QUEUED) input.pause();
    else input.resume();
  };

  const write = (line: string): void => {
    if (output.destroyed || output.writableEnded) return;
    if (!output.write(line) && !waitingForDrain) {
      waitingForDrain = true;
      input.pause();
      output.once('drain', () => {
        waitingForDrain = false;
        take();
      });
    }
  };

  const request = (id: RequestId, method: string, params: Record<string, unknown>): void => {
    const controller = new AbortController();
    running.get(id)?.abort();
    running.set(id, controller);
    handle(method, params, controller.signal).then(
      (result) => {
        if (!controller.signal.aborted) write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
      },
      (err: unknown) => {
        if (controller.signal.aborted || isCancelled(err)) return;
        const code = err instanceof RpcError ? err.code : ErrorCode.InternalError;
        write(protocolError(id, code, err instanceof Error ? err.message : String(err)));
      },
    ).finally(() => {
      if (running.get(id) === controller) running.delete(id);
      take();
    });
  };

  const onMessage = (m: RpcMessage): void => {
    if (m.kind === 'request') request(m.id, m.method, m.params);
    // Notifications (initialized, …) and the client's responses need nothing from this server.
  };
  const splitter = new LineSplitter(
    (line) => {
      const r = readLine(line);
      if (!r.ok) return write(protocolError(r.id, r.code, r.message));
      const m = r.message;
      // A cancellation is taken at once, ahead of what waits.
      if (m.kind === 'notification' && m.method === 'notifications/cancelled') {
        const id = m.params['requestId'];
        if (typeof id !== 'string' && typeof id !== 'number') return;
        running.get(id)?.abort();
        const queued = lines.findIndex((x) => x.kind === 'request' && x.id === id);
        if (queued !== -1) lines.splice(queued, 1);
        return;
      }
      lines.push(m);
    },
    (max) => write(protocolError(null, ErrorCode.InvalidRequest, `Invalid Request: a request longer than ${max} bytes was dropped`)),
  );

  return new Promise<void>((resolve) => {
    const finish = () => {
      if (ended) return;
      ended = true;
      // What is left unread has no one to answer to.
      lines.length = 0;
      for (const c of running.values()) c.abort();
      running.clear();
      resolve();
    };
    input.on('data', (chunk: Buffer | string) => {
      splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      take();
    });
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', finish);
    // A client that closed its end of our output is gone as well.
    output.once('error', finish);
    output.once('close', finish);
  });
}
