import type { Packet } from '../packet/schema';
import { orderRisks } from '../packet/severity';
import { redact, type Redacted } from '../redact';
import { code, ident, inline } from './markdown';
import { countOf, openQuestions, outcomeText } from './text';

/** How many items of a kind a PR summary lists before "and N more". */
const MAX_ITEMS = 5;
/** The longest single item (a summary, a risk): a PR description is read at a glance. */
const MAX_CHARS = 400;

const cut = (s: string): string => (s.length > MAX_CHARS ? `${s.slice(0, MAX_CHARS - 1)}…` : s);

/** `@name`, `@org/team`: a mention GitHub would notify (an e-mail address is not one). */
const MENTION = /(?<![\w@.`\/])@[A-Za-z0-9][A-Za-z0-9-]{0,38}(?:\/[\w.-]+)?/g;
/**
 * `#12`, `org/repo#12`, `GH-12`, an issue or pull request URL on github.com: a reference GitHub links —
 * and, after "Fixes", closes (`Fixes https://github.com/org/repo/issues/12` closes #12 as `Fixes #12` does).
 */
const REFERENCE = /(?<![\w&`\/])(?:[\w.-]+\/[\w.-]+)?#\d+\b|\bGH-\d+\b|(?<![\w`])https?:\/\/(?:www\.)?github\.com\/[\w.-]+\/[\w.-]+\/(?:issues|pull)\/\d+(?:#[\w-]+)?/g;

/**
 * Agent text pasted into a pull request must ping no one and link or close nothing: mentions and
 * issue references outside code spans become code spans, where GitHub reads neither.
 */
export function quietForGithub(text: string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 ? part : part.replace(MENTION, (m) => `\`${m}\``).replace(REFERENCE, (m) => `\`${m}\``)))
    .join('');
}
const prose = (s: string): string => inline(quietForGithub(cut(s)));
/** A topic or branch name: in a code span when it holds `@` or `#` (a mention or reference otherwise). */
const name = (s: string): string => (/[@#]/.test(s) ? code(s) : ident(s));

function list<T>(items: readonly T[], line: (item: T) => string): string[] {
  const shown = items.slice(0, MAX_ITEMS).map((i) => `- ${line(i)}`);
  return items.length > MAX_ITEMS ? [...shown, `- …and ${items.length - MAX_ITEMS} more (see the handoff packet)`] : shown;
}

/**
 * The packet as a short markdown summary for a pull request description or a review comment: what was
 * done, what failed or was rejected (so a reviewer does not suggest it again), the open risks and the
 * next step. No machine path, no session text beyond the packet's own redacted words; redacted whole.
 */
export function renderForPr(p: Packet): Redacted {
  const out: string[] = [];
  out.push(`### Session handoff: ${name(p.topic)}${p.branch ? ` on ${name(p.branch)}` : ''}`, '');
  out.push('**What was done**', '', prose(p.summary));
  const changed = p.changed_files;
  if (changed.length) {
    out.push('', `${countOf(changed.length, 'file')} changed:`);
    out.push(...list(changed, (c) => `${code(c.path)} (${c.kind})`));
  }
  const passed = p.commands_run.filter((c) => c.outcome === 'ok');
  if (passed.length) out.push('', `Last passing command: ${code(passed[passed.length - 1]!.command)}`);

  const failed = p.failed_attempts.filter((f) => f.resolved_by === undefined);
  const rejected = p.decisions.filter((d) => d.status === 'rejected');
  out.push('', '**What failed or was rejected**', '');
  if (!failed.length && !rejected.length) out.push('Nothing failed or was rejected among the recorded commands.');
  out.push(...list(failed, (f) => `${code(f.command)} — ${quietForGithub(outcomeText(f))}${f.uncertain ? ', may have partly applied' : ''}`));
  out.push(...list(rejected, (d) => `rejected: ${prose(d.text)}`));

  const risks = orderRisks(p.open_risks);
  const questions = openQuestions(p).filter((q) => q.kind === 'question');
  out.push('', '**Open risks**', '');
  if (!risks.length && !questions.length) out.push('None recorded.');
  out.push(...list(risks, (r) => `**${r.severity}** ${prose(r.detail)}`));
  out.push(...list(questions, (q) => `open question: ${prose(q.text)}`));

  out.push('', '**Next step**', '', prose(p.next_action));
  out.push('', `<sub>Session Handoff packet ${ident(p.packet_id)}${p.head_commit ? ` at ${p.head_commit.slice(0, 7)}` : ''}.</sub>`, '');
  return redact(out.join('\n'));
}
