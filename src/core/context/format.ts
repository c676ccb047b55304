import type { BudgetLevel, ContextResult } from './types';

/** A Map, not an object: a writer named `constructor` is not looked up on the prototype. */
const AGENT_NAMES = new Map<string | undefined, string>([
  ['claude', 'Claude Code'],
  ['codex', 'Codex CLI'],
  ['cline', 'Cline'],
  ['roo', 'Roo Code'],
  ['zoo', 'Zoo Code'],
  ['kilo', 'Kilo Code'],
  ['opencode', 'OpenCode'],
  ['copilot-chat', 'Copilot Chat'],
  ['gemini', 'Gemini CLI'],
  ['qwen', 'Qwen Code'],
  ['copilot-cli', 'Copilot CLI'],
]);

/**
 * The reading as people see it: a whole percent. Levels are judged on this value too, so the meter
 * never shows `50%` in plain colours while the wrap-up threshold is 50 % — the status bar and the
 * statusline therefore always agree.
 */
export function asShown(r: ContextResult): ContextResult {
  return r.known ? { ...r, percent: Math.round(r.percent) } : r;
}

/** `50%` for a 49.6 % reading, or `—` when unknown (never a made-up 0 %). */
export function shortPercent(r: ContextResult): string {
  return r.known ? `${Math.round(r.percent)}%` : '—';
}

/** The agent behind a reading, for people: `Claude Code`, `Codex CLI`, or the generic file's source. */
export function agentLabel(r: ContextResult): string {
  if (r.known && r.source === 'generic') return `${AGENT_NAMES.get(r.agent) ?? r.agent ?? 'agent'} (context_usage.json)`;
  return r.source ? (AGENT_NAMES.get(r.source) ?? 'context_usage.json') : 'no agent';
}

const thousands = (n: number) => n.toLocaleString('en-US');

/** One line describing a reading: `49.6 % — 99,212 of 200,000 tokens · Claude Code · compacts at 83.5 %`. */
export function describeReading(r: ContextResult): string {
  if (!r.known) return `unknown — ${r.reason}`;
  return `${r.percent.toFixed(1)} % — ${thousands(r.usedTokens)} of ${thousands(r.windowTokens)} tokens · ${agentLabel(r)} · compacts at ${r.compactAtPercent} %`;
}

/**
 * The statusLine text: `ctx 49% · clean · handoff fresh`; at wrap-up or urgent the rest is replaced by
 * the call to action, which names `handoff generate`.
 */
export function statuslineText(r: ContextResult, level: BudgetLevel | undefined, extras: readonly string[] = []): string {
  const head = `ctx ${shortPercent(r)}`;
  if (level === 'urgent') return `${head} · wrap up now: run handoff generate`;
  if (level === 'wrap-up') return `${head} · wrap up: run handoff generate`;
  return [head, ...extras].join(' · ');
}
