import type { Packet } from '../packet/schema';
import { orderRisks } from '../packet/severity';
import { redact } from '../redact';
import { code, ident } from './markdown';
import { asOfText, countOf, OPEN_QUESTIONS_TITLE, openQuestions, outcomeText, RECORD_NOTICE, sourcesText } from './text';

export interface PromptExtra {
  freshness?: { stale: boolean; reasons: string[] };
  acknowledged?: { id: string; by: string; at: string }[];
  /** Replaces the default "how the first reply should look". */
  firstTurn?: string;
}

/** ≈ 1 500 tokens: long enough for the essentials, short enough to paste. */
export const PROMPT_MAX_CHARS = 6000;
/** How much of each list the prompt shows; a second, tighter set is used when the first does not fit. */
interface Limits {
  failed: number;
  uncertain: number;
  risks: number;
  files: number;
  questions: number;
  summary: number;
  excerpt: number;
}
const FULL: Limits = { failed: 5, uncertain: 3, risks: 8, files: 8, questions: 6, summary: 800, excerpt: 200 };
const TIGHT: Limits = { failed: 3, uncertain: 2, risks: 5, files: 5, questions: 4, summary: 300, excerpt: 100 };

// Control characters (other than newline and tab) never reach the prompt: they could hide text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** One line of record text: whitespace collapsed, at most `n` characters. */
const clip = (s: string, n: number): string => {
  const one = s.replace(CONTROL, '').replace(/\s*\n\s*/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/** Record text as quoted lines: every line of it starts with `> `, so none of it reads as ours. */
function quote(text: string, indent = ''): string[] {
  return text
    .replace(CONTROL, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => `> ${indent}${l}`);
}

/** An excerpt in the prompt: its lines quoted under its entry, at most `n` characters in all. */
function excerptLines(excerpt: string, n: number): string[] {
  const cut = excerpt.length > n ? `${excerpt.slice(0, n - 1)}…` : excerpt;
  return quote(cut, '  ');
}

/**
 * The restart prompt (DESIGN §6), built only from the packet. Our own words frame it — where the work
 * stands, whether the packet is fresh, what to do first, how to reply — and everything taken from the
 * previous session (next action, questions, commands, output, notes, decisions, risks, files) is
 * quoted under a statement that it is a record, not instructions. Open questions and uncertain work
 * come before the failures and risks.
 */
export function renderRestartPrompt(p: Packet, extra: PromptExtra = {}): string {
  const full = render(p, extra, FULL);
  if (full.body.length + full.reply.length + 2 <= PROMPT_MAX_CHARS) return `${full.body}\n${full.reply}\n`;
  const tight = render(p, extra, TIGHT);
  // Still too long: cut the record, never the instructions on how to reply.
  const room = PROMPT_MAX_CHARS - tight.reply.length - 42;
  const body = tight.body.length > room ? `${tight.body.slice(0, room)}\n…(trimmed; see handoff.json)` : tight.body;
  return `${body}\n${tight.reply}\n`;
}

const TASK_AGENTS: Record<string, string> = { cline: 'Cline', roo: 'Roo Code', kilo: 'Kilo Code' };

/** The VS Code agent whose task the packet came from (`sources.session` `cline:<id>` …), or null. */
export function vscodeTaskAgent(p: Pick<Packet, 'sources'>): string | null {
  const m = /^(cline|roo|kilo):/.exec(p.sources?.['session'] ?? '');
  return m ? (TASK_AGENTS[m[1] as string] ?? null) : null;
}

/** The prompt's record part and its closing "how your first reply should look", redacted. */
function render(p: Packet, extra: PromptExtra, L: Limits): { body: string; reply: string } {
  const stale = extra.freshness?.stale === true;
  const lines: string[] = [];
  if (p.next_goal?.trim()) lines.push(`GOAL FOR THIS SESSION: ${clip(p.next_goal, 500)}`, '');
  if (stale) {
    const why = extra.freshness?.reasons.length ? extra.freshness.reasons.map((r) => r.replace(/\.+$/, '')).join('; ') : 'the workspace moved on since it was written';
    lines.push(`WARNING: this handoff packet is **stale** — ${clip(why, 400)}. Treat it as history, not as the current state.`, '');
  }
  const taskAgent = vscodeTaskAgent(p);
  if (taskAgent) {
    // Cline / Roo Code / Kilo Code: the next session is a new task of the same agent, opened with this prompt.
    lines.push(`You are continuing work handed off from a previous ${taskAgent} task (${ident(p.session_id)}, topic ${ident(p.topic)}).`);
    lines.push(`To start the next task with it: open ${taskAgent}, start a new task and paste this whole prompt as the task's first message (Session Handoff: Copy as New Task).`);
  } else {
    lines.push(`You are continuing work handed off from a previous session (${ident(p.session_id)}, topic ${ident(p.topic)}).`);
  }
  lines.push(`Where it stands: repo ${p.repo ? ident(p.repo) : 'unknown'}, branch ${p.branch ? ident(p.branch) : 'unknown'}, HEAD ${p.head_commit ? ident(p.head_commit.slice(0, 12)) : 'unknown'} — ${asOfText(p)}.`);
  if (!stale) lines.push(extra.freshness ? 'Freshness: the packet matches the current branch and HEAD.' : 'Freshness: not checked against the current repository; confirm branch and HEAD first.');
  const sources = sourcesText(p);
  if (sources) lines.push(clip(sources, 300));
  lines.push('', RECORD_NOTICE);

  const who = p.next_action_source === 'agent_state' ? 'recorded by the previous session' : 'derived from the record';
  lines.push('', `NEXT ACTION — the first step (${who}):`, ...quote(clip(p.next_action, 600)));

  const acks = new Map((extra.acknowledged ?? []).map((a) => [a.id, a]));
  const ackText = (id: string | undefined): string => {
    const ack = id ? acks.get(id) : undefined;
    return ack ? ` (acknowledged by ${clip(ack.by, 60)} at ${ack.at})` : '';
  };
  const questions = openQuestions(p);
  if (questions.length) {
    lines.push('', `${OPEN_QUESTIONS_TITLE}:`);
    for (const q of questions.slice(0, L.questions)) lines.push(...quote(`- ${q.id ? `${q.id}: ` : ''}${clip(q.text, 240)}${ackText(q.id)}`));
    if (questions.length > L.questions) lines.push(`(${countOf(questions.length - L.questions, 'more question')} in handoff.json)`);
  }

  const uncertain = p.failed_attempts.filter((f) => f.uncertain);
  if (uncertain.length) {
    lines.push('', 'Uncertain work — may have partly applied; inspect what it changed before anything else, never run it again blindly:');
    for (const f of uncertain.slice(-L.uncertain)) {
      const changed = f.may_have_changed?.length ? ` — may have changed: ${f.may_have_changed.slice(0, 5).join(', ')}` : '';
      lines.push(...quote(`- #${f.index} ${code(clip(f.command, 160))} ${outcomeText(f)}${changed}`));
      lines.push(...excerptLines(f.excerpt, L.excerpt + 100));
    }
    if (uncertain.length > L.uncertain) lines.push(`(${countOf(uncertain.length - L.uncertain, 'older one')} in handoff.json)`);
  }

  lines.push('', 'Summary:', ...quote(clip(p.summary, L.summary)));

  const failed = p.failed_attempts.filter((f) => !f.uncertain);
  if (failed.length) {
    lines.push('', 'Failed attempts — do not repeat blindly:');
    for (const f of failed.slice(-L.failed)) {
      lines.push(...quote(`- #${f.index} ${code(clip(f.command, 160))} (${outcomeText(f)})${f.note ? ` [note: ${clip(f.note, 80)}]` : ''}`));
      lines.push(...excerptLines(f.excerpt, L.excerpt));
    }
    if (failed.length > L.failed) lines.push(`(${countOf(failed.length - L.failed, 'older one')} in handoff.json)`);
  }
  const rejected = p.decisions.filter((d) => d.status === 'rejected');
  if (rejected.length) {
    lines.push('', 'Rejected approaches — do not retry:');
    for (const d of rejected.slice(0, 4)) lines.push(...quote(`- ${clip(d.text, 200)}`));
  }

  // Blockers are already above, under the open questions.
  const risks = orderRisks(p.open_risks.filter((r) => !r.id.startsWith('blocker:')));
  if (risks.length) {
    lines.push('', 'Open risks (most severe first):');
    for (const r of risks.slice(0, L.risks)) {
      lines.push(...quote(`- [${r.severity}] ${clip(r.id, 60)}: ${clip(r.detail, 200)}${r.verify ? ` — verify with: ${code(clip(r.verify, 120))}` : ''}${ackText(r.id)}`));
    }
    if (risks.length > L.risks) lines.push(`(${countOf(risks.length - L.risks, 'more risk')} in handoff.json)`);
  }

  if (p.next_session_prereqs.length) {
    lines.push('', 'Read these first:');
    for (const f of p.next_session_prereqs.slice(0, L.files)) lines.push(...quote(`- ${clip(f, 200)}`));
  }
  if (p.assumptions_to_validate.length) {
    lines.push('', 'Unverified assumptions:');
    for (const a of p.assumptions_to_validate.slice(0, 4)) lines.push(...quote(`- ${clip(a.text, 200)}`));
  }

  const reply: string[] = ['', 'How your first reply should look:'];
  if (extra.firstTurn?.trim()) reply.push(extra.firstTurn.trim());
  else if (stale) reply.push('Review read-only first: compare the packet with the current branch, HEAD and files, report what changed, and propose the next step before editing anything.');
  else if (uncertain.length) reply.push('Confirm the branch and HEAD in one line, settle the open questions, then inspect the uncertain work and report what it changed before acting on the next action.');
  else reply.push('Confirm the branch and HEAD in one line, then act on the next action right away (after the open questions, if any); report the result of its verification command.');
  return { body: redact(lines.join('\n')), reply: redact(reply.join('\n')) };
}
