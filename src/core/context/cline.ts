/**
 * Cline's context meter (FORMATS: vscode-agents): the last `api_req_started` whose tokensIn + tokensOut
 * + cacheWrites + cacheReads is above zero, over the selected model's window (`getLastApiReqTotalTokens`,
 * `ContextWindow.tsx`). Cline stores no window in the task: it comes from the model table by the model
 * id of the latest request, and an unknown model is reported as unknown.
 */
import type { UiMessage } from '../session/vscodeTask';
import { num, textJson } from '../session/vscodeTask';
import { redact } from '../redact';
import { round1 } from './claude';
import { modelInfo } from './models';
import type { ContextResult } from './types';

/** Where Cline condenses or truncates: `maxAllowedSize` of `context-window-utils.ts`, in tokens. */
export function clineMaxAllowed(window: number): number {
  if (window === 64_000) return window - 27_000;
  if (window === 128_000) return window - 30_000;
  if (window === 200_000) return window - 40_000;
  return Math.max(window - 40_000, window * 0.8);
}

/** Cline's condense point in percent of the window. */
export function clineCompactAtPercent(window: number): number {
  return round1((clineMaxAllowed(window) / window) * 100);
}

/** The usage of an `api_req_started` message: the four counts Cline adds up. */
export function clineRequestTokens(m: UiMessage): number {
  const info = textJson(m.text);
  if (!info) return 0;
  return num(info['tokensIn']) + num(info['tokensOut']) + num(info['cacheWrites']) + num(info['cacheReads']);
}

export interface TaskMeterInput {
  taskId: string;
  file: string;
  /** The model the agent uses, when known (Cline: the latest request's `modelInfo.modelId`). */
  model: string | null;
  /** A window that beats the model table (0 or undefined: the table). */
  windowOverride?: number;
}

/** Cline's reading of one task's ui messages. */
export function clineReading(ui: readonly UiMessage[], input: TaskMeterInput): ContextResult {
  const { taskId: sessionId, file, model } = input;
  let last: { used: number; ts: number } | undefined;
  for (let i = ui.length - 1; i >= 0; i--) {
    const m = ui[i] as UiMessage;
    if (m.type !== 'say' || m.kind !== 'api_req_started') continue;
    const used = clineRequestTokens(m);
    if (used > 0) {
      last = { used, ts: m.ts };
      break;
    }
  }
  if (!last) return { known: false, source: 'cline', sessionId, reason: 'no API request with token usage in the Cline task yet', file };
  const override = input.windowOverride && input.windowOverride > 0 ? input.windowOverride : undefined;
  const window = override ?? modelInfo(model)?.contextWindow;
  if (!window) {
    const why = model
      ? `the model "${redact(model)}" is not in Session Handoff's model table, so its context window is unknown`
      : 'the Cline task names no model, so its context window is unknown';
    return { known: false, source: 'cline', sessionId, reason: `${why} (set sessionHandoff.context.windowOverride)`, file };
  }
  return {
    known: true,
    source: 'cline',
    sessionId,
    ...(model ? { model } : {}),
    usedTokens: last.used,
    windowTokens: window,
    percent: round1((last.used / window) * 100),
    compactAtPercent: clineCompactAtPercent(window),
    at: last.ts ? new Date(last.ts).toISOString() : '',
    file,
  };
}
