import { Transform, type TransformCallback } from 'node:stream';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** A request line longer than this is answered with an error and dropped, never held in memory. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** The JSON-RPC error answer to a line that is no request (its `id` when one could be read, else null). */
export function protocolError(id: string | number | null, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
}

/** Why a line is not a JSON-RPC message, as the error to answer it with; null for a good message. */
export function checkLine(line: string): { id: string | number | null; code: number; message: string } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { id: null, code: ErrorCode.ParseError, message: `Parse error: the request is not JSON (${(err as Error).message})` };
  }
  if (JSONRPCMessageSchema.safeParse(value).success) return null;
  const raw = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  const id = typeof raw === 'string' || typeof raw === 'number' ? raw : null;
  return { id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response' };
}

/**
 * Stands between stdin and the SDK's stdio transport: each line that is a JSON-RPC message passes
 * through; a line that is not JSON, not JSON-RPC or too long is answered with the protocol's error
 * (through `reply`) and dropped. The transport would otherwise only log a parse error (no answer), and
 * close the connection on a line past its buffer: the server never stops for a bad request.
 */
export class LineGuard extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly reply: (text: string) => void, private readonly maxLine = MAX_LINE_BYTES) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.size || this.discarding) this.endLine();
    done();
  }

  private append(part: Buffer): void {
    if (this.discarding || !part.length) return;
    if (this.size + part.length > this.maxLine) {
      this.discarding = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.reply(protocolError(null, ErrorCode.InvalidRequest, `Invalid Request: a request longer than ${this.maxLine} bytes was dropped`));
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (!line.trim()) return;
    const bad = checkLine(line);
    if (bad) this.reply(protocolError(bad.id, bad.code, bad.message));
    else this.push(`${line}\n`);
  }
}
