import { OPEN_QUESTIONS_TITLE, openQuestions } from '../src/core/render/text';
import type { PanelModel, WebviewMessage } from '../src/ui/protocol';
import type { Source } from '../src/core/source';
import { parseTime } from '../src/ui/format/when';
import { h, icon, none, section, shortHash, timeEl } from './dom';

type Packet = PanelModel['packet'];
type Post = (msg: WebviewMessage) => void;

/** `name.jsonl:93` for a source; the full path is in the tooltip. */
function sourceLabel(s: Source): string {
  const name = s.file.slice(s.file.replace(/\\/g, '/').lastIndexOf('/') + 1) || s.file;
  return s.line === null ? name : `${name}:${s.line}`;
}

/** A source as a link: a click asks the host to open the file at its line (the host checks the file). */
export function sourceLink(s: Source | null | undefined, post: Post | undefined): HTMLElement | null {
  if (!s) return null;
  const label = sourceLabel(s);
  if (!post) return h('span', { class: 'meta source' }, ` — ${label}`);
  const full = s.line === null ? s.file : `${s.file}:${s.line}`;
  const link = h('button', { class: 'link source', attrs: { type: 'button', 'data-source': full, 'aria-label': `Open ${s.what ? `${s.what} at ` : ''}${full}` }, title: `Open ${full}` }, label);
  link.addEventListener('click', () => post({ type: 'openSource', file: s.file, line: s.line }));
  return h('span', { class: 'meta' }, ' — ', link);
}

const SEVERITY_ORDER = ['block', 'high', 'warn', 'info'] as const;
const SEVERITY_ICON: Record<(typeof SEVERITY_ORDER)[number], string> = {
  block: 'error',
  high: 'warning',
  warn: 'warning',
  info: 'info',
};

/** The banner above everything: stale reasons, or a note when the packet is no longer the active one. */
export function freshnessBanner(model: PanelModel): HTMLElement | null {
  const { packet, freshness } = model;
  if (freshness?.stale) {
    const list = h('ul', {}, ...freshness.reasons.map((r) => h('li', {}, r)));
    return h(
      'div',
      { class: 'banner stale', attrs: { role: 'alert', 'data-testid': 'freshness' } },
      icon('warning'),
      h('div', {}, h('strong', {}, 'This packet is stale.'), ' Review it read-only before acting.', list),
    );
  }
  if (packet.status !== 'active') {
    const by = packet.superseded_by ? ` by ${packet.superseded_by}` : '';
    return h('div', { class: 'banner info', attrs: { 'data-testid': 'freshness' } }, icon('history'), `This packet is ${packet.status}${by}.`);
  }
  if (freshness) {
    return h('div', { class: 'banner fresh', attrs: { 'data-testid': 'freshness' } }, icon('pass'), 'Fresh: HEAD and inputs match this packet.');
  }
  return null;
}

/** The next action, the most prominent thing on the page; the goal for the session above it, when set. */
export function nextAction(packet: Packet, derivedFrom = '', post?: Post): HTMLElement {
  const goal = packet.next_goal?.trim()
    ? h('p', { class: 'goal', attrs: { 'data-testid': 'next-goal' } }, h('strong', {}, 'Goal: '), packet.next_goal)
    : null;
  const derived = derivedFrom
    ? h('p', { class: 'muted', attrs: { 'data-testid': 'derived-from' } }, derivedFrom)
    : packet.next_action_source === 'derived'
      ? h('p', { class: 'muted' }, 'Derived from the record of the previous session (the agent did not write one).')
      : null;
  return h(
    'section',
    { class: 'next-action', attrs: { 'aria-labelledby': 'next-title', 'data-section': 'next-action' } },
    goal,
    h('h2', { attrs: { id: 'next-title' } }, icon('arrow-right'), 'Next action'),
    h('p', { class: 'next-text', attrs: { 'data-testid': 'next-action' } }, packet.next_action),
    derived,
    packet.next_action_origin?.source && packet.next_action_origin.source.line !== null
      ? h('p', { class: 'muted', attrs: { 'data-testid': 'next-source' } }, 'Where the session said it', sourceLink(packet.next_action_origin.source, post) ?? '')
      : null,
  );
}

/**
 * The session's closing words, verbatim, right after the next action: what it said it did, what is not
 * done, what is next, what it asked. Text only (`textContent`), its paragraphs kept.
 */
export function closingWords(packet: Packet, post?: Post): HTMLElement | null {
  const c = packet.closing;
  if (!c?.text.trim()) return null;
  const quote = h('blockquote', { class: 'closing-text', attrs: { 'data-testid': 'closing' } }, c.text);
  const from = h('p', { class: 'muted' }, 'The previous session\'s last message, verbatim', sourceLink(c.source, post) ?? '',
    c.omitted_chars ? `; ${c.omitted_chars.toLocaleString('en-US')} more characters left out here (the whole message is at that line)` : '', '.');
  return section('closing', 'Closing words of the previous session', h('div', {}, quote, from));
}

/** The agent's questions for a human and its blockers: decided or asked before acting, so above the risks. */
export function openQuestionsSection(packet: Packet, post?: Post): HTMLElement | null {
  const items = openQuestions(packet).map((q) =>
    h(
      'li',
      { attrs: { 'data-testid': 'question' } },
      q.kind === 'blocker' ? h('span', { class: 'badge warn' }, icon('circle-slash'), 'blocker') : null,
      ` ${q.text}`,
      q.options?.length ? h('span', { class: 'meta' }, ` (options: ${q.options.join(' / ')})`) : null,
      sourceLink(q.source, post),
    ),
  );
  if (!items.length) return null;
  const waiting = packet.waiting_for_answers
    ? h('p', { class: 'banner info', attrs: { 'data-testid': 'waiting' } }, icon('comment-discussion'), 'The previous session ended on these questions and was waiting for the answers: ask them first.')
    : null;
  return section('questions', OPEN_QUESTIONS_TITLE, h('div', {}, waiting, h('ul', {}, ...items)), items.length);
}

/** The completeness audit: the score, then each failing probe with what it saw and the fix. */
export function completeness(model: PanelModel): HTMLElement | null {
  const a = model.audit;
  if (!a) return null;
  const failing = a.probes.filter((p) => p.status === 'fail');
  const score = h(
    'p',
    { attrs: { 'data-testid': 'audit-score' } },
    icon(failing.length ? 'warning' : 'pass', failing.length ? '' : 'ok'),
    h('strong', {}, `${a.passed}/${a.applicable}`),
    ' probes pass — what a fresh agent needs from this packet.',
  );
  const items = failing.map((p) =>
    h('li', { attrs: { 'data-probe': p.id } }, h('strong', {}, p.title), h('span', { class: 'meta' }, ` — ${p.detail}`), h('p', { class: 'note' }, 'Fix: ', p.fix)),
  );
  return section('completeness', 'Completeness', h('div', {}, score, items.length ? h('ul', {}, ...items) : null), failing.length);
}

export function summary(packet: Packet): HTMLElement {
  return section('summary', 'Summary', h('p', { class: 'summary-text', attrs: { 'data-testid': 'summary' } }, packet.summary));
}

export function failedAttempts(packet: Packet, post?: Post): HTMLElement {
  const items = packet.failed_attempts.map((f) =>
    h(
      'li',
      { class: f.uncertain ? 'uncertain' : '', attrs: { 'data-attempt': String(f.index) } },
      h('code', {}, f.command),
      h('span', { class: 'badge' }, f.outcome === 'failed' ? `exit ${f.exit_code ?? '?'}` : f.outcome),
      f.uncertain ? h('span', { class: 'badge warn' }, icon('question'), 'may have partly applied — inspect first') : null,
      f.resolved_by !== undefined ? h('span', { class: 'badge ok' }, icon('check'), `a later run passed (#${f.resolved_by})`) : null,
      sourceLink(f.source, post),
      f.may_have_changed?.length ? h('p', { class: 'note' }, 'May have changed: ', f.may_have_changed.join(', ')) : null,
      f.note ? h('p', { class: 'note' }, f.note) : null,
      f.excerpt ? h('pre', { class: 'excerpt' }, f.excerpt) : null,
    ),
  );
  const body = items.length ? h('ul', { class: 'attempts' }, ...items) : none('No failed attempts recorded.');
  return section('failed', 'Failed attempts — do not repeat', body, items.length);
}

export function risks(model: PanelModel): HTMLElement {
  const acked = new Map(model.acks.map((a) => [a.id, a]));
  const groups = SEVERITY_ORDER.map((sev) => {
    const list = model.packet.open_risks.filter((r) => r.severity === sev);
    if (!list.length) return null;
    const items = list.map((r) => {
      const ack = acked.get(r.id);
      return h(
        'li',
        { class: ack ? 'acked' : '', attrs: { 'data-risk': r.id } },
        icon(SEVERITY_ICON[sev], `sev-${sev}`),
        h('span', { class: 'risk-detail' }, r.detail),
        h('span', { class: 'meta' }, ` — ${r.source}${r.owner ? `, owner ${r.owner}` : ''}`),
        ack ? h('span', { class: 'badge ok' }, icon('check'), `acknowledged by ${ack.by}, `, ackTime(ack.at)) : null,
        r.verify ? h('p', { class: 'note' }, 'Verify: ', h('code', {}, r.verify)) : null,
      );
    });
    return h('div', { class: `sev-group sev-${sev}` }, h('h3', {}, `${sev} (${list.length})`), h('ul', {}, ...items));
  });
  const present = groups.filter((g): g is HTMLDivElement => g !== null);
  return section('risks', 'Open risks', present.length ? h('div', {}, ...present) : none('No open risks.'), model.packet.open_risks.length);
}

/** An acknowledgement's time for people; a value that is not a time is shown as written. */
function ackTime(at: string): HTMLElement | string {
  const ms = parseTime(at);
  return ms === null ? at : timeEl(ms);
}

export function changedFiles(packet: Packet, post: Post): HTMLElement {
  const items = packet.changed_files.map((f) => {
    const link = h('button', { class: 'link', attrs: { type: 'button', 'data-path': f.path }, title: `Open ${f.path}` }, f.path);
    link.addEventListener('click', () => post({ type: 'openFile', path: f.path }));
    return h('li', {}, h('span', { class: `kind kind-${f.kind}` }, f.kind), link, f.from ? h('span', { class: 'meta' }, ` (from ${f.from})`) : null);
  });
  return section('files', 'Changed files', items.length ? h('ul', { class: 'files' }, ...items) : none('No changed files.'), items.length);
}

export function commandsRun(packet: Packet): HTMLElement {
  const rows = packet.commands_run.map((c) =>
    h(
      'tr',
      { class: c.outcome === 'ok' ? '' : 'failed' },
      h('td', {}, icon(c.outcome === 'ok' ? 'pass' : 'error', c.outcome === 'ok' ? 'ok' : 'bad')),
      h('td', {}, h('code', {}, c.command)),
      h('td', {}, c.exit_code === null ? c.outcome : String(c.exit_code)),
      h('td', { class: 'note' }, c.note ?? ''),
    ),
  );
  const omitted = packet.commands_omitted ? h('p', { class: 'muted' }, `${packet.commands_omitted} older successful commands left out.`) : null;
  const head = h('tr', {}, h('th', {}, ''), h('th', {}, 'Command'), h('th', {}, 'Exit'), h('th', {}, 'Note'));
  const body = rows.length ? h('div', {}, h('table', {}, h('thead', {}, head), h('tbody', {}, ...rows)), omitted) : none('No commands recorded.');
  return section('commands', 'Commands run', body, rows.length);
}

export function verdicts(packet: Packet): HTMLElement {
  const { verification, review } = packet.verdict_pointer;
  const v = verification
    ? h('li', {}, icon(verification.passed ? 'pass' : 'error', verification.passed ? 'ok' : 'bad'), `Verification ${verification.passed ? 'passed' : 'failed'} — `, h('code', {}, verification.file))
    : h('li', { class: 'muted' }, 'No verification report.');
  const r = review
    ? h('li', {}, icon(review.verdict === 'pass' ? 'pass' : 'warning'), `Review ${review.verdict} (${review.total}/10) — `, h('code', {}, review.file))
    : h('li', { class: 'muted' }, 'No review report.');
  return section('verdicts', 'Verdicts', h('ul', {}, v, r));
}

export function cleanState(packet: Packet): HTMLElement {
  const cs = packet.clean_state;
  if (!cs) return section('clean', 'Clean state at generation', none('Not checked.'));
  if (cs.clean) return section('clean', 'Clean state at generation', h('p', {}, icon('pass', 'ok'), 'Clean.'));
  const items = cs.findings.map((f) =>
    h('li', {}, h('strong', {}, f.check), ` — ${f.detail}`, f.paths?.length ? h('p', { class: 'note' }, f.paths.join(', ')) : null, h('p', { class: 'note' }, 'Fix: ', f.fix)),
  );
  return section('clean', 'Clean state at generation', h('ul', {}, ...items), items.length);
}

export function contextReading(packet: Packet): HTMLElement {
  const c = packet.context;
  let body: HTMLElement;
  if (!c) body = none('No reading.');
  else if (!c.known) body = h('p', {}, `Unknown: ${c.reason}`);
  else {
    const pct = `${Math.round(c.percent)}%`;
    body = h(
      'p',
      {},
      h('strong', {}, pct),
      ` of ${c.windowTokens.toLocaleString('en-US')} tokens (${c.usedTokens.toLocaleString('en-US')} used) — ${c.source}, session ${c.sessionId}; compacts at ≈${Math.round(c.compactAtPercent)}%.`,
    );
  }
  return section('context', 'Context at generation', body);
}

/** Smaller lists the next session should see: assumptions, files to read first, decisions. */
export function extras(packet: Packet): HTMLElement[] {
  const out: HTMLElement[] = [];
  const list = (id: string, title: string, items: string[]): void => {
    if (items.length) out.push(section(id, title, h('ul', {}, ...items.map((t) => h('li', {}, t))), items.length));
  };
  list('assumptions', 'Assumptions to validate', packet.assumptions_to_validate.map((a) => a.text));
  list('prereqs', 'Read these first', packet.next_session_prereqs);
  list('decisions', 'Decisions', packet.decisions.map((d) => (d.status === 'rejected' ? `Rejected: ${d.text}` : d.text)));
  return out;
}

/**
 * The line under the title: where the packet was taken, when its file was written (for people, ISO
 * in the tooltip) and the time its content speaks for. The packet's own time is not the write time:
 * it is the newest recorded command's, so the same inputs give the same packet.
 */
export function metaLine(model: PanelModel): HTMLElement {
  const { packet } = model;
  const parts: (string | HTMLElement)[] = [
    `branch ${packet.branch ?? 'unknown'}`,
    `HEAD ${shortHash(packet.head_commit)}`,
    `topic ${packet.topic}`,
    `status ${packet.status}`,
  ];
  if (model.writtenAt !== null) parts.push(h('span', { attrs: { 'data-testid': 'written' } }, 'written ', timeEl(model.writtenAt)));
  const asOf = parseTime(packet.generated_at);
  parts.push(asOf === null ? `as of ${packet.generated_at}` : h('span', { attrs: { 'data-testid': 'as-of' } }, 'as of the last recorded command, ', timeEl(asOf)));
  const line = h('p', { class: 'meta-line' });
  parts.forEach((p, i) => line.append(...(i ? [' · ', p] : [p])));
  return line;
}

/** Everything the panel draws for one packet, in page order (a unit test renders it too). */
export function packetSections(model: PanelModel, post: Post): (Node | string)[] {
  const { packet } = model;
  return [
    h('h1', {}, `Handoff — ${model.folderName}`),
    metaLine(model),
    freshnessBanner(model) ?? '',
    nextAction(packet, model.derivedFrom, post),
    closingWords(packet, post) ?? '',
    openQuestionsSection(packet, post) ?? '',
    summary(packet),
    failedAttempts(packet, post),
    risks(model),
    completeness(model) ?? '',
    changedFiles(packet, post),
    commandsRun(packet),
    verdicts(packet),
    cleanState(packet),
    contextReading(packet),
    ...extras(packet),
  ];
}
