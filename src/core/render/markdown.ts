import type { Packet } from '../packet/schema';
import { displayPath } from '../packet/secretRisks';
import { orderRisks } from '../packet/severity';
import type { Source } from '../source';
import { asOfText, contextText, OPEN_QUESTIONS_TITLE, openQuestions, outcomeText, RECORD_NOTICE, sourcesText, sourceText } from './text';
import { redact } from '../redact';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** The longest run of backticks in `text` (0 when there is none). */
function longestBacktickRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

/**
 * Inline code that holds any text: the fence is one backtick longer than the longest run inside, and
 * padded with a space when the text starts or ends with a backtick (CommonMark strips one such space).
 */
export function code(text: string): string {
  const oneLine = text.replace(CONTROL, '').replace(/\s*\n\s*/g, ' ');
  const fence = '`'.repeat(longestBacktickRun(oneLine) + 1);
  const pad = /^`|`$/.test(oneLine) || /^ .*\S.* $/.test(oneLine) ? ' ' : '';
  return `${fence}${pad}${oneLine}${pad}${fence}`;
}

/**
 * A name from an artifact (session id, topic, branch, repo): as is when it looks like a name, else in a
 * code span — so text with spaces in it can never read as a sentence of ours.
 */
export function ident(text: string): string {
  return /^[\w.\/:@#+-]{1,100}$/.test(text) ? text : code(redact(text).slice(0, 100));
}

const escapeMarkup = (s: string): string => s.replace(/([\\`*[\]<>|])/g, '\\$1');

/**
 * Agent text goes into markdown as one line. A code span it opens and closes (`` `pytest -k x` ``)
 * stays a code span; every other character that could restructure the page or inject HTML is escaped
 * (`_` stays: intraword underscores are not emphasis and paths are full of them).
 */
export function inline(text: string, opts: { tableCell?: boolean } = {}): string {
  const one = text.replace(CONTROL, '').replace(/\s*\n\s*/g, ' ');
  let out = '';
  let i = 0;
  while (i < one.length) {
    const open = /`+/g;
    open.lastIndex = i;
    const m = open.exec(one);
    if (!m) break;
    const fence = m[0];
    // The closing run must have exactly the opening's length.
    const close = new RegExp(`(?<!\`)${fence}(?!\`)`, 'g');
    close.lastIndex = m.index + fence.length;
    const c = close.exec(one);
    if (!c) break;
    const inner = one.slice(m.index + fence.length, c.index);
    out += escapeMarkup(one.slice(i, m.index));
    // A table cell ends at a bare `|`, even inside a code span; elsewhere `\|` there would show.
    out += `${fence}${opts.tableCell ? inner.replace(/\|/g, '\\|') : inner}${fence}`;
    i = c.index + fence.length;
  }
  return out + escapeMarkup(one.slice(i));
}

/** Each step of the next-action precedence, for people. */
const NEXT_KIND: Record<string, string> = {
  agent_state: 'agent_state.json next_action',
  'closing-next': 'the next step the closing words name',
  recap: "the agent's recap",
  'unanswered-request': 'a request that never got a real answer',
  task: 'the task in progress',
  failure: 'an open failure',
  verification: 'a blocking verification finding',
  questions: 'the questions the session ended on',
  'latest-request': 'the latest request',
  done: 'the session reported the task done',
  'unfinished-step': 'the step the session was cut in',
  waiting: 'the answer the session ended waiting for',
};
const HUMAN_KIND: Record<string, string> = {
  goal: 'Goal (set with /goal)',
  'first-request': 'First request',
  'latest-request': 'Latest request',
  'rejection-reason': 'Reason given for declining',
  answer: 'Answer',
  'unanswered-request': 'Request that never got a real answer',
  message: 'Message',
  'approved-plan': 'Plan the human approved',
};

const short = (sha: string | null): string => (sha ? sha.slice(0, 12) : 'unknown');

/** Multi-line record text as a fenced block, its fence longer than any backtick run inside (≥ 3). */
export function fenced(text: string, indent = ''): string[] {
  const body = text.replace(CONTROL, '').split('\n').map((l) => l.trimEnd());
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return [`${indent}${fence}text`, ...body.map((l) => `${indent}${l}`), `${indent}${fence}`];
}

/** Record lines as a blockquote: every line starts with `> `, so none of it reads as the page's own. */
const quoted = (lines: string[]): string[] => lines.map((l) => (l ? `> ${l}` : '>'));

/** A source as handoff.md shows it: a session file under the home folder as `~/…`, as its risks show it. */
const mdSource = (s: Source): string => sourceText({ ...s, file: displayPath(s.file) });

/**
 * Renders `handoff.md` from the packet alone: every statement here is a field of the JSON, so the two
 * can never disagree. Deterministic like the JSON. Our own words are headings and the lines about the
 * packet itself; everything taken from the previous session's files is quoted under a statement that
 * it is a record, not instructions.
 */
export function renderMarkdown(p: Packet): string {
  const out: string[] = [];
  const section = (title: string, body: string[], empty?: string): void => {
    out.push('', `## ${title}`, '');
    if (!body.length) out.push(empty ?? 'None.');
    else out.push(...quoted(body));
  };

  out.push(`# Handoff: ${ident(p.topic)}`, '');
  out.push(`- Session: ${code(p.session_id)} · packet ${code(p.packet_id)} · status **${p.status}**${p.superseded_by ? ` by ${code(p.superseded_by)}` : ''}`);
  out.push(`- Repository: ${p.repo ? code(p.repo) : 'unknown'}${p.remote ? ` (remote ${code(p.remote)})` : ''} · branch ${p.branch ? code(p.branch) : 'unknown'} · HEAD ${code(short(p.head_commit))}`);
  out.push(`- Last known good commit: ${code(short(p.last_known_good_commit))}`);
  out.push(`- Time: ${asOfText(p)} — the packet holds no wall-clock time, so the same inputs give the same packet`);
  if (p.context) out.push(`- Context at generation: ${inline(contextText(p.context))}`);
  const sources = sourcesText(p);
  if (sources) out.push(`- ${inline(sources)}`);
  if (p.next_goal?.trim()) out.push('', p.next_goal_from === 'mcp-client' ? `**A goal an MCP client gave (not the user's words; confirm it):** ${inline(p.next_goal)}` : `**Goal for the next session:** ${inline(p.next_goal)}`);
  out.push('', `_${RECORD_NOTICE}_`);

  section(`Next action (${p.next_action_source === 'agent_state' ? 'recorded by the agent' : 'derived from the record'})`, [inline(p.next_action)]);
  const origin = p.next_action_origin;
  if (origin) out.push('', `_Next action from: ${inline(NEXT_KIND[origin.kind] ?? origin.kind)}${origin.source ? ` — source: ${inline(mdSource(origin.source))}` : ''}_`);
  if (p.ending) out.push('', `_How the session ended: ${inline(p.ending.summary)}_`);

  if (p.closing?.text.trim()) {
    out.push('', '## Closing words of the previous session', '', `_Verbatim, from ${inline(mdSource(p.closing.source))}${p.closing.omitted_chars ? `; ${p.closing.omitted_chars} more characters left out here (the whole message is at that line)` : ''}._`, '');
    out.push(...quoted(fenced(p.closing.text)));
  }

  const questions = openQuestions(p);
  if (p.waiting_for_answers && questions.length) out.push('', '_The previous session ended on these questions and was waiting for the answers: ask them first; with nobody to ask, make the most reasonable choice and state it._');
  section(OPEN_QUESTIONS_TITLE, questions.map((q) => {
    const opts = q.options?.length ? ` — options: ${q.options.map((o) => inline(o)).join(' / ')}` : '';
    return `- ${q.kind === 'blocker' ? '**blocker:** ' : ''}${inline(q.text)}${opts}${q.source ? ` _(source: ${inline(mdSource(q.source))})_` : ''}`;
  }), 'None recorded.');

  const words = p.human_words ?? [];
  if (words.length) {
    const body: string[] = [];
    for (const w of words) {
      body.push(`- **${HUMAN_KIND[w.kind] ?? w.kind}**${w.about ? ` (${inline(w.about)})` : ''}${w.source ? ` _(source: ${inline(mdSource(w.source))})_` : ''}${w.omitted_chars ? ` — ${w.omitted_chars} more characters left out` : ''}:`);
      body.push('', ...fenced(w.text, '    '));
    }
    section("The human's words (verbatim)", body);
  }

  const uncertain = p.failed_attempts.filter((f) => f.uncertain);
  if (uncertain.length) {
    const body: string[] = [];
    for (const f of uncertain) {
      body.push(`- #${f.index} ${code(f.command)} — ${outcomeText(f)} — **may have partly applied: inspect before anything else, never run it again blindly**`);
      if (f.may_have_changed?.length) body.push(`  - may have changed: ${f.may_have_changed.map(code).join(', ')}`);
      body.push('  - evidence:', '', ...fenced(f.excerpt, '    '));
    }
    section('Uncertain work', body);
  }

  section('Summary', [inline(p.summary)]);

  const risks: string[] = [];
  for (const r of orderRisks(p.open_risks)) {
    const extra = [r.owner ? `owner: ${r.owner}` : '', r.verify ? `verify: ${code(r.verify)}` : '', r.paths?.length ? `paths: ${r.paths.map(code).join(', ')}` : '']
      .filter(Boolean).join(' · ');
    risks.push(`- **${r.severity}** ${code(r.id)} ${inline(r.detail)} _(source: ${inline(r.source)})_${extra ? ` — ${extra}` : ''}`);
  }
  section('Open risks', risks, 'None recorded.');

  const failed: string[] = [];
  for (const f of p.failed_attempts) {
    failed.push(`- #${f.index} ${code(f.command)} — ${f.outcome === 'failed' && !f.uncertain ? `failed (exit ${f.exit_code})` : outcomeText(f)}${f.uncertain ? ' — **uncertain: may have partly applied, inspect before anything else**' : ''}${f.resolved_by !== undefined ? ` — a later run passed (#${f.resolved_by})` : ''}`);
    if (f.source) failed.push(`  - source: ${inline(mdSource(f.source))}`);
    if (f.note) failed.push(`  - note: ${inline(f.note)}`);
    failed.push('  - output:', '', ...fenced(f.excerpt, '    '));
  }
  section('Failed attempts', failed);

  const table = ['| # | command | outcome | exit | note |', '|---|---|---|---|---|'];
  for (const c of p.commands_run) {
    const note = [c.not_a_failure ? `not a failure: ${c.not_a_failure}` : '', c.note ?? ''].filter(Boolean).join('; ');
    table.push(`| ${c.index} | ${code(c.command).replace(/\|/g, '\\|')} | ${c.outcome} | ${c.exit_code ?? 'null'} | ${note ? inline(note, { tableCell: true }) : ''} |`);
  }
  section(`Commands run (${p.commands_run.length} kept, ${p.commands_omitted} left out)`, p.commands_run.length ? table : [], 'None recorded.');

  section('Changed files', p.changed_files.map((f) => `- ${code(f.path)} (${f.kind}${f.from ? ` from ${code(f.from)}` : ''})`), 'None recorded.');
  section('Decisions', p.decisions.map((d) => `- ${d.status === 'rejected' ? '**rejected** — do not retry: ' : 'made: '}${inline(d.text)}${d.source && d.source.line !== null ? ` _(source: ${inline(mdSource(d.source))})_` : ''}`), 'None recorded.');
  section('Assumptions to validate (unverified)', p.assumptions_to_validate.map((a) => `- ${inline(a.text)}`), 'None recorded.');
  section('Read these first', p.next_session_prereqs.map((f) => `- ${code(f)}`), 'Nothing listed.');

  const v = p.verdict_pointer.verification;
  const r = p.verdict_pointer.review;
  const verdicts = [
    `- Verification: ${v ? `${v.passed ? 'passed' : 'failed'} (${code(v.file)}${v.task_id ? `, task ${code(v.task_id)}` : ''})` : 'none'}`,
    `- Review: ${r ? `${inline(r.verdict)} ${r.total}/10 (${code(r.file)}${r.task_id ? `, task ${code(r.task_id)}` : ''})` : 'none'}`,
  ];
  if (p.clean_state) {
    verdicts.push(`- Clean state: ${p.clean_state.clean ? 'clean' : `dirty (${p.clean_state.findings.length} findings)`}`);
    for (const f of p.clean_state.findings) {
      verdicts.push(`  - ${f.check}${f.severity === 'warn' ? ' (warn)' : ''}: ${inline(f.detail)} — fix: ${inline(f.fix)}${f.silence ? ` — if it is wrong: ${inline(f.silence)}` : ''}`);
    }
  }
  section('Verdicts', verdicts);

  out.push('', '## Inputs', '');
  for (const i of p.inputs) out.push(`- ${code(i.file)} sha256 ${code(i.sha256.slice(0, 16))}`);
  return `${out.join('\n')}\n`;
}
