/**
 * The session's final exchange as it happened: from the last message the human typed to the end of
 * the file, every event in order, each with its line. The readers record it through the accumulator;
 * nothing here judges. `packet/ending.ts` reads its shape (what came last, what got a result, what was
 * said after which call) to tell how the session ended.
 */

/** A call's outcome, as far as the record says. */
export type CallOutcome = 'ok' | 'failed' | 'unfinished' | 'rejected';

export type ExchangeEvent =
  /** The message the human typed (the exchange's first event). */
  | { kind: 'human'; line: number | null }
  /** Assistant text (one event per message part). */
  | { kind: 'text'; line: number | null }
  /** A shell command call (its result comes as a `result` event with the same id). */
  | { kind: 'command'; id: string; line: number | null }
  /** Any other tool call (a read, an edit, a search): the agent was still working. */
  | { kind: 'tool'; line: number | null }
  | { kind: 'result'; id: string; line: number | null; outcome: CallOutcome; exit: number | null }
  /** The agent's recap row (Claude Code `away_summary`). */
  | { kind: 'recap'; line: number | null }
  /** A compaction: the summary the agent wrote of where the work stood, when the record has it. */
  | { kind: 'compaction'; line: number | null; text: string | null }
  | { kind: 'interrupt'; line: number | null }
  /** The model provider failed (an API error, a usage limit): not the agent's answer. */
  | { kind: 'api-error'; line: number | null };

/** Enough for any real ending; a runaway turn keeps its first and newest events. */
const MAX_EVENTS = 400;
const MAX_COMPACTION_CHARS = 8_000;

export class ExchangeRecorder {
  private list: ExchangeEvent[] = [];

  /** A new human message starts a new final exchange. */
  human(line: number | null): void {
    this.list = [{ kind: 'human', line }];
  }

  add(e: ExchangeEvent): void {
    // A summary's pending work and next step sit at its end: the end is what is kept.
    if (e.kind === 'compaction' && e.text && e.text.length > MAX_COMPACTION_CHARS) e = { ...e, text: e.text.slice(-MAX_COMPACTION_CHARS) };
    const last = this.list.at(-1);
    // A reader marks a call as a tool use, then names it as a command: one call.
    if (e.kind === 'command' && last?.kind === 'tool' && (last.line === e.line || last.line === null)) this.list.pop();
    // Streamed parts of one message, or one call seen twice, are one event.
    if (last && last.kind === e.kind && last.line === e.line && e.kind !== 'result' && e.kind !== 'command') return;
    this.list.push(e);
    if (this.list.length > MAX_EVENTS) this.list.splice(1, this.list.length - MAX_EVENTS);
  }

  get events(): readonly ExchangeEvent[] {
    return this.list;
  }
}

/** How the final exchange ended, read from the order of its events alone. */
export type ExchangeShape =
  /** Nothing but provider errors or interrupts followed the human's message. */
  | 'unanswered'
  /** A call has no result and nothing was said after it. */
  | 'cut-pending'
  /** The agent called tools after its last text, got their results, and the record ends: no final message. */
  | 'cut-after-result'
  /** The agent's last event is text with no call after it. */
  | 'closed';

/** The events that are the agent's work (text and calls), not the provider's or the tool's bookkeeping. */
const WORK = new Set<ExchangeEvent['kind']>(['text', 'command', 'tool', 'result']);

export function shapeOf(events: readonly ExchangeEvent[]): ExchangeShape {
  // A call the user declined, or one offered and never approved, never ran: it is no work of the agent's.
  const declined = new Set(events.filter((e) => e.kind === 'result' && e.outcome === 'rejected').map((e) => (e as { id: string }).id));
  const work = events.filter((e) => WORK.has(e.kind) && !((e.kind === 'command' || e.kind === 'result') && declined.has(e.id)));
  if (!work.length) return 'unanswered';
  const lastText = work.map((e) => e.kind).lastIndexOf('text');
  const after = work.slice(lastText + 1);
  if (!after.length) return 'closed';
  const results = new Set(after.filter((e) => e.kind === 'result').map((e) => (e as { id: string }).id));
  const pending = after.some((e) => e.kind === 'command' && !results.has(e.id));
  return pending ? 'cut-pending' : 'cut-after-result';
}

/** The calls after the agent's last text (their ids and lines), in order. */
export function callsAfterLastText(events: readonly ExchangeEvent[]): ExchangeEvent[] {
  const lastText = events.map((e) => e.kind).lastIndexOf('text');
  return events.slice(lastText + 1).filter((e) => e.kind === 'command' || e.kind === 'tool' || e.kind === 'result');
}

/** The line of the agent's last text in the exchange, or null. */
export function lastTextLine(events: readonly ExchangeEvent[]): number | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as ExchangeEvent;
    if (e.kind === 'text') return e.line;
  }
  return null;
}
