/** Builders for Claude Code transcript and Codex rollout lines with tool calls, shaped like the real logs. */

export const CWD = '/home/dev/api';
let n = 0;
const stamp = (): string => new Date(Date.parse('2026-11-20T09:00:00.000Z') + ++n * 1000).toISOString();

function claudeBase(type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { parentUuid: null, isSidechain: false, userType: 'external', cwd: CWD, sessionId: 'sess-claude', version: '2.1.126', gitBranch: 'feat/x', type, uuid: `u${++n}`, timestamp: stamp(), ...extra };
}

/** An assistant line holding the given content parts (one streamed block per line, as Claude Code writes). */
export function claudeAssistant(content: unknown[], o: { id?: string; extra?: Record<string, unknown>; model?: string } = {}): string {
  return JSON.stringify(claudeBase('assistant', {
    message: { model: o.model ?? 'claude-sonnet-4-5', id: o.id ?? `msg_${++n}`, type: 'message', role: 'assistant', content, usage: { input_tokens: 4, output_tokens: 5 } },
    ...o.extra,
  }));
}

export const bashUse = (id: string, command: string, input: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'tool_use', id, name: 'Bash', input: { command, ...input } });
export const text = (t: string): Record<string, unknown> => ({ type: 'text', text: t });

/** A user line with one tool_result part. */
export function claudeResult(id: string, content: unknown, o: { isError?: boolean; toolUseResult?: unknown; extra?: Record<string, unknown> } = {}): string {
  return JSON.stringify(claudeBase('user', {
    message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, ...(o.isError === undefined ? {} : { is_error: o.isError }) }] },
    ...(o.toolUseResult === undefined ? {} : { toolUseResult: o.toolUseResult }),
    ...o.extra,
  }));
}

/** A user line typed by the human (or injected, with `extra`). */
export function claudeUserText(content: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify(claudeBase('user', { message: { role: 'user', content }, ...extra }));
}

function codex(type: string, payload: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: stamp(), type, payload });
}

export const codexMeta = (extra: Record<string, unknown> = {}): string =>
  codex('session_meta', { id: 'sess-codex', timestamp: '2026-11-20T09:00:00.000Z', cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.50.0', source: 'cli', git: { branch: 'feat/y' }, ...extra });
export const codexCall = (name: string, args: Record<string, unknown>, callId: string): string =>
  codex('response_item', { type: 'function_call', name, arguments: JSON.stringify(args), call_id: callId });
export const codexOutput = (callId: string, output: string): string => codex('response_item', { type: 'function_call_output', call_id: callId, output });
export const codexUserMessage = (message: string): string => codex('event_msg', { type: 'user_message', message, images: [] });
export const codexUserItem = (t: string): string => codex('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: t }] });
export const codexAssistant = (t: string): string => codex('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: t }] });
export const codexEvent = (payload: Record<string, unknown>): string => codex('event_msg', payload);
export const codexItem = (payload: Record<string, unknown>): string => codex('response_item', payload);

/** The `shell` tool's structured output. */
export const shellJson = (output: string, exit: number, seconds = 0.5): string => JSON.stringify({ output, metadata: { exit_code: exit, duration_seconds: seconds } });
