import { CLAUDE_COMPACT_MARGIN, CLAUDE_WINDOW } from './claude';
import { CODEX_COMPACT_AT_PERCENT } from './codex';
import type { BudgetLevel, ContextResult, ContextSource } from './types';

/** Wrap-up thresholds as fractions of the window (settings `sessionHandoff.wrapUp.warnAt` / `urgeAt`). */
export interface Budget {
  warnAt: number;
  urgeAt: number;
}

export const DEFAULT_BUDGET: Budget = { warnAt: 0.5, urgeAt: 0.75 };

export type BudgetCheck = { ok: true; budget: Budget; warnings: string[] } | { ok: false; error: string };

/** Where an agent auto-compacts, as a fraction of its window (Claude ≈ window − 33 000; Codex 90 %). */
export function compactionPoint(agent: ContextSource | 'claude' | 'codex', windowTokens = CLAUDE_WINDOW): number | undefined {
  if (agent === 'claude') return (windowTokens - CLAUDE_COMPACT_MARGIN) / windowTokens;
  if (agent === 'codex') return CODEX_COMPACT_AT_PERCENT / 100;
  return undefined;
}

const pct = (f: number) => `${Math.round(f * 1000) / 10} %`;

/**
 * Validates thresholds (`0 < warnAt < urgeAt < 1`) and warns when `urgeAt` is at or past an agent's own
 * auto-compaction point — the wrap-up prompt would come after the context was already compacted.
 * With a reading, only that agent (and its window) is checked; without one, Claude at its smallest window
 * (200 000 tokens, said so in the warning) and Codex.
 */
export function checkBudget(budget: Budget, reading?: ContextResult): BudgetCheck {
  const { warnAt, urgeAt } = budget;
  // NaN and ±Infinity fail these comparisons too.
  if (!(warnAt > 0 && warnAt < urgeAt && urgeAt < 1)) {
    return { ok: false, error: `wrap-up thresholds must satisfy 0 < warnAt < urgeAt < 1 (got warnAt ${warnAt}, urgeAt ${urgeAt})` };
  }
  const agents: { name: string; point: number; window?: string }[] = [];
  if (reading?.known) {
    // An agent that never compacts says 100 %: urgeAt, below 1, never reaches it.
    agents.push({ name: agentName(reading.agent ?? reading.source), point: reading.compactAtPercent / 100 });
  } else {
    // The window is not known here: Claude's earliest point (its smallest window) is named as such, not as the session's.
    agents.push({ name: 'Claude Code', point: compactionPoint('claude') as number, window: ' with a 200 000-token window' });
    agents.push({ name: 'Codex CLI', point: compactionPoint('codex') as number });
  }
  const warnings = agents
    .filter((a) => urgeAt >= a.point)
    .map((a) => `urgeAt ${pct(urgeAt)} is at or past ${a.name}'s auto-compaction point${a.window ?? ''} (${pct(a.point)}): the wrap-up prompt would come too late`);
  return { ok: true, budget, warnings };
}

function agentName(source: string): string {
  if (source.startsWith('claude')) return 'Claude Code';
  if (source.startsWith('codex')) return 'Codex CLI';
  if (source === 'cline') return 'Cline';
  if (source === 'roo') return 'Roo Code';
  if (source === 'zoo') return 'Zoo Code';
  if (source === 'kilo') return 'Kilo Code';
  if (source === 'opencode') return 'OpenCode';
  if (source === 'copilot-chat') return 'Copilot Chat';
  if (source === 'gemini') return 'Gemini CLI';
  if (source === 'qwen') return 'Qwen Code';
  if (source === 'copilot-cli') return 'Copilot CLI';
  return source;
}

/** The level of a reading: `ok` below warnAt, `wrap-up` from warnAt, `urgent` from urgeAt; none when unknown. */
export function budgetLevel(reading: ContextResult, budget: Budget = DEFAULT_BUDGET): BudgetLevel | undefined {
  if (!reading.known) return undefined;
  const f = reading.percent / 100;
  if (f >= budget.urgeAt) return 'urgent';
  if (f >= budget.warnAt) return 'wrap-up';
  return 'ok';
}

/** A level reached for the first time in an agent session. */
export interface LevelChange {
  level: Exclude<BudgetLevel, 'ok'>;
  previous: BudgetLevel | undefined;
  source: ContextSource;
  sessionId: string;
  reading: ContextResult & { known: true };
}

export type LevelListener = (change: LevelChange) => void;

/**
 * Turns a stream of readings into prompt-worthy events: each of `wrap-up` and `urgent` fires at most once per
 * agent session (`wrap-up` not after `urgent`) (a reading that drops after compaction and climbs again does not nag). Pure: the UI
 * subscribes and decides how to prompt.
 */
export class LevelTracker {
  private readonly listeners = new Set<LevelListener>();
  private readonly fired = new Map<string, Set<BudgetLevel>>();
  private readonly last = new Map<string, BudgetLevel>();

  constructor(private budget: Budget = DEFAULT_BUDGET) {}

  /** Subscribes; returns a function that unsubscribes. */
  onLevelChange(listener: LevelListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setBudget(budget: Budget): void {
    this.budget = budget;
  }

  /** Feeds a reading; returns the event it fired, if any. */
  update(reading: ContextResult): LevelChange | undefined {
    const level = budgetLevel(reading, this.budget);
    if (!reading.known || !level) return undefined;
    const key = `${reading.source}:${reading.sessionId}`;
    const previous = this.last.get(key);
    this.last.set(key, level);
    if (level === 'ok') return undefined;
    const fired = this.fired.get(key) ?? new Set<BudgetLevel>();
    this.fired.set(key, fired);
    if (fired.has(level)) return undefined;
    fired.add(level);
    // After the urgent prompt, a later dip into wrap-up is not news (after a wrap-up prompt, it never was).
    fired.add('wrap-up');
    const change: LevelChange = { level, previous, source: reading.source, sessionId: reading.sessionId, reading };
    for (const l of this.listeners) l(change);
    return change;
  }

  /** Forgets what fired (e.g. after a snooze expires) — for one session, or all. */
  reset(source?: ContextSource, sessionId?: string): void {
    if (source && sessionId) {
      this.fired.delete(`${source}:${sessionId}`);
    } else {
      this.fired.clear();
    }
  }
}
