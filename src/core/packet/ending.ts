import { looseKey, normalizeCommand } from '../artifacts/commands';
import type { SessionSummary, WorkbenchSnapshot } from '../artifacts/snapshot';
import type { SessionCommand, SessionText } from '../session/model';
import type { Source } from '../source';
import { closingOf, collectOpenQuestions, compactionNext, gistOf, labelledNext, reportsDone } from './judgement';
import { lastTextLine, shapeOf, type ExchangeEvent } from '../session/exchange';
import { stepForFailure } from './failureStep';
import type { CommandRun, Ending, FailedAttempt, NextActionKind } from './schema';
import { isReadOnlyCommand, programOf } from '../artifacts/readOnly';
import { redact } from '../redact';

/**
 * How a session ended, and what that makes the next step (issue: "the ending decides"). A session is
 * read as its final exchange — the last real human message and everything after it — and classified:
 *
 * - **cut mid-step**: the last call has no result (the file was copied, or the agent stopped, while
 *   it ran) → check what that step produced, then finish it;
 * - **waiting for the human**: the agent's last message asks questions or offers options → get those
 *   answers first;
 * - **human unanswered**: the human spoke last and got no real answer (API errors, an interrupt,
 *   nothing) → answer that message (a bare "continue" / "yes" is resolved to what it continues);
 * - **agent closed**: the agent answered the last message → the step it states (its own or one it
 *   hands to the human), else an open failure of the final exchange, else "verify and ask what comes
 *   next" when it reports the work done, else continue the request from where the closing words leave it.
 *
 * A failure is next only when it is the session's last word on its target: it happened in the final
 * exchange, no later command on the same target passed, and the closing words do not report it fixed.
 * Earlier failures stay in the packet's history. Pure and deterministic.
 */

export interface EndingStep {
  text: string;
  kind: NextActionKind;
  from: string;
  source: Source | null;
}

export interface SessionEnding {
  ending: Ending;
  /** The request the final exchange answers (a bare continuation resolved to what it continues). */
  request: SessionText | null;
  /** The failures that are still the session's last word on their target, newest first. */
  openFailures: FailedAttempt[];
  /** The next step this ending gives, or null when the ending leaves it to the workbench's rules. */
  next: EndingStep | null;
}

/** Words that only say "go on": a message of nothing else continues what came before it. */
const CONTINUATION_WORDS = new Set([
  'continue', 'continuing', 'go', 'on', 'ahead', 'proceed', 'yes', 'yep', 'yeah', 'yup', 'y', 'ok', 'okay', 'k', 'sure', 'please', 'pls', 'plz',
  'do', 'it', 'keep', 'going', 'carry', 'resume', 'generating', 'and', 'now', 'again', 'then', 'that', 'this', 'so', 'right', 'fine', 'good',
  'great', 'thanks', 'thank', 'you', 'sounds', 'lgtm', 'hello', 'hi', 'hey', 'yo', 'sup', 'wassup', 'there', 'are', 'still', 'alright', 'cool', 'next', 'done',
  // The same few words in the languages people write to agents in (a help, never the rule: see isBareContinuation).
  'sí', 'si', 'vale', 'dale', 'sigue', 'continúa', 'continua', 'adelante', 'gracias', 'да', 'ок', 'хорошо', 'давай', 'продолжай', 'продолжи', 'дальше', 'спасибо',
  'weiter', 'ja', 'danke', 'oui', 'merci', 'vas', 'y', 'ok', 'có', 'tiếp', 'tục', 'cảm', 'ơn',
]);

/** Short CJK messages that only say "go on" / "ok" / "thanks" (継続 in Chinese, Japanese, Korean). */
const CJK_CONTINUATION = /^(?:好的?|好吧|可以|行|嗯+|对|對|是的?|继续|繼續|接着|接著|谢谢|謝謝|感谢|感謝|您|你|了|吧|啊|呀|哦|はい|うん|ええ|続けて|続き|つづけて|お願いします|おねがいします|ありがとう(?:ございます)?|どうも|네|예|응|계속|계속해|좋아요?|감사합니다|고마워요?|[\s,，、。.!！~～]+)+$/u;

/** True when a message only says "go on" ("continue", "yes", "go ahead", "continue generating", "hellooooo"). */
export function isBareContinuation(text: string): boolean {
  if (CJK_CONTINUATION.test(text.trim())) return true;
  const words = text.toLowerCase().replace(/(\p{L})\1{2,}/gu, '$1').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (!words.length) return /^[\s?!.…]*$/.test(text) && text.trim().length > 0;
  return words.length <= 6 && words.every((w) => CONTINUATION_WORDS.has(w) || /^(hel+o+|he+y+|hi+)$/.test(w));
}

/** The last human message, and — when it only says "go on" — the message it continues. */
export function resolveRequest(session: SessionSummary): { request: SessionText | null; continuation: SessionText | null } {
  const latest = session.latestRequest ?? null;
  // A goal set with /goal is the standing task: what a bare "continue" (or no request at all) continues.
  const goal = session.goal?.text.trim() ? session.goal : null;
  if (!latest) return { request: goal, continuation: null };
  if (!isBareContinuation(latest.text)) return { request: latest, continuation: null };
  // The messages before the latest, by their order in the record (a task file on one line gives them all one line).
  const all = session.humanMessages ?? [];
  let at = all.length - 1;
  while (at >= 0 && !(all[at]?.text === latest.text && all[at]?.line === latest.line)) at--;
  const earlier = at >= 0 ? all.slice(0, at) : all.filter((m) => m.line < latest.line);
  const before = earlier.filter((m) => !isBareContinuation(m.text) && !(goal && m.line <= goal.line));
  return { request: before.at(-1) ?? goal ?? latest, continuation: latest };
}

/** One line of the session's words, at most `n` characters, cut at a space — masked before the cut. */
export const oneLine = (s: string, n: number): string => {
  const t = redact(s).replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  const cut = t.slice(0, n - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > n / 2 ? cut.slice(0, space) : cut}…`;
};
const quote = (s: string, n = 300): string => `"${oneLine(s, n).replace(/"/g, "'")}"`;
const code = (s: string, n = 200): string => `\`${oneLine(s, n).replace(/`/g, "'")}\``;

/** A sentence that says what the agent is about to do ("I'll export…", "Now run the build", "Let me check…"). */
const FORWARD = /^(?:(?:now|next|then|first|so)[, ]+)?(?:i(?:'|’)?ll|i will|i(?:'|’)m (?:going to|now|exporting|running|copying|checking|writing|creating|building|testing|starting)|i am going to|let me|let's|now (?:i|let|run|copy|export|check|build|write|create|test)|next,? i|going to|running|copying|exporting)\b/i;

/** The step a command was for: its own description, else the sentence before it that says what comes next. */
export function purposeOf(c: Pick<SessionCommand, 'description' | 'intent'>): string | null {
  const d = c.description?.trim();
  if (d) return oneLine(d, 200);
  const sentences = (c.intent ?? '').split(/(?<=[.!?:])\s+|\n+/).map((x) => x.trim()).filter(Boolean);
  const ahead = sentences.filter((x) => FORWARD.test(x)).at(-1);
  return ahead ? oneLine(ahead.replace(/[:.]+$/, ''), 200) : null;
}

/** A command that never got its result (no exit, no outcome): what the session was doing when it stopped. */
function noResult(c: SessionCommand): boolean {
  return !c.rejected && c.exit_code === null && (c.unfinished === 'no-result' || c.unfinished === 'running') && c.background?.status !== 'completed';
}

/** The program word and its subcommand: `npm run build`, `pytest tests/a.py`, `cargo test`. */
function targetOf(command: string): string {
  const key = looseKey(command);
  const steps = key.split(/\s*(?:&&|\|\||;|\|)\s*/).map((s) => s.trim()).filter((s) => s && !/^cd\b/.test(s));
  const main = steps.find((s) => !isReadOnlyCommand(s)) ?? steps[0] ?? key;
  return main.split(' ').filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w)).slice(0, 3).join(' ');
}

const FIXED_WORDS = /\b(pass(?:es|ed|ing)?|succeed(?:s|ed)?|successful(?:ly)?|green|fixed|works?|working|clean|resolved|builds? fine)\b/i;

/** True when the closing words say the failure's program now passes ("build passes", "tests green"). */
function reportedFixed(f: FailedAttempt, closing: string | null): boolean {
  if (!closing) return false;
  const prog = programOf(normalizeCommand(f.command));
  const words = [...new Set([prog, ...targetOf(f.command).split(' ').slice(1)].filter((w): w is string => !!w && w.length >= 3 && !w.startsWith('-')))];
  return words.some((w) => {
    const re = new RegExp(`\\b${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b[^.\\n]{0,80}`, 'gi');
    for (const m of closing.matchAll(re)) if (FIXED_WORDS.test(m[0])) return true;
    return false;
  });
}

/**
 * The failures that are still the session's last word on their target: in the final exchange (after
 * `fromLine`, when the failure has a session line), not resolved by a later passing run, not told
 * again by a later run of the same command, not superseded by a later passing command on the same
 * target, and not reported fixed in the closing words. Newest first.
 */
export function openFailuresOf(failed: readonly FailedAttempt[], commands: readonly CommandRun[], fromLine: number | null, closing: string | null): FailedAttempt[] {
  return [...failed].reverse().filter((f) => {
    if (f.resolved_by !== undefined) return false;
    const line = f.source?.line;
    if (fromLine !== null && typeof line === 'number' && line <= fromLine) return false;
    if (commands.some((c) => c.index > f.index && looseKey(c.command) === looseKey(f.command))) return false;
    const target = targetOf(f.command);
    if (commands.some((c) => c.index > f.index && c.outcome === 'ok' && targetOf(c.command) === target)) return false;
    return !reportedFixed(f, closing);
  });
}

/** A request for instructions the human will carry out: "give me steps", "how do I …", "walk me through". */
const ASKED_FOR_STEPS = /\b(give me (?:the )?(?:steps|instructions|commands)|steps to (?:do|fix|set up|get)|how (?:do|can|should) i\b|tell me how|what (?:do|should) i (?:do|run)|walk me through)/i;

/** The paragraph of a closing message under a "Recommendation" / "Recommended …" label, without the label. */
export function recommendationIn(text: string): string | null {
  for (const p of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const m = /^\s*(?:#{1,6}\s*)?[*_]*(?:my )?recommend(?:ed|ation)s?\b[^\n]*?[*_]*\s*(?:[:—–-]|\n)\s*([\s\S]+)$/i.exec(p);
    if (m?.[1]?.trim()) return m[1].trim();
  }
  return null;
}

/** "You need to …", "you'll have to …", "run X yourself": a step the agent hands to the human. */
const HUMAN_STEP = /(?:^|[.!?]\s+|\n\s*(?:[-*•]|\d+[.)])?\s*)((?:you(?:'ll| will)? (?:need|have) to|you must|you should|you can now|please)\b(?!,? (?:let me know|tell me|ask|see|be able|notice|find|feel free)\b)(?:[^\n.!?`]|`[^`\n]*`)*[.!?]?)/i;

/**
 * Uncertain work (timed out, interrupted, killed: it may have partly applied) that the closing's
 * questions still name — by its command, its program's arguments or a file it may have changed — and that no
 * later run of the same command settled. The newest such; null when the closing words moved on.
 */
function uncertainNamedIn(failed: readonly FailedAttempt[], commands: readonly CommandRun[], closing: string): FailedAttempt | null {
  const text = closing.toLowerCase();
  for (const f of [...failed].reverse()) {
    if (!f.uncertain || f.resolved_by !== undefined || isReadOnlyCommand(f.command)) continue;
    if (commands.some((c) => c.index > f.index && c.outcome === 'ok' && looseKey(c.command) === looseKey(f.command))) continue;
    const cmd = normalizeCommand(f.command).toLowerCase();
    const words = cmd.split(/\s+/).filter((w) => w.length >= 5 && !w.startsWith('-') && !/^(sudo|bash|python3?|node)$/.test(w));
    if (text.includes(cmd) || words.some((w) => text.includes(w)) || (f.may_have_changed ?? []).some((p) => text.includes(p.toLowerCase()))) return f;
  }
  return null;
}

/** The step the closing words or the recap state, and who does it. */
function statedStep(session: SessionSummary, closing: { text: string; line: number | null } | null, requestLine: number): { text: string; from: 'closing' | 'recap'; line: number | null; human: boolean } | null {
  const real = (s: string | null): string | null => (s && !/^(none|nothing|n\/a|no further|no next)\b/i.test(s.trim()) ? s : null);
  const recap = session.recap;
  if (closing) {
    const next = real(labelledNext(closing.text));
    if (next) return { text: next, from: 'closing', line: closing.line, human: /^(you|the user|user)\b/i.test(next.trim()) };
  }
  if (recap && recap.line > requestLine) {
    const next = real(labelledNext(recap.text));
    if (next) return { text: next, from: 'recap', line: recap.line, human: /^(you|the user|user|submit|send|deliver|hand in)\b/i.test(next.trim()) };
  }
  if (closing) {
    const m = HUMAN_STEP.exec(closing.text);
    if (m?.[1]) return { text: m[1].trim(), from: 'closing', line: closing.line, human: true };
  }
  return null;
}

/**
 * The ending of the session in `snapshot` (null without a session): its kind, one line for people,
 * the request it answers, the open failures of its final exchange and the next step it gives.
 */
export function readEnding(snapshot: WorkbenchSnapshot, failed: readonly FailedAttempt[], commands: readonly CommandRun[]): SessionEnding | null {
  const s = snapshot.session;
  // Older readers give no lines: without the final exchange there is no ending to read.
  if (!s || (s.latestRequest === undefined && s.closing === undefined)) return null;
  const at = (line: number | null | undefined, what: string): Source => ({ file: s.file, line: line ?? null, what });
  const { request, continuation } = resolveRequest(s);
  const latest = s.latestRequest ?? null;
  const fromLine = latest?.line ?? null;
  const closing = closingOf(snapshot);
  // The order of the final exchange decides what came after what; lines only where a reader records no
  // exchange (a task file written on one line gives every message the same line).
  const exchange = s.exchange ?? null;
  const spokeAfter = exchange ? exchange.some((e) => e.kind === 'text') : closing !== null && (closing.line === null || fromLine === null || closing.line > fromLine);
  const closingAfter = closing && spokeAfter ? closing : null;
  const open = openFailuresOf(failed, commands, fromLine, closingAfter?.text ?? null).filter((f) => !(exchange && (handledIn(exchange, f) || stoppedOnPurpose(f))));
  const requestText = request ? quote(request.text, 300) : null;
  // A skill is being followed when it ran for the request the final exchange answers, not before it.
  const skills = (s.skills ?? []).filter((k) => k.line === null || !request || k.line >= request.line).map((k) => `\`${k.name.replace(/`/g, "'")}\``);
  const viaSkill = skills.length ? ` (the session was following the ${skills.join(', ')} skill${skills.length > 1 ? 's' : ''}: continue its workflow from where it stopped)` : '';
  // A plan the user approved in the final exchange (or that the last request approves) is what to follow.
  const plan = s.approvedPlan && (fromLine === null || s.approvedPlan.line >= fromLine - 1 || /\bplan\b/i.test(latest?.text ?? '')) ? s.approvedPlan : null;
  const viaPlan = plan ? `, following the plan the user approved (L${plan.line}, quoted whole in the packet)` : '';
  const asked = requestText ? `${continuation && request && continuation !== request ? `${quote(continuation.text, 60)}, continuing ${requestText}` : requestText}${viaSkill}${viaPlan}` : null;
  const make = (kind: Ending['kind'], summary: string, source: Source | null, next: EndingStep | null): SessionEnding => ({ ending: { kind, summary, source }, request, openFailures: open, next });

  // The human spoke last and got no real answer.
  const unanswered = latest ? (s.unanswered ?? []).find((u) => u.line === latest.line) : undefined;
  if (latest && unanswered) {
    const why = unanswered.why === 'api-error' ? 'only API errors followed' : unanswered.why === 'interrupted' ? 'it was interrupted' : 'nothing followed';
    const earlier = (s.unanswered ?? []).filter((u) => u.line < latest.line && u.line > (closingAfter?.line ?? 0));
    const repeated = earlier.length ? ` (asked ${earlier.length + 1} times without an answer)` : '';
    const src = at(latest.line, 'request');
    return make('human-unanswered', `The human spoke last (L${latest.line}) and got no real answer: ${why}.`, src, {
      text: `Answer the user's last message, which never got a real answer (${why})${repeated}: ${asked ?? quote(latest.text)}`,
      kind: 'unanswered-request', from: 'unanswered request', source: src,
    });
  }

  // Cut mid-step: a call of the final exchange has no result and nothing was said after it.
  const final = s.finalCommands ?? [];
  const pending = final.filter(noResult);
  const lastPending = pending.at(-1);
  const saidAfter = (c: SessionCommand): boolean => {
    if (exchange) {
      const at = exchange.findIndex((e) => e.kind === 'command' && e.id === c.id);
      if (at >= 0) return exchange.slice(at + 1).some((e) => e.kind === 'text');
    }
    return !!closingAfter && closingAfter.line !== null && typeof c.line === 'number' && closingAfter.line > c.line;
  };
  if (lastPending && !saidAfter(lastPending)) {
    // The step that matters is the first one that writes something; read-only siblings come after.
    const step = pending.find((c) => !isReadOnlyCommand(c.command)) ?? lastPending;
    const others = pending.filter((c) => c !== step);
    const what = purposeOf(step);
    const src = at(step.line ?? null, 'unfinished call');
    const named = `${what ? `${what} — ` : ''}${code(step.command, 240)}${typeof step.line === 'number' ? ` (L${step.line})` : ''}`;
    const also = others.length ? ` ${others.length === 1 ? 'One other call' : `${others.length} other calls`} also got no result (${others.map((c) => code(c.command, 60)).join(', ')}): redo ${others.length === 1 ? 'it' : 'them'} if still needed.` : '';
    const towards = requestText ? ` Then go on with the request it served: ${asked}.` : '';
    return make('cut-mid-step', `The session was cut mid-step: its last call has no result (L${step.line ?? '?'}).`, src, {
      text: `Check what the unfinished step produced before anything else: ${named} never returned a result, so whether it ran, and what it wrote, is unknown; finish it only if its output is missing or incomplete, do not rerun it blindly.${also}${towards}`,
      kind: 'unfinished-step', from: 'unfinished call', source: src,
    });
  }

  // Cut mid-turn: the agent called tools after its last words, got their results, and the record ends.
  if (exchange && shapeOf(exchange) === 'cut-after-result') {
    const textLine = lastTextLine(exchange);
    const summary = [...exchange].reverse().find((e): e is Extract<ExchangeEvent, { kind: 'compaction' }> => e.kind === 'compaction' && !!e.text && (e.line ?? 0) > (textLine ?? 0));
    const pendingSteps = summary?.text ? compactionNext(summary.text) : null;
    const stopped = exchange.some((e) => e.kind === 'api-error' && (e.line ?? 0) > (textLine ?? 0)) ? ' (the model provider stopped it: an API error or a usage limit)' : '';
    const towards = requestText ? ` The request was ${asked}.` : '';
    if (pendingSteps) {
      const src = at(summary?.line ?? null, 'compaction summary');
      return make('cut-mid-step', `The session was cut mid-turn${stopped} after a compaction (L${summary?.line ?? '?'}) whose summary names the step left.`, src, {
        text: `Finish what the previous session's own summary (L${summary?.line ?? '?'}, written at its compaction) left pending; the work before it is done, do not redo it: ${quote(pendingSteps, 700)}.${towards}`,
        kind: 'unfinished-step', from: 'compaction summary', source: src,
      });
    }
  }
  // Calls after the agent's own words that returned, and nothing said after them: a step cut mid-turn.
  // (With no words of the agent in the exchange at all, the work went on silently: see below.)
  if (exchange && shapeOf(exchange) === 'cut-after-result' && lastTextLine(exchange) !== null && closingAfter) {
    const textLine = lastTextLine(exchange);
    const after = final.filter((c) => typeof c.line === 'number' && c.line > (textLine ?? fromLine ?? 0) && !c.rejected);
    const stopped = exchange.some((e) => e.kind === 'api-error' && (e.line ?? 0) > (textLine ?? 0)) ? ' (the model provider stopped it: an API error or a usage limit)' : '';
    const towards = requestText ? ` The request was ${asked}.` : '';
    const last = after.at(-1);
    const src = at(last?.line ?? textLine ?? fromLine, 'last call');
    const ran = after.slice(-3).map((c) => `${purposeOf(c) ? `"${oneLine(purposeOf(c) ?? '', 120).replace(/"/g, "'")}"` : code(c.command, 100)} (L${c.line ?? '?'}, ${c.exit_code === 0 ? 'completed' : c.exit_code === null ? 'no exit status' : `exit ${c.exit_code}`})`);
    const steps = ran.length ? `${ran.length === 1 ? 'its last call' : `its last ${ran.length} calls`} returned — ${ran.join('; ')} —` : 'its last tool calls returned';
    const words = closingAfter && textLine !== null ? ` Its last words before them (L${textLine}): ${quote(closingAfter.text, 300)}.` : '';
    const own = mentionsOwnRecord(`${latest?.text ?? ''}\n${closingAfter?.text ?? ''}`) ? ` The session's own record, which these words refer to, is \`${s.file}\`.` : '';
    return make('cut-mid-step', `The session was cut mid-turn${stopped}: ${ran.length ? `its last call (L${last?.line ?? '?'}) returned` : 'its last calls returned'} and no final message followed.`, src, {
      text: `The previous session stopped mid-turn with no final message: ${steps} and the record ends.${words} Check what those calls did and take it as done (do not redo it), then finish what is left.${towards}${own}`,
      kind: 'unfinished-step', from: 'unfinished turn', source: src,
    });
  }

  if (!closingAfter) {
    // Nothing was said after the last human message and nothing is pending: the work went on silently.
    const newest = open[0];
    const src = latest ? at(latest.line, 'request') : null;
    if (newest) return make('no-reply', `The agent worked on the last message (L${fromLine ?? '?'}) without a closing message.`, src, null);
    return make('no-reply', `The session ended after the last message (L${fromLine ?? '?'}) with no closing message from the agent.`, src, request ? {
      text: `Continue the user's request, which the previous session had started on without reporting back: ${asked}.`,
      kind: 'latest-request', from: 'latest request', source: at(request.line, 'latest request'),
    } : null);
  }

  const closingSrc = at(closingAfter.line, 'closing message');
  // Work that may have partly applied and that the closing's questions ask about: checked first
  // (inspection changes nothing, so it never pre-empts the human's choice).
  // Waiting for the human: the closing asks questions or offers options, or the question tool is unanswered.
  const questions = collectOpenQuestions(snapshot).filter((q) => q.from !== 'agent_state');
  const pendingWork = questions.length ? uncertainNamedIn(failed, commands, questions.map((q) => q.text).join('\n')) : null;
  const inspect = pendingWork ? `${stepForFailure(pendingWork)} ` : '';
  const stated = statedStep(s, closingAfter, fromLine ?? 0);
  if (questions.length && s.endedOnClosing !== false) {
    const listed = questions.slice(0, 3).map((q) => quote(q.text, 400)).join('; ');
    const more = questions.length > 3 ? ` (and ${questions.length - 3} more, listed below)` : '';
    const then = stated && !stated.human ? ` Then: ${oneLine(stated.text, 300)}` : '';
    const ask = inspect ? 'Then get the user\'s answer' : 'Get the user\'s answer before doing anything else';
    const first = pendingWork?.source ?? questions[0]?.source ?? closingSrc;
    return make('waiting-for-human', `The agent answered and ended waiting for the human's answer (L${closingAfter.line ?? '?'}).`, questions[0]?.source ?? closingSrc, {
      text: `${inspect}${ask} — the previous session ended asking: ${listed}${more}. Do only what they choose.${then}`,
      kind: 'waiting', from: 'questions', source: first,
    });
  }
  const summary = `The agent answered the last message${latest ? ` (L${latest.line})` : ''} and closed (L${closingAfter.line ?? '?'}).`;
  if (stated) {
    const src = at(stated.line, stated.from === 'recap' ? 'recap' : 'closing message');
    const who = stated.human ? 'The user does this (the previous session handed it over): ' : '';
    const after = stated.human ? ' Ask whether it is done and how it went before changing anything.' : '';
    return make('agent-closed', summary, src, { text: `${inspect}${inspect ? 'Then: ' : ''}${who}${oneLine(stated.text, 600)}${after}`, kind: stated.from === 'recap' ? 'recap' : 'closing-next', from: stated.from === 'recap' ? 'recap' : 'closing words', source: src });
  }
  if (open.length) return make('agent-closed', summary, closingSrc, null);
  // The user asked how to do something and got the steps: the user runs them; the next session asks how it went.
  if (request && ASKED_FOR_STEPS.test(request.text)) {
    return make('agent-closed', summary, closingSrc, {
      text: `The user runs the steps the previous session gave for ${quote(request.text, 200)} (its closing message, L${closingAfter.line ?? '?'}). Ask whether they worked, and debug from the actual error if not; nothing is left to code until then.`,
      kind: 'closing-next', from: 'closing words', source: closingSrc,
    });
  }
  // A recommendation the agent closed on (a review, a plan) is the user's to accept before anyone acts on it.
  const recommendation = recommendationIn(closingAfter.text);
  if (recommendation) {
    return make('agent-closed', summary, closingSrc, {
      text: `Take the previous session's recommendation to the user and get their decision before acting on it: ${quote(recommendation, 500)}${requestText ? ` (the request was ${requestText})` : ''}.`,
      kind: 'closing-next', from: 'closing words', source: closingSrc,
    });
  }
  if (reportsDone(closingAfter.text)) {
    const test = s.lastTestCommand ?? null;
    const verify = test ? `verify it (\`${oneLine(test, 160).replace(/`/g, "'")}\`)` : 'verify it';
    // The agent's recap names the step after the whole task (a submission, a deploy): it still stands.
    const recapNext = s.recap ? labelledNext(s.recap.text) : null;
    const recap = recapNext ? ` The agent's recap (L${s.recap?.line ?? '?'}) named what comes after the task: ${quote(recapNext, 300)}.` : '';
    return make('agent-closed', summary, closingSrc, {
      text: `The previous session reported the request done: ${quote(gistOf(closingAfter.text, 400), 400)}. ${verify[0]?.toUpperCase()}${verify.slice(1)} and ask the user what comes next${requestText ? ` (the request was ${requestText})` : ''}.${recap}`,
      kind: 'done', from: 'closing words', source: closingSrc,
    });
  }
  // The agent answered and closed with nothing left open that the workbench's rules would take up
  // (a task in progress): the next session starts from where its answer left the work.
  const inProgress = snapshot.featureList?.features.some((f) => f.status === 'in_progress');
  if (inProgress || s.endedOnClosing === false) return make('agent-closed', summary, closingSrc, null);
  return make('agent-closed', summary, closingSrc, {
    text: `The previous session answered ${asked ?? 'the last message'} and closed (L${closingAfter.line ?? '?'}); its answer ends: ${quote(gistOf(closingAfter.text, 400), 400)}. Start from that state: confirm it, then ask the user what comes next before starting new work.`,
    kind: 'closing-next', from: 'closing words', source: closingSrc,
  });
}

/** "This session", "the transcript", "对话记录": words that point at the session's own record file. */
function mentionsOwnRecord(text: string): boolean {
  return /\b(?:session|transcript|conversation)s?\b|\.jsonl\b|会话|會話|对话|對話|セッション|会話|세션|대화/i.test(text);
}

/**
 * True when the agent dealt with failure `f` within the exchange: it said something after it and then
 * went on with work that succeeded (a different route, a fix) — the failure is history, not the step.
 */
function handledIn(exchange: readonly ExchangeEvent[], f: FailedAttempt): boolean {
  const line = f.source?.line;
  if (typeof line !== 'number') return false;
  const spoke = exchange.find((e) => e.kind === 'text' && (e.line ?? 0) > line);
  if (!spoke) return false;
  return exchange.some((e) => e.kind === 'result' && e.outcome === 'ok' && (e.line ?? 0) > (spoke.line ?? 0));
}

/** A run ended by a signal (Ctrl-C, a kill, an interrupt): stopped, not failed. */
function stoppedOnPurpose(f: FailedAttempt): boolean {
  return f.exit_code === 130 || f.exit_code === 143 || f.exit_code === 137 || f.exit_code === -2 || f.exit_code === -15 || /\b(?:interrupted|KeyboardInterrupt|\^C)\b/.test(f.excerpt ?? '');
}
