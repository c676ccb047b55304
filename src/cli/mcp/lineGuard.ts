// The MCP server's framing: one JSON-RPC message a line, checked by hand (no schema library), so the
// server's small bundle answers `initialize` without loading one.

/** A request line longer than this is answered with an error and dropped, never held in memory. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** JSON-RPC 2.0's error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export type RequestId = string | number;

/** A line that is a JSON-RPC message: a request (with an id), a notification, or a client's response. */
export type RpcMessage =
  | { kind: 'request'; id: RequestId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: Record<string, unknown> }
  | { kind: 'response'; id: RequestId };

/** The JSON-RPC error answer to a line that is no request (its `id` when one could be read, else null). */
export function protocolError(id: RequestId | null, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** The message a line holds, or why it is not one (as the error to answer it with). */
export function readLine(line: string): { ok: true; message: RpcMessage } | { ok: false; id: RequestId | null; code: number; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, id: null, code: ErrorCode.ParseError, message: `Parse error: the request is not JSON (${(err as Error).message})` };
  }
  const invalid = { ok: false as const, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response' };
  if (!isObject(value) || value['jsonrpc'] !== '2.0') return { ...invalid, id: null };
  const id = isId(value['id']) ? value['id'] : null;
  const params = value['params'];
  if (params !== undefined && !isObject(params)) return { ...invalid, id };
  if (typeof value['method'] === 'string') {
    if ('id' in value && id === null) return { ...invalid, id };
    const p = params ?? {};
    return { ok: true, message: id === null ? { kind: 'notification', method: value['method'], params: p } : { kind: 'request', id, method: value['method'], params: p } };
  }
  const answered = 'result' in value ? isObject(value['result']) : isObject(value['error']) && typeof value['error']['code'] === 'number' && typeof value['error']['message'] === 'string';
  if (id !== null && answered) return { ok: true, message: { kind: 'response', id } };
  return { ...invalid, id };
}

/** Why a line is not a JSON-RPC message, as the error to answer it with; null for a good message. */
export function checkLine(line: string): { id: RequestId | null; code: number; message: string } | null {
  const r = readLine(line);
  return r.ok ? null : { id: r.id, code: r.code, message: r.message };
}

/**
 * Splits what arrives on stdin into lines: each complete line is handed to `line`; a line past
 * `maxLine` bytes is dropped as it arrives (never held whole) and reported to `tooLong` once it ends.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(private readonly line: (text: string) => void, private readonly tooLong: (maxLine: number) => void, private readonly maxLine = MAX_LINE_BYTES) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
  }

  /** The input ended: a last line without its newline is still one. */
  end(): void {
    if (this.size || this.discarding) this.endLine();
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
      this.tooLong(this.maxLine);
      return;
    }
    const text = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (text.trim()) this.line(text);
  }
}
