/** Builders for Claude Code transcript and Codex rollout lines, shaped like the real logs. */

export interface ClaudeCallOptions {
  sessionId?: string;
  cwd?: string;
  model?: string;
  id?: string;
  input?: number;
  cacheCreation?: number;
  cacheRead?: number;
  sidechain?: boolean;
  apiError?: boolean;
  timestamp?: string;
  /** Padding text in the message, to make lines of a given size. */
  text?: string;
}

/** One `type:"assistant"` transcript line (with its trailing newline). */
export function claudeCall(o: ClaudeCallOptions = {}): string {
  return `${JSON.stringify({
    parentUuid: null,
    isSidechain: o.sidechain ?? false,
    ...(o.apiError ? { isApiErrorMessage: true } : {}),
    cwd: o.cwd ?? '/home/dev/refund-service',
    sessionId: o.sessionId ?? 'sess-1',
    message: {
      model: o.model ?? 'claude-sonnet-4-5-20250929',
      id: o.id ?? 'msg_x',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: o.text ?? 'ok' }],
      usage: {
        input_tokens: o.input ?? 10,
        cache_creation_input_tokens: o.cacheCreation ?? 0,
        cache_read_input_tokens: o.cacheRead ?? 0,
        output_tokens: 5,
      },
    },
    type: 'assistant',
    uuid: 'u',
    timestamp: o.timestamp ?? '2026-11-20T09:00:00.000Z',
  })}\n`;
}

/** A `type:"user"` transcript line. */
export function claudeUser(text: string, o: { sessionId?: string; cwd?: string } = {}): string {
  return `${JSON.stringify({
    isSidechain: false,
    cwd: o.cwd ?? '/home/dev/refund-service',
    sessionId: o.sessionId ?? 'sess-1',
    type: 'user',
    message: { role: 'user', content: text },
    timestamp: '2026-11-20T09:00:00.000Z',
  })}\n`;
}

/** A Codex `session_meta` line; `source` an object marks a sub-agent rollout. */
export function codexMeta(o: { id?: string; cwd?: string; source?: unknown } = {}): string {
  return `${JSON.stringify({
    timestamp: '2026-11-22T20:45:35.610Z',
    type: 'session_meta',
    payload: { id: o.id ?? 'codex-1', cwd: o.cwd ?? '/home/dev/refund-service', originator: 'codex_cli_rs', source: o.source ?? 'cli' },
  })}\n`;
}

/** A Codex `token_count` event; `null` gives a heartbeat. */
export function codexTokens(total: number | null, window = 258_400): string {
  const info = total === null ? null : { last_token_usage: { total_tokens: total }, total_token_usage: { total_tokens: total * 9 }, model_context_window: window };
  return `${JSON.stringify({ timestamp: '2026-11-22T20:46:02.114Z', type: 'event_msg', payload: { type: 'token_count', info } })}\n`;
}
