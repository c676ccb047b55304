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
  out.push(`### Session handoff: ${ident(p.topic)}${p.branch ? ` on ${ident(p.branch)}` : ''}`, '');
  out.push('**What was done**', '', inline(cut(p.summary)));
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
  out.push(...list(failed, (f) => `${code(f.command)} — ${outcomeText(f)}${f.uncertain ? ', may have partly applied' : ''}`));
  out.push(...list(rejected, (d) => `rejected: ${inline(cut(d.text))}`));

  const risks = orderRisks(p.open_risks);
  const questions = openQuestions(p).filter((q) => q.kind === 'question');
  out.push('', '**Open risks**', '');
  if (!risks.length && !questions.length) out.push('None recorded.');
  out.push(...list(risks, (r) => `**${r.severity}** ${inline(cut(r.detail))}`));
  out.push(...list(questions, (q) => `open question: ${inline(cut(q.text))}`));

  out.push('', '**Next step**', '', inline(cut(p.next_action)));
  out.push('', `<sub>Session Handoff packet ${ident(p.packet_id)}${p.head_commit ? ` at ${p.head_commit.slice(0, 7)}` : ''}.</sub>`, '');
  return redact(out.join('\n'));
}
