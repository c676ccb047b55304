/**
 * Roo Code's context meter (Kilo Code's Roo-based builds alike; FORMATS: vscode-agents). Walking back
 * from the newest message, the first of: an `api_req_started` with tokensIn + tokensOut above zero
 * (since 3.29.5 tokensIn is the total input; older Anthropic records that left the cache out are
 * summed with it), or a `condense_context` event, whose new token count stands until the next request
 * (`consolidateTokenUsage`). Roo shows % = tokens / (window − max output) (`TaskHeader.tsx`).
 */
import type { UiMessage } from '../session/vscodeTask';
import { num, obj, textJson } from '../session/vscodeTask';
import type { TaskMeterInput } from './cline';
import { redact } from '../redact';
import { round1 } from './claude';
import { modelInfo } from './models';
import type { Compaction, ContextResult } from './types';

/** Roo's auto-condense threshold default (`autoCondenseContextPercent`). */
export const ROO_CONDENSE_PERCENT = 100;
/** Roo reserves this much output for Claude models with extended thinking and no reasoning budget. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/** The context tokens of one `api_req_started`, by the rule of the version that wrote it. */
export function rooRequestTokens(info: Record<string, unknown>): number {
  const tokensIn = num(info['tokensIn']);
  const tokensOut = num(info['tokensOut']);
  const cache = num(info['cacheReads']) + num(info['cacheWrites']);
  // Before 3.29.5 an Anthropic tokensIn left the cache out; then it is smaller than the cache alone.
  if (info['apiProtocol'] === 'anthropic' && tokensIn < cache) return tokensIn + tokensOut + cache;
  return tokensIn + tokensOut;
}

/** The output Roo reserves (`getModelMaxOutputTokens`), and whether it had to be assumed. */
export function rooMaxOutput(model: string | null, window: number): { tokens: number; assumed: boolean } {
  const info = modelInfo(model);
  if (info?.hybridReasoning) return { tokens: ANTHROPIC_DEFAULT_MAX_TOKENS, assumed: false };
  if (info) return { tokens: Math.min(info.maxTokens, Math.ceil(window * 0.2)), assumed: false };
  return { tokens: Math.ceil(window * 0.2), assumed: true };
}

/**
 * Where Roo condenses, in percent as Roo shows it: at `threshold` % of the window, or at 90 % of the
 * window minus the reserved output, whichever comes first (`context-management/index.ts`).
 */
export function rooCompactAtPercent(window: number, maxOutput: number, threshold = ROO_CONDENSE_PERCENT): number {
  const at = Math.min((threshold / 100) * window, window * 0.9 - maxOutput);
  return round1(Math.min(100, (at / (window - maxOutput)) * 100));
}

export interface RooMeterInput extends TaskMeterInput {
  agent: 'roo' | 'zoo' | 'kilo';
}

/** Roo Code's (or Kilo Code's) reading of one task's ui messages. */
export function rooReading(ui: readonly UiMessage[], raw: readonly unknown[], input: RooMeterInput): ContextResult {
  const { taskId: sessionId, file, model, agent } = input;
  const name = agent === 'kilo' ? 'Kilo Code' : agent === 'zoo' ? 'Zoo Code' : 'Roo Code';
  let found: { tokens: number; ts: number } | undefined;
  let condensed: { ts: number; prev: number | null } | undefined;
  for (let i = ui.length - 1; i >= 0; i--) {
    const m = ui[i] as UiMessage;
    if (m.type !== 'say') continue;
    if (m.kind === 'condense_context') {
      const c = obj(obj(raw[m.index])?.['contextCondense']);
      const next = c?.['newContextTokens'];
      condensed ??= { ts: m.ts, prev: typeof c?.['prevContextTokens'] === 'number' ? c['prevContextTokens'] : null };
      if (!found && typeof next === 'number' && next >= 0) found = { tokens: next, ts: m.ts };
    } else if (m.kind === 'api_req_started' && !found) {
      const info = textJson(m.text);
      if (info && num(info['tokensIn']) + num(info['tokensOut']) > 0) found = { tokens: rooRequestTokens(info), ts: m.ts };
    }
    if (found && condensed) break;
  }
  const override = input.windowOverride && input.windowOverride > 0 ? input.windowOverride : undefined;
  const window = override ?? modelInfo(model)?.contextWindow;
  const out = window ? rooMaxOutput(model, window) : undefined;
  const compaction: { compaction?: Compaction } =
    condensed && condensed.ts
      ? { compaction: { at: new Date(condensed.ts).toISOString(), ...(condensed.prev !== null && window && out ? { percent: round1((condensed.prev / (window - out.tokens)) * 100) } : {}) } }
      : {};
  if (!found) return { known: false, source: agent, sessionId, reason: `no API request with token usage in the ${name} task yet`, file, ...compaction };
  if (!window || !out) {
    const why = model
      ? `the model "${redact(model)}" is not in Session Handoff's model table, so its context window is unknown`
      : `${name} keeps its model in its own settings, not in the task, so the context window is unknown`;
    return { known: false, source: agent, sessionId, reason: `${why} (set sessionHandoff.context.rooModel or sessionHandoff.context.windowOverride)`, file, ...compaction };
  }
  return {
    known: true,
    source: agent,
    sessionId,
    ...(model ? { model } : {}),
    usedTokens: found.tokens,
    windowTokens: window,
    percent: round1((found.tokens / (window - out.tokens)) * 100),
    compactAtPercent: rooCompactAtPercent(window, out.tokens),
    at: found.ts ? new Date(found.ts).toISOString() : '',
    file,
    ...(out.assumed ? { warnings: [`${file}: the model's largest output is not known; ${name}'s percentage assumes it reserves 20 % of the window`] } : {}),
    ...compaction,
  };
}
