import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { Source } from '../source';
import { textOf } from './risks';
import type { HumanWords, PacketQuestion, Packet } from './schema';
import { redact } from '../redact';

/**
 * The session's own judgement (DESIGN §2c), taken verbatim: its closing words, the questions it left
 * open, the next step it wrote down, and the human's words. Deterministic text rules, no model.
 */

/** The closing words are kept whole up to about this many characters. */
export const CLOSING_MAX = 3000;
/** Each of the human's words (a request, a reason, an answer) is kept whole up to about this many. */
export const HUMAN_MAX = 2000;

/** A text of the session with the line it came from (null when the reader did not say). */
export interface LinedText {
  text: string;
  line: number | null;
}

/**
 * `text` whole when it fits `max`, else cut at the last paragraph boundary before `max` (a line break,
 * else a sentence end, else a space when no paragraph ends late enough): never inside a word.
 */
export function cutAtParagraph(text: string, max = CLOSING_MAX): { text: string; omitted: number } {
  // Redacted first: a cut never leaves part of a secret (nor a cut secret reading as a placeholder).
  const t = redact(text).trim();
  if (t.length <= max) return { text: t, omitted: 0 };
  const head = t.slice(0, max);
  const floor = Math.floor(max / 3);
  const candidates = [head.lastIndexOf('\n\n'), head.lastIndexOf('\n'), Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '), head.lastIndexOf('! ')) + 1, head.lastIndexOf(' ')];
  const at = candidates.find((i) => i >= floor) ?? max;
  const kept = t.slice(0, at).trimEnd();
  return { text: kept, omitted: t.length - kept.length };
}

/** `text` whole up to `max` characters, else cut at the last space before it (never inside a word). */
export function wholeWords(text: string, max = HUMAN_MAX): { text: string; omitted: number } {
  const t = redact(text).trim();
  if (t.length <= max) return { text: t, omitted: 0 };
  const space = t.slice(0, max).search(/\s\S*$/);
  const kept = (space > max / 2 ? t.slice(0, space) : t.slice(0, max)).trimEnd();
  return { text: kept, omitted: t.length - kept.length };
}

// Code spans and fenced blocks hold commands and output, never the session's questions or labels.
const FENCE = /^\s*(```|~~~)/;
const LIST_MARKER = /^\s*(?:[-*+•]|\d+[.)])\s+/;
const EMPHASIS = /^[*_]+|[*_]+$/g;

/** Lines outside fenced blocks, with their list markers and surrounding emphasis kept as they are. */
function proseLines(text: string): string[] {
  const out: string[] = [];
  let inFence = false;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      out.push('');
      continue;
    }
    out.push(inFence ? '' : line);
  }
  return out;
}

/** A label at the start of a line ("**Next:**", "## Questions for you", "Decision needed -"), and the rest. */
function labelled(line: string, labels: RegExp): { label: string; rest: string } | null {
  const m = new RegExp(`^\\s*(?:#{1,6}\\s*)?(?:[-*+•]\\s+)?[*_]*(${labels.source})[*_]*\\s*(?:[:：—–-]|$)[*_]*\\s*(.*)$`, 'i').exec(line);
  if (!m) return null;
  return { label: m[1] ?? '', rest: (m[2] ?? '').replace(EMPHASIS, '').trim() };
}

const QUESTION_LABELS = /questions? for (?:you|the user)|open questions?|questions?|decisions? needed|decision for you/;
const NEXT_LABELS = /next steps?|next actions?|next up|what'?s next|next|remaining(?: work| items| tasks| steps)?|still open|left to do|optional next step|下一步|接下来|接下來|次(?:は|に|の(?:ステップ|作業))?|다음(?: 단계)?|siguientes? pasos?|próximos? pasos?|siguiente|следующ(?:ий|ие) шаг(?:и)?|далее/;
/** Any label that starts a new part of a closing message ("Done:", "Status:", "Not done:", …). */
const ANY_LABEL = /^\s*(?:#{1,6}\s*)?[*_]*[A-Z][\w /'-]{0,30}[*_]*\s*:[*_]*(\s|$)/;

/** Sentences of a line, split after `.`, `?` or `!` and a space — never inside a code span. */
function sentences(line: string): string[] {
  const masked = line.replace(/`[^`]*`/g, (m) => 'x'.repeat(m.length));
  const out: string[] = [];
  let start = 0;
  // A quoted question inside a sentence ('judges asking "can I attach it?" hear …') does not end it.
  for (const m of masked.matchAll(/[.?!]["'”’)\]]*\s+(?![a-z])|[。？！]["'”’)\]」』]*\s*/g)) {
    const end = (m.index ?? 0) + m[0].length;
    out.push(line.slice(start, end).trim());
    start = end;
  }
  out.push(line.slice(start).trim());
  return out.filter(Boolean);
}

const strip = (s: string): string => s.replace(LIST_MARKER, '').replace(EMPHASIS, '').trim();
/**
 * A sentence that asks: it ends in a question mark of any script (`?`, `？`, `;` is not one), or in a
 * question particle (吗 / 嗎 / 呢, か / ますか / でしょうか, 까 / 나요), or starts "Should I …". A sentence
 * that is a quotation as a whole ('"Can a model judge itself?"') quotes a question; it does not ask one.
 */
const isQuestion = (s: string): boolean => {
  const t = s.trim();
  if (/^["“'‘「『]/.test(t) && /[?？]["”'’」』]$/.test(t)) return false;
  return /[?？]["')\]」』]*$/.test(t) || /(?:吗|嗎|呢|ですか|ますか|でしょうか|か|까|나요|습니까)[。.]?$/.test(t) || /^should (i|we)\b/i.test(t) || /^¿[^?]*\?/.test(t);
};
const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * The questions of a closing message, in order, deterministic: every sentence ending in `?` (or
 * starting "Should I …"), and the text under a question label ("Question for you:", "Open questions",
 * "Decision needed", …) — on the label's line and the list items or lines after it, up to a blank line
 * or the next label. Fenced blocks are skipped; a question asked twice is kept once.
 */
export function questionsIn(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (q: string): void => {
    const t = strip(q);
    const key = norm(t);
    if (t.length < 4 || !key || seen.has(key)) return;
    seen.add(key);
    out.push(t);
  };
  let underLabel = false;
  for (const raw of proseLines(text)) {
    if (!raw.trim()) {
      underLabel = false;
      continue;
    }
    const label = labelled(raw, QUESTION_LABELS);
    let line = raw;
    if (label) {
      underLabel = true;
      line = label.rest;
    } else if (ANY_LABEL.test(raw) && !LIST_MARKER.test(raw)) {
      underLabel = false;
    }
    const parts = sentences(strip(line));
    const asked = parts.filter(isQuestion);
    if (asked.length) asked.forEach(add);
    // Under a label, a line with no question mark is a question all the same ("Decision needed: X or Y.").
    else if (underLabel && parts.length) add(parts.join(' '));
  }
  return out;
}

/**
 * The next step the session wrote itself: the text after a "Next:", "Next step(s):", "Next action:" or
 * "Remaining:" label in its closing message (the label's line, or the list items under it, joined), or
 * the "Next action: …" sentence of the agent's recap. Null when it wrote none.
 */
export function labelledNext(text: string): string | null {
  const lines = proseLines(text);
  for (let i = 0; i < lines.length; i++) {
    const label = labelled(lines[i] ?? '', NEXT_LABELS);
    if (!label) continue;
    const parts = label.rest ? [label.rest] : [];
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j] ?? '';
      if (!l.trim() || (ANY_LABEL.test(l) && !LIST_MARKER.test(l))) break;
      // A label with text on its own line ends at that line unless a list follows it.
      if (parts.length && !LIST_MARKER.test(l)) break;
      parts.push(strip(l));
    }
    const joined = parts.map((p) => p.replace(/[;\s]+$/, '')).filter(Boolean).join('; ');
    if (joined) return joined;
  }
  // A recap is one paragraph: "Goal: … Next action: … ." — the sentence after the label.
  const m = /\bnext (?:action|step)s?\s*:\s*([\s\S]+?)(?:\n\s*\n|$)/i.exec(text);
  return m?.[1]?.trim() ? m[1].trim() : null;
}

const DONE = /\b(done|completed?|finished|fixed|landed|committed|merged|pushed|shipped|implemented|all (?:tests|checks) (?:pass|passed|green)|is ready|works now|(?:i(?:'|’)ve|i have|has been|have been) (?:created|added|written|updated|built|deployed|set up|configured))\b/i;
const NOT_DONE = /\b(not (?:yet )?(?:done|finished|complete|working)|still (?:fails?|failing|broken|red|open)|remaining|todo|blocked|couldn'?t|could not|unable|failed|fails|next\s*:|question)\b/i;

/** True when the closing words report the work done and name nothing left open. */
export function reportsDone(text: string): boolean {
  return DONE.test(text) && !NOT_DONE.test(text) && questionsIn(text).length === 0;
}

/** The session's closing words as the packet keeps them: redaction happens over the whole packet. */
export function closingOf(snapshot: WorkbenchSnapshot): LinedText | null {
  const s = snapshot.session;
  if (!s) return null;
  if (s.closing !== undefined) return s.closing ? { text: s.closing.text, line: s.closing.line } : null;
  // Older readers: the last main-chain assistant message, with no line.
  return s.lastAssistantMessage?.trim() ? { text: s.lastAssistantMessage, line: null } : null;
}

/** The packet's `closing`: whole up to CLOSING_MAX, else cut at a paragraph boundary. */
export function packetClosing(snapshot: WorkbenchSnapshot): Packet['closing'] {
  const c = closingOf(snapshot);
  const s = snapshot.session;
  if (!c || !s) return null;
  const cut = cutAtParagraph(c.text);
  // A long message keeps its recommendation, next steps and questions even when they sit past the cut.
  const key = cut.omitted ? keyParts(c.text.trim().slice(cut.text.length)) : '';
  const text = key ? `${cut.text}\n\n[…]\n\n${key}` : cut.text;
  const readerOmitted = s.closing?.omittedChars ?? 0;
  const omitted = cut.omitted - key.length + readerOmitted;
  return { text, source: { file: s.file, line: c.line, what: 'closing message' }, ...(omitted > 0 ? { omitted_chars: omitted } : {}) };
}

/** Labels that start the part of a closing message a successor must not lose. */
const KEY_LABEL = /^\s*(?:#{1,6}\s*)?[*_]*(?:recommend(?:ed|ation)s?|my recommendation|suggest(?:ed|ion)s?|proposed|next steps?|next actions?|next|remaining|still open|left to do|open questions?|questions?(?: for you)?|decisions? needed|conclusion|bottom line|tl;?dr|in short)\b/i;
/** The key parts cut from a closing message are kept up to this many characters. */
const KEY_MAX = 2000;

/**
 * The paragraphs of `rest` (the part of a closing message past its cut) that start with a key label —
 * a recommendation, next steps, open questions — each with the list under it, up to KEY_MAX characters.
 */
export function keyParts(rest: string): string {
  const paragraphs = rest.replace(/\r\n?/g, '\n').split(/\n\s*\n/);
  const out: string[] = [];
  let size = 0;
  for (let i = 0; i < paragraphs.length; i++) {
    const p = (paragraphs[i] ?? '').trim();
    if (!KEY_LABEL.test(p)) continue;
    // A heading alone keeps the paragraph under it.
    const whole = /^\s*(?:#{1,6}\s*\S.*|[*_]+[^*_\n]+[*_]+:?)$/.test(p) && paragraphs[i + 1] ? `${p}\n\n${(paragraphs[++i] ?? '').trim()}` : p;
    const piece = whole.length + size > KEY_MAX ? wholeWords(whole, Math.max(0, KEY_MAX - size)).text : whole;
    if (!piece) break;
    out.push(piece);
    size += piece.length;
    if (size >= KEY_MAX) break;
  }
  return out.join('\n\n');
}

/** Open questions with their sources: questions_for_human, then the closing words', then the question tool's. */
export function collectOpenQuestions(snapshot: WorkbenchSnapshot): PacketQuestion[] {
  const out: PacketQuestion[] = [];
  const seen = new Set<string>();
  const add = (q: PacketQuestion): void => {
    const key = norm(q.text);
    if (!key || seen.has(key)) return;
    seen.add(key);
    out.push(q);
  };
  for (const q of snapshot.agentState?.questions_for_human ?? []) {
    const text = textOf(q);
    if (text) add({ text, from: 'agent_state', source: { file: 'agent_state.json', line: null, what: 'questions_for_human' } });
  }
  const s = snapshot.session;
  const closing = closingOf(snapshot);
  if (s && closing) {
    const src: Source = { file: s.file, line: closing.line, what: 'closing message' };
    for (const text of questionsIn(closing.text)) add({ text, from: 'closing', source: src });
  }
  for (const q of s?.openQuestions ?? []) {
    const from = q.source === 'closing' ? 'closing' : 'question-tool';
    add({ text: q.text, from, source: { file: s?.file ?? '', line: q.line, what: from === 'closing' ? 'closing message' : 'question tool' }, ...(q.options?.length ? { options: q.options } : {}) });
  }
  return out;
}

/** The session ended on its questions: questions of its closing words or its question tool, and no human message after. */
export function waitingForAnswers(snapshot: WorkbenchSnapshot, questions: readonly PacketQuestion[]): boolean {
  const s = snapshot.session;
  if (!s || s.endedOnClosing === false) return false;
  return questions.some((q) => q.from === 'closing' || q.from === 'question-tool');
}

/** The human's words kept whole: first and latest request, rejection reasons, answers, unanswered requests. */
export function collectHumanWords(snapshot: WorkbenchSnapshot): HumanWords[] {
  const s = snapshot.session;
  if (!s) return [];
  const out: HumanWords[] = [];
  const src = (line: number | null | undefined, what: string): Source | null => (typeof line === 'number' ? { file: s.file, line, what } : { file: s.file, line: null, what });
  const push = (kind: HumanWords['kind'], text: string | null | undefined, line: number | null | undefined, what: string, about?: string): void => {
    if (!text?.trim()) return;
    const w = wholeWords(text);
    out.push({ kind, text: w.text, source: src(line, what), ...(about ? { about } : {}), ...(w.omitted ? { omitted_chars: w.omitted } : {}) });
  };
  const first = s.firstRequest ?? (s.firstUserRequest ? { text: s.firstUserRequest, line: null } : null);
  const latest = s.latestRequest ?? (s.latestUserRequest ? { text: s.latestUserRequest, line: null } : null);
  // The goal set with /goal is the standing task: first, verbatim.
  push('goal', s.goal?.text, s.goal?.line, '/goal');
  push('first-request', first?.text, first?.line, 'first request');
  // Every other message the human typed, in order: the corrections and constraints given on the way.
  for (const m of s.humanMessages ?? []) {
    if (m.line === first?.line || m.line === latest?.line || (s.unanswered ?? []).some((u) => u.line === m.line) || m.text.trim() === first?.text.trim() || m.text.trim() === latest?.text.trim()) continue;
    push('message', m.text, m.line, 'message');
  }
  if (latest && latest.text.trim() !== first?.text.trim()) push('latest-request', latest.text, latest.line, 'latest request');
  // The plan the user approved is what the next session implements: kept whole up to the reader's cap.
  if (s.approvedPlan?.text.trim()) {
    const plan = wholeWords(s.approvedPlan.text, 8000);
    out.push({ kind: 'approved-plan', text: plan.text, source: src(s.approvedPlan.line, 'approved plan'), ...(plan.omitted || s.approvedPlan.omittedChars ? { omitted_chars: plan.omitted + (s.approvedPlan.omittedChars ?? 0) } : {}) });
  }
  for (const r of s.rejectionReasons ?? []) push('rejection-reason', r.reason, r.line, 'rejection reason', r.command);
  for (const a of s.answers ?? []) push('answer', a.answer, a.line, 'answer', a.question);
  for (const u of s.unanswered ?? []) push('unanswered-request', u.text, u.line, `request with no real answer (${u.why})`);
  return out;
}

/**
 * The end of a long message, where its status and next step sit: the last paragraphs (fenced blocks
 * skipped) up to `max` characters, starting at a paragraph or sentence boundary. The whole text when
 * it is short.
 */
export function gistOf(text: string, max = 400, min = 60): string {
  const t = text.trim();
  if (t.length <= min) return t;
  const paragraphs = proseLines(t).join('\n').split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  const kept: string[] = [];
  let size = 0;
  for (let i = paragraphs.length - 1; i >= 0; i--) {
    const p = paragraphs[i] as string;
    if (size + p.length > max) {
      if (kept.length) break;
      // One long last paragraph: its last sentences that fit.
      const parts = sentences(p.replace(/\s+/g, ' '));
      const tail: string[] = [];
      let n = 0;
      for (let j = parts.length - 1; j >= 0 && n + (parts[j] as string).length <= max; j--) {
        tail.unshift(parts[j] as string);
        n += (parts[j] as string).length + 1;
      }
      return tail.length ? tail.join(' ') : p.slice(-max);
    }
    kept.unshift(p);
    size += p.length + 2;
    if (size >= min) break;
  }
  return kept.join('\n\n');
}

/**
 * The step a compaction summary leaves pending, in the summary's own words: Claude Code writes its
 * summaries in a fixed outline ("Pending Tasks:", "Current Work:", "Optional Next Step:"); the next
 * step wins over the pending list. Null when the summary names neither.
 */
export function compactionNext(summary: string): string | null {
  const section = (label: RegExp): string | null => {
    const m = new RegExp(`^\\s*(?:\\d+[.)]\\s*)?[*_#\\s]*(?:${label.source})[*_]*\\s*:\\s*([\\s\\S]*?)(?=\\n\\s*(?:\\d+[.)]\\s*)?[*_#]*[A-Z][\\w /-]{2,40}:\\s*(?:\\n|$)|\\n\\s*\\n(?:If you need|Please continue)|$)`, 'im').exec(summary);
    const body = m?.[1]?.replace(/```[\s\S]*?```/g, '').trim();
    return body && !/^(none|nothing|n\/a)\b/i.test(body) ? body : null;
  };
  return section(/optional next step|next step/) ?? section(/pending tasks/);
}
